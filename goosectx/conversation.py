"""The message protocol's entry point: the conversation, its two views and the repair.

This module is the ONE place that decides what the model sees (:meth:`Conversation.agent_view`)
and what the user sees (:meth:`Conversation.user_view`). No other code filters on visibility.
Content parts live in :mod:`goosectx.parts` (the attachment part in
:mod:`goosectx.attachment`), messages in :mod:`goosectx.message` and the repair in
:mod:`goosectx.conversation_repair`; every name is re-exported here, so
``from goosectx.conversation import Message`` is the usual import (docs/architecture.md, "The
message model and its two projections"). Design after goose 1.45 (``Message``,
``MessageMetadata``, ``fix_conversation``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field, replace
from typing import Any, Self, SupportsIndex

from goosectx.attachment import Attachment
from goosectx.conversation_repair import (
    CONDENSED_PAIRS,
    repair,
    repair_checked,
    repair_prefix,
    repair_scanned,
)
from goosectx.message import (
    Message,
    MessageMetadata,
    PlainMessage,
    Role,
    build_message,
    new_message_id,
    plain_message,
)
from goosectx.parts import (
    SCHEMA_VERSION,
    Part,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
    part_from_dict,
    part_to_dict,
    plain_part,
    plain_parts,
)
from goosectx.plain_record import mutable_record

__all__ = [
    "CONDENSED_PAIRS",
    "INTERRUPTED_MARK",
    "OUTPUT_LIMIT_MARK",
    "SCHEMA_VERSION",
    "Attachment",
    "Conversation",
    "Message",
    "MessageList",
    "MessageMetadata",
    "Part",
    "PlainMessage",
    "Role",
    "SystemNotification",
    "TextContent",
    "ThinkingContent",
    "ToolRequest",
    "ToolResponse",
    "build_message",
    "new_message_id",
    "part_from_dict",
    "part_to_dict",
    "plain_message",
    "plain_part",
    "plain_parts",
    "repair",
    "repair_checked",
    "repair_prefix",
    "repair_scanned",
    "answered_requests",
]


class MessageList(list[Message]):
    """A conversation's list of messages, counting the changes that are not appends.

    A plain ``list`` (every read and append is the list's own, in C) whose other changes —
    an item or slice set or deleted, an insert, ``pop``, ``remove``, ``clear``, ``sort``,
    ``reverse``, ``*=`` — each add one to :attr:`rewrites`. So a reader that kept the length
    it read and the count knows in O(1) whether the list still starts with what it read
    (:meth:`Conversation.agent_messages`): appends only add at the end.
    """

    rewrites = 0
    """Changes so far that were not appends (the instance's own once there is one)."""

    def _rewritten(self) -> None:
        self.rewrites += 1

    def __setitem__(self, index: Any, value: Any) -> None:
        self._rewritten()
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        self._rewritten()
        super().__delitem__(index)

    def __imul__(self, count: SupportsIndex) -> Self:
        self._rewritten()
        return super().__imul__(count)

    def __init__(self, *items: Any) -> None:  # again on a made list: a change, too
        self._rewritten()
        super().__init__(*items)

    def insert(self, index: Any, value: Message) -> None:  # noqa: D102 - the list's own
        self._rewritten()
        super().insert(index, value)

    def pop(self, index: Any = -1) -> Message:  # noqa: D102
        self._rewritten()
        return super().pop(index)

    def remove(self, value: Message) -> None:  # noqa: D102
        self._rewritten()
        super().remove(value)

    def clear(self) -> None:  # noqa: D102
        self._rewritten()
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:  # noqa: D102
        self._rewritten()
        super().sort(*args, **kwargs)

    def reverse(self) -> None:  # noqa: D102
        self._rewritten()
        super().reverse()


@mutable_record  # compared, printed nowhere (a test)
class Conversation:
    """An ordered list of messages: the full history, visible or not.

    Nothing is ever deleted from it; compaction flips flags and appends. ``messages`` is
    always a :class:`MessageList`: a plain list given (to the constructor, or assigned) is
    copied into one, so a change made afterwards to the list given is not the
    conversation's — change ``conversation.messages`` itself. A :class:`MessageList` given
    is taken as it is, not copied: a builder of a whole new history (a compaction's layout)
    makes one, so replacing a 100k-message history costs no extra pass over it.
    """

    messages: list[Message] = field(default_factory=MessageList)
    _agent_memo: tuple[MessageList, int, int, list[Message]] | None = field(
        default=None, init=False, repr=False, compare=False)
    """(the list :meth:`agent_messages` last read, its ``rewrites`` and length then, its
    result): while the list is the same and not rewritten, only the messages appended since
    are filtered."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "messages" and type(value) is not MessageList:
            value = MessageList(value)
        object.__setattr__(self, name, value)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    def append(self, message: Message) -> None:
        """Append one message."""
        self.messages.append(message)

    def snapshot(self) -> Conversation:
        """A conversation of the same messages in a list of its own (one copy, in C).

        What an event carries (``HistoryReplaced``): later changes to this conversation are
        not the snapshot's.
        """
        return Conversation(MessageList(self.messages))

    def user_view(self) -> list[Message]:
        """The transcript: every ``user_visible`` message, in order, unchanged."""
        return [m for m in self.messages if m.metadata.user_visible]

    def agent_messages(self) -> list[Message]:
        """The ``agent_visible`` messages without notifications, unrepaired and unmerged.

        The model's reasoning never enters its later requests as text: a thinking part is
        kept only when it carries a provider signature (Anthropic requires signed thinking
        blocks back with tool use; docs/architecture.md §2). Token counting uses this list
        (counts are cached per stored message); use :meth:`agent_view` for what is sent.
        """
        messages = self.messages
        if type(messages) is not MessageList:  # set around __setattr__: not memoised
            return self._agent_messages(messages)
        memo = self._agent_memo
        if memo is not None and memo[0] is messages and memo[1] == messages.rewrites:
            seen, out = memo[2], memo[3]  # the same list, appended to at most: O(1)
            if seen == len(messages):
                return list(out)
            out = [*out, *self._agent_messages(messages[seen:])]
        else:
            out = self._agent_messages(messages)
        self._agent_memo = (messages, messages.rewrites, len(messages), out)
        return list(out)

    @staticmethod
    def _agent_messages(messages: list[Message]) -> list[Message]:
        out = []
        for m in messages:
            if not m.metadata.agent_visible:
                continue
            if len(m.content) == 1 and type(m.content[0]) not in _NOT_SENT_KINDS:  # most
                out.append(m)  # messages: one part, kept as it is (the test below, directly)
                continue
            kinds = tuple(map(type, m.content))  # 2× faster than any(isinstance)
            if SystemNotification in kinds or ThinkingContent in kinds:
                parts = tuple(p for p in m.content if not isinstance(p, SystemNotification)
                              and not (isinstance(p, ThinkingContent) and not p.signature))
                if not parts:
                    continue
                if len(parts) != len(m.content):
                    m = replace(m, content=parts)
            out.append(m)
        return out

    def agent_view(self, *, for_sending: bool = True) -> list[Message]:
        """What the model sees: agent-visible messages, repaired.

        Repairs (goose: ``fix_conversation``): drop tool requests without a later response and
        responses without an earlier request, drop messages left empty, merge consecutive
        same-role messages, and — when ``for_sending`` — drop trailing assistant messages
        and put a first user message saying the conversation starts mid-way before a leading
        assistant one (``MID_CONVERSATION_TEXT``), so the list starts and ends with a user
        message and an imported transcript that starts with the assistant's reply is sent. An
        answer the user cut off (Ctrl-C mid-stream, ``metadata.cancelled``) ends with
        :data:`INTERRUPTED_MARK`, one an error cut off with :data:`STOPPED_BY_ERROR_MARK`, one
        the provider stopped at its output limit with :data:`OUTPUT_LIMIT_MARK`, one goosectx
        exited during with :data:`EXITED_MARK`, so the model knows it was not finished; the
        stored text stays as streamed.

        Returns:
            New message values, oldest first; merged messages keep the first one's id.
        """
        return repair([_mark_interrupted(m) for m in self.agent_messages()],
                      for_sending=for_sending)

    def to_list(self) -> list[dict[str, Any]]:
        """JSON form of every message."""
        return [m.to_dict() for m in self.messages]

    @classmethod
    def from_list(cls, items: Iterable[dict[str, Any]]) -> Conversation:
        """Inverse of :meth:`to_list`."""
        return cls([Message.from_dict(d) for d in items])


_NOT_SENT_KINDS = frozenset({SystemNotification, ThinkingContent})
"""Part types :meth:`Conversation.agent_messages` looks at (dropped, or kept when signed)."""
INTERRUPTED_MARK = "[interrupted by the user]"
"""Ends an assistant answer cut off by Ctrl-C, in the agent view only."""
STOPPED_BY_ERROR_MARK = "[cut off: the reply stopped on an error]"
"""Ends an assistant answer an error cut off (``metadata.stopped_by_error``), likewise."""
OUTPUT_LIMIT_MARK = "[cut off: the reply reached the output limit]"
"""Ends an assistant answer the provider stopped at its output limit
(``metadata.cut_at_output_limit``), likewise."""
EXITED_MARK = "[cut off: goosectx exited while this answer was being written]"
"""Ends an assistant answer goosectx exited during (``metadata.exited``: kill -9, a crash),
likewise: the text is what was saved as it streamed."""


def _mark_interrupted(message: Message) -> Message:
    meta = message.metadata
    if not ((meta.cancelled or meta.cut_at_output_limit) and message.role == "assistant"
            and message.text):
        return message
    if not meta.cancelled:
        mark = OUTPUT_LIMIT_MARK
    else:
        mark = (EXITED_MARK if meta.exited else STOPPED_BY_ERROR_MARK if meta.stopped_by_error
                else INTERRUPTED_MARK)
    return replace(message, content=(*message.content, TextContent(mark)))


def answered_requests(messages: Sequence[Message]) -> list[tuple[int, ToolRequest, int]]:
    """(message index, request, index of its response's message) of each answered request.

    In request order. A response answers the oldest open request with its id: a model may
    reuse ids (``call_0`` in every reply), so an id alone names no one call.
    """
    waiting: dict[str, list[tuple[int, int, ToolRequest]]] = {}
    found: list[tuple[int, int, ToolRequest, int]] = []
    order = 0
    for i, m in enumerate(messages):
        for p in m.content:
            if isinstance(p, ToolRequest):
                waiting.setdefault(p.id, []).append((order, i, p))
                order += 1
            elif isinstance(p, ToolResponse) and waiting.get(p.id):
                n, at, request = waiting[p.id].pop(0)
                found.append((n, at, request, i))
    return [(at, request, answer) for _n, at, request, answer in sorted(
        found, key=lambda f: f[0])]
