"""The working set: which agent-visible messages a compaction keeps and which it summarises.

Part of step 4 of the compaction pipeline (docs/architecture.md §5). :func:`split` cuts the
agent view into a HEAD (summarised, then hidden from the model) and what the model keeps: a
verbatim TAIL of the newest messages (cut only before a user request or between complete tool
pairs), the turn in progress (whole when it fits, else its request and its newest ≥ 3 tool
pairs), and earlier user messages re-sent verbatim (chosen by :mod:`.resend`). Budgets come from
:class:`goosectx.compaction.budget.Budget`; every size is a calibrated estimate (``measure``).
Pure functions: nothing here changes a session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field
from itertools import compress
from typing import TYPE_CHECKING

from goosectx.compaction.actions import UNDO_NOTE_START
from goosectx.compaction.elision import elided_copy
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.resend import MIN_CUT_USER_TOKENS, resend, stubbed_copy
from goosectx.compaction.todos import stopped
from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.plain_record import mutable_record

if TYPE_CHECKING:  # types only: a dry run never imports the events
    from goosectx.events import CompactionTrigger

MIN_TURN_PAIRS = 3
"""A turn too big for the tail still keeps at least this many of its newest tool pairs."""

OLDER_KEEP_TOKENS = 500
"""An older kept message cut to make room keeps about this much while that is enough (about the
2,000 characters of head and tail lines a tool result keeps in the summary request)."""
MIN_KEEP_TOKENS = 64
"""No kept message is cut below about this many tokens."""

Measure = Callable[[Message], int]
"""The calibrated token estimate of one message (per-message overhead included)."""


@mutable_record  # compared, printed nowhere (a test)
class Split:
    """A compaction's working set.

    Attributes:
        head: Agent-visible originals to summarise, oldest first (they become agent-invisible).
        tail: Originals the model keeps seeing, oldest first (never copied).
        resent: Agent-only copies of earlier user messages, chronological.
        request: Agent-only copy of the newest request placed after the continuation (goose's
            layout, or a turn too big for the tail), or ``None``.
        replaced: Tail originals the model gets as an elided copy instead: id → the copy.
        elided_tokens: Size of the largest message elided to fit, or 0.
        answered: The newest request was answered (no pending tool call after the answer).
        facts_tokens: Room reserved beside the summary's ``max_tokens`` for the facts merged
            from the head (calibrated tokens; set by the layout).
        notes: Agent-only copies of the head's notes the model has not read yet (an undo
            note after the head's last assistant message), placed after the continuation.
        head_view: ``repair(head, for_sending=False)`` when the layout made it already, so
            the compaction does not repair a long head twice.
        scan_memo: The facts scan of the whole view the layout made, for the compaction's
            scans of the head (:mod:`goosectx.compaction.memo`).
    """

    head: list[Message]
    tail: list[Message]
    resent: list[Message] = field(default_factory=list)
    request: Message | None = None
    replaced: dict[str, Message] = field(default_factory=dict)
    elided_tokens: int = 0
    answered: bool = False
    facts_tokens: int = 0
    notes: list[Message] = field(default_factory=list)
    head_view: list[Message] | None = None
    scan_memo: ScanMemo | None = None

    def copied(self) -> frozenset[str]:
        """Ids of the head messages the model keeps a copy of after the summary, whole or cut.

        The re-sent user messages and the request's copy (verbatim or elided): what the summary
        need not quote again (:func:`~goosectx.compaction.extractive.extractive_summary`).
        """
        return frozenset(str(m.metadata.extra["copy_of"]) for m in self._copies()
                         if "copy_of" in m.metadata.extra)

    def _copies(self) -> list[Message]:
        return [*self.resent, *([self.request] if self.request is not None else [])]

    def hidden_count(self) -> int:
        """Messages the compaction hides: the head and the tail originals given as elided copies.

        The one count its spinner ("Summarising N messages…"), the dry run ("the summary would
        replace N") and an undo of it ("the model sees the N messages it had replaced again")
        give: stored messages, not the repaired view the summary request is made from.
        """
        return len(self.head) + len(self.replaced)

    def whole_copies(self) -> frozenset[str]:
        """Ids of the head messages the model gets whole copies of (re-sent, not elided)."""
        return frozenset(str(m.metadata.extra["copy_of"]) for m in self._copies()
                         if "copy_of" in m.metadata.extra
                         and "elided_from_tokens" not in m.metadata.extra)


def is_answered(messages: Sequence[Message]) -> bool:
    """True when the newest agent-visible message is an assistant answer without a tool call.

    User-role messages after it that are no request — a ``!command``'s record, an undo note,
    harness text (``metadata.extra["source_kind"]``) — leave it answered.
    """
    at = len(messages) - 1
    while (at >= 0 and messages[at].role == "user" and not messages[at].tool_responses
           and messages[at].metadata.extra.get("source_kind") in ("command", "harness")):
        at -= 1
    if at >= 1 and stopped(messages[at - 1], messages[at]):  # a trailing ``TaskStop``: no work
        if messages[at - 1].text.strip():
            return True  # the answer that made it
        at -= 2  # the answer before it
    return at >= 0 and messages[at].role == "assistant" and not messages[at].tool_requests


def unread_notes(head: Sequence[Message]) -> list[Message]:
    """Agent-only copies of the undo notes at the end of ``head`` the model has not read.

    A ``/undo`` adds a note for the model (:func:`goosectx.file_undo.model_note`); one after
    the head's last assistant message was never answered — summarised, the model would not
    learn that the edits are gone — so it is kept, like the next message it goes with.
    """
    out: list[Message] = []
    for m in reversed(head):
        if m.role == "assistant":
            break
        if (m.metadata.extra.get("source_kind") == "command"
                and m.text.startswith(UNDO_NOTE_START)):
            out.append(Message(m.role, m.content, MessageMetadata.agent_only()).with_metadata(
                extra={**m.metadata.extra, "copy_of": m.id}))
    out.reverse()
    return out


def pair_boundaries(messages: Sequence[Message], requests: Sequence[bool] | None = None,
                    paired: bool = False, clean: int = 0) -> list[int]:
    """Indices where a tail may start, ascending.

    A user request, or an assistant message with no tool call before it still unanswered
    (between complete tool pairs). ``requests``: each message's ``is_user_request``, when the
    caller has them. ``paired``: every tool call is answered (``repair`` changes nothing).
    ``clean``: leading messages that pass the repair's checks (``repair_scanned``): each call
    answered by the next message, every request or assistant message there is a start.
    """
    if requests is None:
        requests = [m.is_user_request for m in messages]
    out = [i for i in range(clean) if requests[i] or messages[i].role == "assistant"]
    open_calls: set[str] = set()
    rest = messages[clean:-1]  # the last message's calls close no later start
    answered = None if paired or not any(  # orphans never close
        isinstance(p, ToolRequest) for m in rest for p in m.content) else {
        p.id for m in messages for p in m.content if isinstance(p, ToolResponse)}
    for i in range(clean, len(messages)):
        m = messages[i]
        if not open_calls and (requests[i] or m.role == "assistant"):
            out.append(i)
        content = m.content
        if len(content) == 1 and type(content[0]) is TextContent:  # most messages: no tool part
            continue
        for p in content:  # a message's calls open before its responses close
            if isinstance(p, ToolRequest) and (answered is None or p.id in answered):
                open_calls.add(p.id)
        for p in content:
            if isinstance(p, ToolResponse):
                open_calls.discard(p.id)
    return out


def split(
    messages: Sequence[Message], *, measure: Measure, trigger: CompactionTrigger,
    tail_tokens: int, user_tokens: int, room_tokens: int, ceiling_room_tokens: int,
    sizes: Sequence[int] | None = None, paired: bool = False, head_min_tokens: int = 0,
    clean: int = 0,
) -> Split:
    """Cut the agent view (``Conversation.agent_messages()``) into head and working set.

    Args:
        messages: The agent-visible messages, oldest first.
        measure: Calibrated estimate of one message.
        trigger: What started the compaction (``manual`` re-sends no request copy in goose's
            layout).
        tail_tokens: ``keep_recent_ratio`` × limit; 0 gives goose's layout (no tail).
        user_tokens: Budget of re-sent earlier user messages (``keep_user_tokens``).
        room_tokens: What the target leaves for the kept messages (target − prefix − summary
            reserve − continuation).
        ceiling_room_tokens: The same under the hard ceiling; the turn's floor (its request
            and newest ≥ 3 pairs) is elided to fit this.
        sizes: ``measure`` of each of ``messages``, in order, when the caller has them.
        paired: Every tool call in ``messages`` is answered (``repair`` changes nothing).
        clean: Leading messages that pass the repair's checks (:func:`pair_boundaries`).
        head_min_tokens: The tail grows into earlier turns only while the head keeps this
            much (the summary's budget; a smaller head is summarised whole, by ``plan_split``).

    Returns:
        The :class:`Split`; head ∪ tail (∪ the request's original) = ``messages``.
    """
    msgs = list(messages)
    answered = is_answered(msgs)
    sizes = [measure(m) for m in msgs] if sizes is None else list(sizes)
    # once: each is a property over the parts (an assistant message is none, cheaply)
    requests = [m.role == "user" and m.is_user_request for m in msgs]
    newest = next((i for i in range(len(requests) - 1, -1, -1) if requests[i]), None)
    if newest is None:  # (the last request: looked for from the end)
        return Split(msgs, [], answered=answered)
    if tail_tokens <= 0:  # goose's layout (or a head too small: all summarised), no tail
        out = Split(msgs, [], answered=answered)
        if trigger == "manual":  # the newest request (answered) is the summary's
            out.resent = resend(msgs[:newest], measure, min(user_tokens, room_tokens))
            return out
        out.request = stubbed_copy(msgs[newest])
        _fit_floor(out, [sizes[newest]], measure, ceiling_room_tokens)
        # The re-sent requests get what the copy leaves (all of it counted, as below).
        copy_tokens = measure(out.request)
        space = room_tokens if copy_tokens <= room_tokens else ceiling_room_tokens
        out.resent = resend(msgs[:newest], measure,
                            min(user_tokens, max(0, space - copy_tokens)))
        return out
    limit = min(tail_tokens, room_tokens)
    starts = pair_boundaries(msgs, requests, paired, clean)
    if sum(sizes[newest:]) <= limit:
        earlier_users = sum(compress(sizes[:newest], requests[:newest]))
        extend_to = max(sum(sizes[newest:]), limit - min(user_tokens, earlier_users))
        # Earlier turns while they fit, then the newest units (answer, pairs) of the one that
        # does not; its request is re-sent with the others (§4.5(1)).
        total = sum(sizes)
        start, kept = newest, sum(sizes[newest:])
        for s in reversed([s for s in starts if s < newest]):
            kept += sum(sizes[s:start])
            if kept > extend_to or total - kept < head_min_tokens:
                break
            start = s
        out = Split(msgs[:start], msgs[start:], answered=answered)
        users_room = min(user_tokens, max(0, room_tokens - sum(sizes[start:])))
        out.resent = resend(msgs[:start], measure, users_room)
        return out
    # A turn too big for the tail: the earlier user messages get their room first and the
    # turn's older tool output gives way (DESIGN §4.5: the user's requests are kept, the tail
    # shrinks first), never the other way round.
    if answered and trigger == "manual":  # a finished turn too big for the tail: its newest
        resent = resend(msgs[:newest + 1], measure, min(user_tokens, room_tokens))
        left = max(0, limit - sum(measure(m) for m in resent))
        start, kept = len(msgs), 0  # units that fit stay (no floor; the request is re-sent)
        for s in reversed([s for s in starts if s > newest]):
            if kept + sum(sizes[s:start]) > left:
                break
            start, kept = s, kept + sum(sizes[s:start])
        out = Split(msgs[:start], msgs[start:], answered=answered)
        out.resent = resent
        return out
    # The turn in progress does not fit: its request (copied) and its newest pairs stay.
    # When the fixed part, the summary's room and the request alone leave nothing under the
    # target, only the ceiling applies (§4.5(2)): the earlier requests (the task first) are
    # chosen within it, not dropped because the target has no room for them.
    users_space = room_tokens if sizes[newest] <= room_tokens else ceiling_room_tokens
    resent = resend(msgs[:newest], measure, min(user_tokens, users_space))
    users = sum(measure(m) for m in resent)
    limit = max(0, limit - users)
    unit_starts = [s for s in starts if s > newest]
    start = len(msgs)
    pairs = 0  # complete tool pairs kept so far (a unit of plain text counts none)
    answered_ids = {p.id for m in msgs for p in m.tool_responses}
    for s in reversed(unit_starts):
        if pairs >= MIN_TURN_PAIRS and sizes[newest] + sum(sizes[s:]) > limit:
            break
        unit = msgs[s:start]
        # An imported observation (tool output carried as user text, e.g. SWE-agent) answers
        # its unit's action the way a tool response answers a call: the unit counts as a pair.
        pairs += (sum(r.id in answered_ids for m in unit for r in m.tool_requests)
                  or int(any(m.metadata.extra.get("source_kind") == "observation"
                             for m in unit)))
        start = s
    out = Split(msgs[:start], msgs[start:], request=stubbed_copy(msgs[newest]),
                answered=answered)
    floor = [sizes[newest], *sizes[start:]]
    # Under the target when the turn's floor fits it, else only under the ceiling (§4.5);
    # either way the turn's older tool output is cut before a user message is left out.
    # The request and the newest message are not cut for them, only the older ones — unless
    # they are cut anyway to fit the space: then a little more of them leaves the earlier
    # requests (the task first) their room, instead of the task giving way to a few lines of
    # a tool output already cut to its beginning and end.
    space = room_tokens if sum(floor) <= room_tokens else ceiling_room_tokens
    # What the floor comes to with every older message cut as far as it goes: one already
    # smaller than a cut's floor stays whole (counting the cut's floor for it said the request
    # had to be cut when the floor fitted the target uncut, and cut the request for the
    # re-sent ones, though §4.5(1) keeps it).
    least = (sum(floor[:1] + floor[1:][-1:])
             + sum(min(size, MIN_KEEP_TOKENS + MIN_CUT_USER_TOKENS) for size in floor[1:-1]))
    _fit_floor(out, floor, measure,
               space - users if least > space else min(space, max(space - users, least)))
    left = max(0, space - sum(floor))
    out.resent = (resent if users <= left
                  else resend(msgs[:newest], measure, min(user_tokens, left)))
    return out


def _fit_floor(out: Split, sizes: list[int], measure: Measure, room: int) -> None:
    """Cut kept messages (as copies, in the middle) until the kept part fits ``room``.

    The oldest are cut first: the tail's messages before its newest, oldest first — each only
    as far as needed, first not below :data:`OLDER_KEEP_TOKENS`, then not below
    :data:`MIN_KEEP_TOKENS` — then the newest message (the tool result the model is working
    on), and the request copy (the user's task, DESIGN §4.5.1) only when it alone is over what
    the others cut to their floor leave. A cut is remade from the original, never a cut of a
    cut; one whose estimate comes out over its room is remade shorter in proportion.
    """
    kept: list[Message] = ([out.request] if out.request is not None else []) + out.tail
    full = list(sizes)
    first = 1 if out.request is not None else 0
    older = list(range(first, len(kept) - 1))
    steps = [(i, OLDER_KEEP_TOKENS) for i in older] + [(i, MIN_KEEP_TOKENS) for i in older]
    steps += [(len(kept) - 1, MIN_KEEP_TOKENS)] if len(kept) > first else []
    for group in (steps, [(0, MIN_KEEP_TOKENS)] if first else []):  # the request last
        for _ in range(3):  # again when a cut's estimate came out above what it was cut to
            for i, floor in group:
                total = sum(sizes)
                if total <= room:
                    return
                allow = max(floor, room - (total - sizes[i]))
                if allow >= sizes[i]:
                    continue
                original = kept[i]
                copy = elided_copy(original, allow, full[i])
                if (size := measure(copy)) > allow > floor:  # over: remade shorter, in proportion
                    copy = elided_copy(original, max(floor, allow * allow // size), full[i])
                    size = measure(copy)
                out.elided_tokens = max(out.elided_tokens, full[i])
                if out.request is not None and i == 0:
                    out.request = copy.with_metadata(extra={
                        **copy.metadata.extra,
                        "copy_of": original.metadata.extra.get("copy_of", original.id)})
                else:
                    out.replaced[original.id] = copy
                sizes[i] = size
