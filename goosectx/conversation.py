"""The message protocol's entry point: the conversation, its two views and the repair.

This module is the ONE place that decides what the model sees (:meth:`Conversation.agent_view`)
and what the user sees (:meth:`Conversation.user_view`). No other code filters on visibility.
Content parts live in :mod:`goosectx.parts` (the attachment part in
:mod:`goosectx.attachment`) and messages in :mod:`goosectx.message`; every name
is re-exported here, so ``from goosectx.conversation import Message`` is the usual import
(docs/architecture.md, "The message model and its two projections"). Design after goose 1.45
(``Message``, ``MessageMetadata``, ``fix_conversation``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from goosectx.attachment import Attachment
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

__all__ = [
    "CONDENSED_PAIRS",
    "INTERRUPTED_MARK",
    "SCHEMA_VERSION",
    "Attachment",
    "Conversation",
    "Message",
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
    "tool_pair_ids",
]


@dataclass(slots=True)
class Conversation:
    """An ordered list of messages: the full history, visible or not.

    Nothing is ever deleted from it; compaction flips flags and appends.
    """

    messages: list[Message] = field(default_factory=list)
    _agent_memo: tuple[list[Message], list[Message]] | None = field(
        default=None, init=False, repr=False, compare=False)
    """(the messages :meth:`agent_messages` last read, its result): while ``messages`` still
    starts with those same messages (all frozen), only the ones after them are filtered."""

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    def append(self, message: Message) -> None:
        """Append one message."""
        self.messages.append(message)

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
        memo = self._agent_memo
        if memo is not None and len(memo[0]) <= len(messages) and (
                messages[:len(memo[0])] == memo[0]):  # a C pass, identity first
            read, out = memo
            if len(read) == len(messages):
                return list(out)
            out = [*out, *self._agent_messages(messages[len(read):])]
        else:
            out = self._agent_messages(messages)
        self._agent_memo = (list(messages), out)
        return list(out)

    @staticmethod
    def _agent_messages(messages: list[Message]) -> list[Message]:
        out = []
        for m in messages:
            if not m.metadata.agent_visible:
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
        same-role messages, and — when ``for_sending`` — drop leading and trailing assistant
        messages so the list starts and ends with a user message. An answer the user cut off
        (Ctrl-C mid-stream, ``metadata.cancelled``) ends with :data:`INTERRUPTED_MARK`, so the
        model knows it was not finished; the stored text stays as streamed.

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


INTERRUPTED_MARK = "[interrupted by the user]"
"""Ends an assistant answer cut off by Ctrl-C, in the agent view only."""


def _mark_interrupted(message: Message) -> Message:
    if not (message.metadata.cancelled and message.role == "assistant" and message.text):
        return message
    return replace(message, content=(*message.content, TextContent(INTERRUPTED_MARK)))


def tool_pair_ids(messages: Sequence[Message]) -> set[str]:
    """Ids of tool requests that are followed later by a response with the same id."""
    requested: set[str] = set()
    paired: set[str] = set()
    for m in messages:
        for p in m.content:
            if isinstance(p, ToolRequest):
                requested.add(p.id)
            elif isinstance(p, ToolResponse) and p.id in requested:
                paired.add(p.id)
    return paired


def repair(messages: Sequence[Message], *, for_sending: bool = True) -> list[Message]:
    """Repair a list of agent-visible messages (see :meth:`Conversation.agent_view`).

    Runs the passes until nothing changes: dropping a leading assistant message can orphan the
    responses to its tool requests, which the next pass removes.
    """
    return repair_checked(messages, for_sending=for_sending)[0]


def repair_checked(messages: Sequence[Message], *, for_sending: bool = True
                   ) -> tuple[list[Message], bool]:
    """:func:`repair` of ``messages``, and whether they needed none (returned as they are).

    ``True`` lets :func:`repair_prefix` repair a prefix of them without a pass over it.
    """
    current = list(messages)
    clean = _clean_prefix(current, for_sending)
    if clean == len(current):
        return current, True
    return _repair_rest(current, clean, for_sending), False


def repair_prefix(messages: Sequence[Message], count: int, *, clean: bool) -> list[Message]:
    """``repair(messages[:count], for_sending=False)``; ``clean``: ``messages`` needed none.

    A prefix of messages that needed no repair needs none either — the checks of
    :func:`_clean_prefix` pass message by message — unless it ends with an assistant message
    whose tool requests the cut leaves unanswered: only then are the passes run, and only
    after the last user message without tool results (the anchor :func:`_clean_prefix` would
    find after a pass over the whole prefix).
    """
    head = list(messages[:count])
    if not clean:
        return repair(head, for_sending=False)
    if not (head and head[-1].role == "assistant" and any(
            isinstance(p, ToolRequest) for p in head[-1].content)):
        return head
    anchor = next((at for at in range(len(head) - 1, 0, -1) if head[at].role == "user"
                   and not any(isinstance(p, ToolResponse) for p in head[at].content)), 0)
    return _repair_rest(head, anchor, False)


def _repair_rest(current: list[Message], clean: int, for_sending: bool) -> list[Message]:
    """:func:`repair` of ``current``, whose first ``clean`` messages stay as they are."""
    kept, current = current[:clean], current[clean:]  # the passes leave ``kept`` as it is
    while True:
        fixed = _merge(_order_responses(_drop_orphans(current)))
        if for_sending:
            while fixed and fixed[0].role == "assistant":
                fixed.pop(0)
            while fixed and fixed[-1].role == "assistant":
                fixed.pop()
        if len(fixed) == len(current) and all(a is b for a, b in zip(fixed, current, strict=True)):
            return kept + fixed
        current = fixed


def _clean_prefix(messages: list[Message], for_sending: bool) -> int:
    """How many leading messages :func:`repair` returns as they are: all, or up to an anchor.

    One pass, no copies. ``len(messages)`` when the passes would change nothing: no message is
    empty, thinking-only or holds a notification; roles alternate; every assistant message's
    tool requests (distinct ids) are answered, each once, by the tool responses of the very
    next message, a user one, and no other message holds a tool part; when ``for_sending``,
    the list neither starts nor ends with an assistant message. Otherwise the index of the last
    user message without tool parts before the first place that breaks this (0 if none): the
    passes give the messages before it back unchanged (no tool part pairs across it, nothing
    merges into it), so only the rest needs them.
    """
    if for_sending and messages and messages[0].role == "assistant":
        return 0
    anchor = 0
    previous_role = ""
    asked: set[str] = set()  # ids the previous message requested, to be answered now
    for at, m in enumerate(messages):
        if m.role == previous_role or not m.content:
            return anchor
        previous_role = m.role
        if len(m.content) == 1 and type(m.content[0]) is TextContent:  # most messages
            if asked:  # a user message owed tool results (before an assistant one, none are)
                return anchor
            if m.role == "user":
                anchor = at
            continue
        requested: list[str] = []
        answered: list[str] = []
        thinking_only = True
        for p in m.content:
            if isinstance(p, ToolRequest):
                requested.append(p.id)
            elif isinstance(p, ToolResponse):
                answered.append(p.id)
            elif isinstance(p, SystemNotification):
                return anchor
            if not isinstance(p, ThinkingContent):
                thinking_only = False
        if thinking_only:
            return anchor
        if m.role == "assistant":
            if answered or len(set(requested)) != len(requested):
                return anchor
            asked = set(requested)
        else:
            if requested or len(answered) != len(asked) or set(answered) != asked:
                return anchor
            if not answered:
                anchor = at
            asked = set()
    if asked or (for_sending and messages and messages[-1].role == "assistant"):
        return anchor
    return len(messages)


def _matched_tool_parts(messages: list[Message]) -> set[tuple[int, int]]:
    """(message index, part index) of every request and response that pair up, in order.

    A response answers the latest still-open assistant request with its id, so an id that a
    provider reuses across replies pairs each request with its own response; a request whose
    id comes again before it is answered stays unpaired.
    """
    open_at: dict[str, tuple[int, int]] = {}
    matched: set[tuple[int, int]] = set()
    for i, m in enumerate(messages):
        for j, p in enumerate(m.content):
            if isinstance(p, ToolRequest) and m.role == "assistant":
                open_at[p.id] = (i, j)
            elif isinstance(p, ToolResponse) and m.role == "user":
                request_at = open_at.pop(p.id, None)
                if request_at is not None:
                    matched.update((request_at, (i, j)))
    return matched


_NOT_PLAIN = frozenset({ToolRequest, ToolResponse, SystemNotification, ThinkingContent})


def _drop_orphans(messages: list[Message]) -> list[Message]:
    """Drop unpaired tool parts, notifications and messages left empty or thinking-only.

    Every tool request kept has its response later in the list (so the repair loop reaches a
    fixed point, also with reused tool-call ids or a response misfiled in an assistant message).
    """
    matched = _matched_tool_parts(messages)
    out: list[Message] = []
    for i, m in enumerate(messages):
        kinds = set(map(type, m.content))
        if kinds and kinds.isdisjoint(_NOT_PLAIN):  # nothing to drop: kept as it is
            out.append(m)
            continue
        keep: list[Part] = []
        for j, p in enumerate(m.content):
            if isinstance(p, ToolRequest | ToolResponse):
                if (i, j) in matched:
                    keep.append(p)
            elif not isinstance(p, SystemNotification):
                keep.append(p)
        if not keep or all(isinstance(p, ThinkingContent) for p in keep):
            continue
        out.append(m if len(keep) == len(m.content) else replace(m, content=tuple(keep)))
    return out


CONDENSED_PAIRS = "condensed_pairs"
"""``metadata.extra`` key of a tool-pair note: the pairs it stands for (a list; see
:mod:`goosectx.compaction.toolpairs`). A merge keeps every merged message's list."""


def _merge(messages: list[Message]) -> list[Message]:
    """Merge consecutive same-role messages; the merged message keeps the first one's id.

    And its metadata, with the :data:`CONDENSED_PAIRS` of every merged message in order.
    """
    out: list[Message] = []
    for m in messages:
        if out and out[-1].role == m.role:
            prev = out[-1]
            out[-1] = replace(prev, content=prev.content + m.content)
            pairs = m.metadata.extra.get(CONDENSED_PAIRS)
            if isinstance(pairs, list) and pairs:
                extra = prev.metadata.extra
                out[-1] = out[-1].with_metadata(extra={
                    **extra, CONDENSED_PAIRS: [*extra.get(CONDENSED_PAIRS, ()), *pairs]})
        else:
            out.append(m)
    return out


def _order_responses(messages: list[Message]) -> list[Message]:
    """Put every tool response in the user message right after its request's message.

    Providers require each assistant tool call to be answered by the very next message. A
    response stored later (e.g. across interleaved hidden messages) is moved up; other parts
    stay where they were, and messages left empty are dropped.
    """
    out = list(messages)
    changed = False
    for i, m in enumerate(out):
        if m.role != "assistant" or not m.tool_requests:
            continue
        wanted = {r.id for r in m.tool_requests}
        nxt = out[i + 1] if i + 1 < len(out) else None
        if nxt is not None and wanted <= {r.id for r in nxt.tool_responses}:
            continue
        changed = True
        moved: list[Part] = []
        for j in range(i + 1, len(out)):
            later = out[j]
            take = [p for p in later.content if isinstance(p, ToolResponse) and p.id in wanted]
            if take:
                wanted -= {p.id for p in take}  # the first response per id (ids may be reused)
                out[j] = replace(later, content=tuple(p for p in later.content if p not in take))
                moved.extend(take)
        if nxt is not None and nxt.role == "user":
            out[i + 1] = replace(out[i + 1], content=tuple(moved) + out[i + 1].content)
        else:
            out.insert(i + 1, Message("user", tuple(moved), MessageMetadata.agent_only()))
    return [m for m in out if m.content] if changed else out
