"""Repairing a list of agent-visible messages (docs/architecture.md §2, the agent view).

Drop tool requests without a response and responses without a request, drop messages left
empty, merge consecutive same-role messages, and — when sending — end with a user message and
start with one (:data:`MID_CONVERSATION_TEXT` before a leading assistant message, which goose's
``fix_conversation`` drops instead). :meth:`~goosectx.conversation.Conversation.agent_view`
is the caller; the compaction repairs the head it summarises with :func:`repair_scanned` and
:func:`repair_prefix`. Import these names from :mod:`goosectx.conversation`, which re-exports
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from goosectx.message import Message, MessageMetadata
from goosectx.parts import (
    Part,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)

MID_CONVERSATION_TEXT = (
    "[This conversation starts mid-way: its first message below is the assistant's, and what "
    "came before it is not in this session (an imported transcript can start there).]"
)
"""The first user message the agent view gets when it would start with an assistant message:
providers want a user message first, and dropping the assistant's run instead would hide it
(and the tool pairs in it) from the model."""


def repair(messages: Sequence[Message], *, for_sending: bool = True) -> list[Message]:
    """Repair a list of agent-visible messages (see :meth:`Conversation.agent_view`).

    Runs the passes until nothing changes: dropping a message can orphan the responses to its
    tool requests, which the next pass removes.
    """
    return repair_checked(messages, for_sending=for_sending)[0]


def repair_checked(messages: Sequence[Message], *, for_sending: bool = True
                   ) -> tuple[list[Message], bool]:
    """:func:`repair` of ``messages``, and whether they needed none (returned as they are).

    ``True`` lets :func:`repair_prefix` repair a prefix of them without a pass over it.
    """
    repaired, checked = repair_scanned(messages, for_sending=for_sending)
    return repaired, checked == len(messages)


def repair_scanned(messages: Sequence[Message], *, for_sending: bool = True
                   ) -> tuple[list[Message], int]:
    """:func:`repair` of ``messages``, and how many of them the passes leave as they are.

    ``len(messages)`` when they needed no repair (the list returned holds them as they are);
    else the anchor :func:`_clean_prefix` found, which :func:`repair_prefix` takes so as to
    repair a prefix of them without a second pass over it.
    """
    current = list(messages)
    clean = _clean_prefix(current, for_sending)
    if clean == len(current):
        return current, clean
    return _repair_rest(current, clean, for_sending), clean


def repair_prefix(messages: Sequence[Message], count: int, *, clean: bool,
                  anchor: int = 0) -> list[Message]:
    """``repair(messages[:count], for_sending=False)``; ``clean``: ``messages`` needed none.

    ``anchor``: when they needed some, what :func:`repair_scanned` returned for them (0 when
    not known): the messages before it pass :func:`_clean_prefix`'s checks.

    A prefix of messages that pass the checks — the checks go message by message — needs no
    repair unless it ends with an assistant message whose tool requests the cut leaves
    unanswered: only then are the passes run, and only after the last user message without
    tool results (the anchor :func:`_clean_prefix` would find after a pass over the prefix).
    A longer prefix is checked from ``anchor`` on: the messages before it stay as they are.
    """
    head = list(messages[:count])
    if count > (len(messages) if clean else anchor):
        checked = _clean_prefix(head, False, anchor)
        return head if checked == len(head) else _repair_rest(head, checked, False)
    if not (head and head[-1].role == "assistant" and any(
            isinstance(p, ToolRequest) for p in head[-1].content)):
        return head
    last_request = next((at for at in range(len(head) - 1, 0, -1) if head[at].role == "user"
                         and not any(isinstance(p, ToolResponse) for p in head[at].content)), 0)
    return _repair_rest(head, last_request, False)


def _repair_rest(current: list[Message], clean: int, for_sending: bool) -> list[Message]:
    """:func:`repair` of ``current``, whose first ``clean`` messages stay as they are."""
    kept, current = current[:clean], current[clean:]  # the passes leave ``kept`` as it is
    while True:
        fixed = _merge(_order_responses(_drop_orphans(current)))
        if for_sending:
            while fixed and fixed[-1].role == "assistant":
                fixed.pop()
            if fixed and fixed[0].role == "assistant":  # kept, after a first user message
                first = fixed[0]  # the same message each time (id and time from the reply)
                fixed.insert(0, Message("user", (TextContent(MID_CONVERSATION_TEXT),),
                                        MessageMetadata.agent_only(), f"{first.id}_start",
                                        first.created))
        if len(fixed) == len(current) and all(a is b for a, b in zip(fixed, current, strict=True)):
            return kept + fixed
        current = fixed


def _clean_prefix(messages: list[Message], for_sending: bool, start: int = 0) -> int:
    """How many leading messages :func:`repair` returns as they are: all, or up to an anchor.

    One pass, no copies. ``len(messages)`` when the passes would change nothing: no message is
    empty, thinking-only or holds a notification; roles alternate; every assistant message's
    tool requests (distinct ids) are answered, each once, by the tool responses of the very
    next message, a user one, and no other message holds a tool part; when ``for_sending``,
    the list neither starts nor ends with an assistant message. Otherwise the index of the last
    user message without tool parts before the first place that breaks this (0 if none): the
    passes give the messages before it back unchanged (no tool part pairs across it, nothing
    merges into it), so only the rest needs them.

    ``start``: an anchor an earlier pass found (the checks begin there, as they would reach
    it: a user message without tool parts that nothing was owed).
    """
    if for_sending and messages and messages[0].role == "assistant":
        return 0
    anchor = start
    previous_role = ""
    asked: set[str] = set()  # ids the previous message requested, to be answered now
    for at, m in enumerate(messages[start:] if start else messages, start):
        if m.role == previous_role or not m.content:
            return anchor
        previous_role = m.role
        content = m.content
        if len(content) == 1 and type(content[0]) is TextContent:  # most messages
            if asked:  # a user message owed tool results (before an assistant one, none are)
                return anchor
            if m.role == "user":
                anchor = at
            continue
        # The checks below, made directly for the commonest tool messages: a text and one
        # call; the one result owed.
        if (len(content) == 2 and m.role == "assistant" and type(content[0]) is TextContent
                and type(content[1]) is ToolRequest):
            asked = {content[1].id}
            continue
        if len(content) == 1 and type(content[0]) is ToolResponse and m.role == "user":
            if len(asked) != 1 or content[0].id not in asked:
                return anchor
            asked = set()
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


def matched_tool_parts(messages: Sequence[Message]) -> set[tuple[int, int]]:
    """(message index, part index) of every request and response that pair up, in order.

    A response answers the latest still-open assistant request with its id, so an id that a
    provider reuses across replies pairs each request with its own response; a request whose
    id comes again in a later reply before it is answered stays unpaired. Calls of one reply
    that share an id (stored before replies got unique ids) are answered in order.
    """
    open_at: dict[str, list[tuple[int, int]]] = {}
    matched: set[tuple[int, int]] = set()
    for i, m in enumerate(messages):
        for j, p in enumerate(m.content):
            if isinstance(p, ToolRequest) and m.role == "assistant":
                waiting = open_at.get(p.id)
                if waiting and waiting[-1][0] == i:
                    waiting.append((i, j))
                else:
                    open_at[p.id] = [(i, j)]
            elif isinstance(p, ToolResponse) and m.role == "user":
                waiting = open_at.get(p.id)
                if waiting:
                    matched.update((waiting.pop(0), (i, j)))
    return matched


_NOT_PLAIN = frozenset({ToolRequest, ToolResponse, SystemNotification, ThinkingContent})


def _drop_orphans(messages: list[Message]) -> list[Message]:
    """Drop unpaired tool parts, notifications and messages left empty or thinking-only.

    Every tool request kept has its response later in the list (so the repair loop reaches a
    fixed point, also with reused tool-call ids or a response misfiled in an assistant message).
    """
    matched = matched_tool_parts(messages)
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
