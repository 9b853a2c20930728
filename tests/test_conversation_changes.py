"""What the model sees follows every way a conversation's history can change.

:meth:`Conversation.agent_messages` keeps its last result and, while the history was only
appended to, filters just the new messages (a check in O(1): the list counts its other
changes). These change the history each way a list can be changed — through the
conversation, through ``conversation.messages`` and by assigning a new list — and compare
the messages the model would get with those of the same history read from scratch.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import replace
from itertools import count

from hypothesis import given
from hypothesis import strategies as st

from goosectx.conversation import (
    Conversation,
    Message,
    MessageList,
    MessageMetadata,
    SystemNotification,
    TextContent,
    ThinkingContent,
)

_ids = count()


def _message(kind: int) -> Message:
    """One of the message kinds the filter treats apart (visible, hidden, a notification,
    unsigned and signed thinking with text)."""
    n = next(_ids)
    if kind == 0:
        return Message.user(f"q{n}")
    if kind == 1:
        return Message.assistant(f"hidden {n}", MessageMetadata.user_only())
    if kind == 2:
        return Message.notification(f"note {n}")
    if kind == 3:
        return Message("assistant", (ThinkingContent(f"think {n}"), TextContent(f"a{n}")))
    return Message("assistant", (ThinkingContent(f"signed {n}", signature="sig"),
                                 TextContent(f"a{n}"), SystemNotification("inline", "n")))


def _fresh(conversation: Conversation) -> list[Message]:
    """The messages the model would get from this history read from scratch."""
    return Conversation([*conversation.messages]).agent_messages()


def _sent(conversation: Conversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.agent_messages()]


Change = Callable[[Conversation], None]

CHANGES: dict[str, Change] = {
    "append": lambda c: c.append(_message(0)),
    "list append": lambda c: c.messages.append(_message(3)),
    "extend": lambda c: c.messages.extend([_message(0), _message(1)]),
    "+=": lambda c: c.messages.__iadd__([_message(4)]),
    "set an item": lambda c: c.messages.__setitem__(0, _message(0)),
    "hide an item": lambda c: c.messages.__setitem__(
        -1, replace(c.messages[-1], metadata=MessageMetadata.user_only())),
    "set a slice": lambda c: c.messages.__setitem__(slice(0, 2), [_message(0)]),
    "delete an item": lambda c: c.messages.__delitem__(0),
    "delete a slice": lambda c: c.messages.__delitem__(slice(1, 3)),
    "insert": lambda c: c.messages.insert(1, _message(0)),
    "pop": lambda c: c.messages.pop(),
    "pop the first": lambda c: c.messages.pop(0),
    "remove": lambda c: c.messages.remove(c.messages[0]),
    "clear": lambda c: c.messages.clear(),
    "sort": lambda c: c.messages.sort(key=lambda m: m.text),
    "reverse": lambda c: c.messages.reverse(),
    "*=": lambda c: c.messages.__imul__(2 if len(c.messages) < 40 else 1),
    "*= 0": lambda c: c.messages.__imul__(0),
    "init again": lambda c: c.messages.__init__([_message(0)]),  # type: ignore[misc]
    "assign a list": lambda c: setattr(c, "messages", [_message(0), *c.messages[1:]]),
    "assign another's list": lambda c: setattr(
        c, "messages", Conversation([_message(0), *c.messages]).messages),
}


def _history() -> Conversation:
    return Conversation([_message(k) for k in (0, 3, 1, 0, 4, 2, 0, 3)])


def test_each_change_shows_in_what_the_model_sees() -> None:
    for name, change in CHANGES.items():
        conversation = _history()
        before = _sent(conversation)  # kept: the next read starts from it
        change(conversation)
        assert conversation.agent_messages() == _fresh(conversation), name
        if name not in ("sort", "reverse", "*="):  # these may leave the view as it was
            assert _sent(conversation) != before, name


@given(st.lists(st.tuples(st.sampled_from(sorted(CHANGES)), st.booleans()), max_size=30))
def test_any_run_of_changes_and_reads_matches_a_fresh_read(
        steps: list[tuple[str, bool]]) -> None:
    conversation = _history()
    for name, read in steps:
        if name in ("delete a slice", "pop", "pop the first", "remove", "set an item",
                    "hide an item", "set a slice", "delete an item",
                    "insert") and not conversation.messages:
            continue
        CHANGES[name](conversation)
        if read:
            assert conversation.agent_messages() == _fresh(conversation), name
    assert conversation.agent_messages() == _fresh(conversation)


def test_a_list_given_is_copied_so_later_changes_go_through_the_conversation() -> None:
    given_list = [_message(0), _message(3)]
    conversation = Conversation(given_list)
    conversation.agent_messages()
    given_list.append(_message(0))  # the caller's list, not the conversation's
    assert len(conversation) == 2 and conversation.agent_messages() == _fresh(conversation)
    assigned = [_message(0)]
    conversation.messages = assigned
    assert conversation.messages == assigned and conversation.messages is not assigned
    conversation.messages.append(_message(3))
    assert [m.text for m in conversation.agent_messages()] == [assigned[0].text,
                                                                 conversation.messages[1].text]


def test_a_message_list_given_is_the_conversations_and_a_snapshot_keeps_its_own() -> None:
    built = MessageList([_message(0), _message(1), _message(3)])  # as a compaction's layout
    conversation = Conversation()
    conversation.agent_messages()
    conversation.messages = built
    assert conversation.messages is built  # taken as it is: no copy of a 100k history
    assert conversation.agent_messages() == _fresh(conversation)
    snapshot = conversation.snapshot()  # what an event carries
    seen = [m.id for m in snapshot.messages]
    built.append(_message(0))
    built[0] = replace(built[0], metadata=MessageMetadata.user_only())
    assert [m.id for m in snapshot.messages] == seen  # later changes are not the event's
    assert type(snapshot.messages) is MessageList
    assert snapshot.agent_messages() == _fresh(snapshot)
    assert conversation.agent_messages() == _fresh(conversation)
    assert len(conversation.agent_messages()) == len(snapshot.agent_messages())  # -1 +1


def test_a_copied_or_pickled_conversation_reads_and_changes_as_its_list_does() -> None:
    copies: dict[str, Callable[[Conversation], Conversation]] = {
        "copy": copy.copy, "deepcopy": copy.deepcopy,
        "pickle": lambda c: pickle.loads(pickle.dumps(c))}  # noqa: S301 - our own bytes
    for name, made in copies.items():
        conversation = _history()
        conversation.agent_messages()
        other = made(conversation)
        assert type(other.messages) is MessageList, name
        assert other.agent_messages() == _fresh(conversation), name
        other.messages[0] = replace(other.messages[0], metadata=MessageMetadata.user_only())
        assert other.agent_messages() == _fresh(other), name
        # a shallow copy shares the list (the change is the original's too), the others not
        assert (conversation.messages is other.messages) == (name == "copy"), name
        assert conversation.agent_messages() == _fresh(conversation), name
