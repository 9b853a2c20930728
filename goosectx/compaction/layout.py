"""Layout: what the model keeps after a compaction or ``/clear``.

Step 4 of the compaction pipeline (docs/architecture.md §5). Old messages are never edited or
dropped. After a compaction the model sees: the stable prefix (system prompt, tools —
unchanged) → the summary of the HEAD (user, agent-only) → earlier user messages re-sent
verbatim (agent-only copies, chronological) → the continuation (assistant, agent-only) → the
TAIL, the newest messages verbatim (their originals stay agent-visible, not copied). The
head's messages get ``agent_visible=False`` and ``hidden_by`` (the compaction id, for an
undo); user visibility never changes. The new messages
are inserted just before the tail, so the list order is the order the model reads.
:mod:`goosectx.compaction.tail` chooses the head and the tail.

The view is laid out within the one budget rule (:mod:`goosectx.compaction.budget`); the tail
gives way first.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from goosectx.compaction.budget import Budget
from goosectx.compaction.facts_scan import facts_reserve_tokens, keep_scan, resume_scan
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.prompts import CONTINUATION_TEXTS, RESENT_HEADING_KIND, ContinuationKind
from goosectx.compaction.tail import MIN_TURN_PAIRS, Split, split, unread_notes
from goosectx.conversation import (
    Conversation,
    Message,
    MessageList,
    MessageMetadata,
    build_message,
    repair_prefix,
    repair_scanned,
)
from goosectx.tokens import TokenCounter

if TYPE_CHECKING:  # types only: a dry run never imports the events
    from goosectx.compaction.scan_state import ScanCache
    from goosectx.events import CompactionTrigger


def new_compaction_id() -> str:
    """A fresh compaction id (``cmp_`` + 16 hex digits)."""
    return "cmp_" + uuid.uuid4().hex[:16]


def continuation_kind(trigger: CompactionTrigger, agent_messages: Sequence[Message], *,
                      answered: bool = False) -> ContinuationKind:
    """Which continuation text follows the summary.

    ``answered`` when the newest request was already answered (manual and offline
    compaction); ``manual`` for other manual compaction; ``tool_loop`` when the model was mid
    tool loop (the newest agent-visible message carries tool results); else ``conversation``.
    """
    if answered:
        return "answered"
    if trigger == "manual":
        return "manual"
    if agent_messages and agent_messages[-1].tool_responses:
        return "tool_loop"
    return "conversation"


def hide_from_agent(messages: Sequence[Message]) -> MessageList:
    """Every message with ``agent_visible=False``; user visibility and content unchanged.

    A :class:`MessageList`, as a conversation holds it (assigned, it is not copied again).
    """
    return MessageList(m.with_metadata(agent_visible=False) if m.metadata.agent_visible else m
                       for m in messages)


def plan_split(conversation: Conversation, budget: Budget, counter: TokenCounter, *,
               trigger: CompactionTrigger, scan_cache: ScanCache | None = None) -> Split:
    """Choose head and working set for ``conversation`` under ``budget``.

    The summary's room is its ``max_tokens`` plus what the facts merged into it can take
    (:func:`facts_reserve_tokens` of the whole agent view — a bound for any head, found in one
    pass; recorded in ``Split.facts_tokens``), so a summary with its facts cannot push the
    request past the target. When the head would be smaller than the summary's budget (a
    small conversation compacted by hand, or estimates far below the provider's count —
    summarising it would save nothing) no tail is kept: everything is summarised, but the
    requests before the newest are still re-sent within ``keep_user_tokens`` (DESIGN
    §4.5(1)): by hand the newest is summarised with the rest (a summary of three
    short turns that hid every user message, the task too, saved 2 %; such a view is now
    refused as would grow); an automatic compaction also keeps the turn in progress's floor
    (request + newest 3 pairs; in a small window a long turn's tool output fills the view:
    without the re-sent requests the task went at the first compaction of the next turn). A
    reactive one re-sends none (goose's layout: the provider refused more than the window).
    ``scan_cache``: where the facts scan of the view resumes and keeps its state
    (:mod:`~goosectx.compaction.facts_scan`).
    """
    agent = conversation.agent_messages()
    continuation = counter.count_cached_text(CONTINUATION_TEXTS["tool_loop"]) + 8

    def measure(m: Message) -> int:
        # The re-sent requests' heading is made afresh by every plan: its count is kept between
        # processes, so a counted dry run loads no encoding for it (0.15 s at start-up).
        heading = m.metadata.extra.get("source_kind") == RESENT_HEADING_KIND
        return budget.scaled(counter.count_message(m, kept=heading))

    memo = ScanMemo(conversation.messages)  # the later scans of the head look parts up
    repaired, checked = repair_scanned(agent, for_sending=False)
    paired = checked == len(agent)  # the view needs no repair: every tool call is answered
    memo.keep_facts_at = _head_ends(repaired, measure, budget.tail_tokens)
    if scan_cache is not None:  # a scan state kept by an earlier process (``scan_cache``)
        resume_scan(memo, repaired, scan_cache, agent, checked)
    reserve = facts_reserve_tokens(repaired, budget, counter, memo)
    if scan_cache is not None:
        keep_scan(memo, repaired, scan_cache, agent, checked)
    fixed = (budget.prefix_tokens + budget.summary_max_tokens + reserve
             + budget.scaled(continuation))
    room = max(0, budget.target_tokens - fixed)
    ceiling_room = max(64, budget.ceiling_tokens - fixed)

    raw = counter.message_counts(agent)  # measure(m) of each, in one pass
    sizes = raw if budget.ratio == 1.0 else [budget.scaled(tokens) for tokens in raw]
    cut = partial(split, agent, measure=measure, trigger=trigger, room_tokens=room,
                  ceiling_room_tokens=ceiling_room, sizes=sizes, paired=paired, clean=checked)
    out = cut(tail_tokens=budget.tail_tokens, user_tokens=budget.user_tokens,
              head_min_tokens=budget.summary_max_tokens)
    # A head of the whole view (a finished turn too big for the tail) was repaired just above;
    # a shorter one (a prefix of it) without a second pass over what that repair found clean.
    view = (repaired if len(out.head) == len(agent)
            else repair_prefix(agent, len(out.head), clean=paired, anchor=checked))
    head_view: list[Message] | None = view  # the compaction's head, repaired once
    if not _reaches(view, measure, budget.summary_max_tokens):
        head_view = None
        out = cut(tail_tokens=0 if trigger == "manual" else 1,
                  user_tokens=0 if trigger == "reactive" else budget.user_tokens)
    out.facts_tokens = reserve
    out.notes = unread_notes(out.head)
    out.head_view = head_view
    out.scan_memo = memo
    return out


def _reaches(messages: Sequence[Message], measure: Callable[[Message], int],
             tokens: int) -> bool:
    """``sum(measure(m) for m in messages) >= tokens``, summed only until it gets there."""
    total = 0
    for m in messages:
        total += measure(m)
        if total >= tokens:
            return True
    return total >= tokens


MAX_KEPT_HEAD_FACTS = 64
"""At most this many places where a head may end get their facts kept by the whole scan."""


def _head_ends(view: Sequence[Message], measure: Callable[[Message], int],
               tail_tokens: int) -> frozenset[int]:
    """Where :func:`~goosectx.compaction.tail.split` may end the head of ``view``, about.

    Any message within ``tail_tokens`` of the end (the kept part may start at a request or
    between tool pairs), and the last few messages (a turn too big for the tail keeps its
    newest pairs): the whole scan keeps the facts before each (:class:`ScanMemo`), so the
    head's scan is a look-up. A head ending elsewhere is simply scanned again.
    """
    ends: list[int] = []
    suffix = 0
    for at in range(len(view) - 1, 0, -1):
        suffix += measure(view[at])
        if suffix > tail_tokens and at < len(view) - 2 * MIN_TURN_PAIRS - 2:
            break
        ends.append(at)
        if len(ends) == MAX_KEPT_HEAD_FACTS:
            break
    return frozenset(ends)


def layout(
    conversation: Conversation,
    summary_text: str | None,
    working_set: Split,
    *,
    trigger: CompactionTrigger,
    compaction_id: str,
    notice: str = "",
) -> MessageList:
    """The whole conversation after a compaction.

    Returns:
        A :class:`MessageList` (the conversation takes it as it is, no copy):
        Every old message (the head's and the elided tail originals' hidden from the model
        and marked ``hidden_by=compaction_id``, so :mod:`goosectx.compaction.undo` can show
        them again),
        with, just before the first kept tail message (else at the end): the summary (user,
        agent-only, ``is_summary``), the re-sent user messages, the continuation (assistant,
        agent-only, ``is_continuation``) and the request copy if any; no summary, re-sent
        messages or continuation when ``summary_text`` is None. Elided copies follow their
        originals. Last, a user-only notice (text ``notice``): the transcript shows the
        compaction where it happened (after the tool result of a turn it ran in), not where
        the summary sits in the model's view. New messages share ``compaction_id``.
    """
    notice_message, *block = _block(conversation.agent_messages(), summary_text, working_set,
                                    trigger=trigger, compaction_id=compaction_id, notice=notice)
    head_ids = _hidden_ids(working_set)
    first_tail = working_set.tail[0].id if working_set.tail else None
    out = MessageList()
    placed = False
    flags: dict[bool, MessageMetadata] = {}
    shared: dict[int, tuple[MessageMetadata, MessageMetadata | None]] = {}
    for m in conversation.messages:
        if not placed and m.id == first_tail:
            out.extend(block)
            placed = True
        meta = m.metadata
        if meta.agent_visible and m.id in head_ids:  # its copy's metadata: once per value
            hidden = shared.get(id(meta))
            if hidden is None or hidden[0] is not meta:
                hidden = shared[id(meta)] = (meta, _hidden_metadata(meta, compaction_id, flags))
            out.append(m.with_metadata(agent_visible=False, hidden_by=compaction_id)
                       if hidden[1] is None else
                       build_message(m.role, m.content, hidden[1], m.id, m.created))
        else:
            out.append(m)
        copy = working_set.replaced.get(m.id)
        if copy is not None:
            out.append(copy.with_metadata(compaction_id=compaction_id))
    if not placed:
        out.extend(block)
    out.append(notice_message)  # user-only: where the compaction happened, after the tool
    return out                  # result it may have followed mid-turn, as drawn live


def _hidden_metadata(meta: MessageMetadata, compaction_id: str,
                     flags: dict[bool, MessageMetadata]) -> MessageMetadata | None:
    """``meta`` with ``agent_visible=False, hidden_by=compaction_id`` if it holds only the flags.

    Such copies (most of a long head) share one value per ``user_visible`` (``flags``), else None.
    """
    if (type(meta.user_visible) is bool and meta.usage is None and meta.extra == {}
            and meta.hidden_by is None and meta.compaction_id is None
            and meta.is_summary is False and meta.is_continuation is False
            and meta.cancelled is False and meta.stopped_by_error is False
            and meta.cut_at_output_limit is False):  # the defaults
        hidden = flags.get(meta.user_visible)
        if hidden is None:
            hidden = flags[meta.user_visible] = MessageMetadata(
                meta.user_visible, False, hidden_by=compaction_id)
        return hidden
    return None


def laid_out_tokens(conversation: Conversation, summary_text: str, working_set: Split, *,
                    trigger: CompactionTrigger, counter: TokenCounter) -> int:
    """Raw tokens of the model's view after :func:`layout`, without building the conversation.

    The same figure as counting ``Conversation(layout(...)).agent_messages()``: the agent
    view's messages :func:`layout` leaves visible, plus the agent-visible messages it adds.
    """
    agent, head = conversation.agent_messages(), working_set.head
    rest = agent[len(head):] if agent[:len(head)] == head else agent  # skip a head that leads
    hidden = {m.id for m in rest}.intersection(m.id for m in head) | set(working_set.replaced)
    added = [*_block(agent, summary_text, working_set, trigger=trigger, compaction_id=""),
             *working_set.replaced.values()]
    return (counter.count_messages(m for m in rest if m.id not in hidden)
            + counter.count_messages(Conversation(added).agent_messages(), kept=True))


def _hidden_ids(working_set: Split) -> set[str]:
    """Ids of the originals a compaction hides: the head and the tail messages elided."""
    return {m.id for m in working_set.head} | set(working_set.replaced)


def _block(agent: Sequence[Message], summary_text: str | None, working_set: Split, *,
           trigger: CompactionTrigger, compaction_id: str, notice: str = "") -> list[Message]:
    """The messages a compaction inserts before the tail (see :func:`layout`).

    ``summary_text`` None (a first message larger than the window, nothing before it): no
    summary and no continuation, only the notice and the request's copy.
    """
    kind = continuation_kind(trigger, agent, answered=working_set.answered)
    agent_only = MessageMetadata.agent_only()
    block = [Message.notification(notice).with_metadata(compaction_id=compaction_id)]
    if summary_text is not None:
        block += [
            Message.user(summary_text, agent_only).with_metadata(  # its trigger: plan.prepare
                is_summary=True, compaction_id=compaction_id, extra={"trigger": trigger}),
            *(m.with_metadata(compaction_id=compaction_id) for m in working_set.resent),
            Message.assistant(CONTINUATION_TEXTS[kind], agent_only).with_metadata(
                is_continuation=True, compaction_id=compaction_id),
        ]
    block += [m.with_metadata(compaction_id=compaction_id) for m in working_set.notes]
    if working_set.request is not None:
        block.append(working_set.request.with_metadata(compaction_id=compaction_id))
    return block


def cleared_messages(conversation: Conversation, *, notice: str) -> MessageList:
    """The whole conversation after ``/clear``: everything hidden, plus a user-only notice."""
    out = hide_from_agent(conversation.messages)
    out.append(Message.notification(notice))
    return out


def elided_notice(messages: Sequence[Message], compaction_id: str) -> str | None:
    """The inline notice naming the kept messages whose middle :func:`layout` cut, or None.

    Older tool results are cut before the newest (:mod:`goosectx.compaction.tail`): the notice
    says how many older ones were cut and whether the newest was cut too or kept whole.
    """
    cut = [m for m in messages if m.metadata.compaction_id == compaction_id
           and "elided_from_tokens" in m.metadata.extra]
    if not cut:
        return None
    newest = next((m for m in reversed(messages)
                   if m.metadata.agent_visible and m.tool_responses), None)
    results = [m for m in cut if m.tool_responses and m is not newest]
    newest_tokens = next((m.metadata.extra["elided_from_tokens"] for m in cut if m is newest), 0)
    texts = [m.metadata.extra["elided_from_tokens"] for m in cut if not m.tool_responses]
    notices = []
    ask = ("Ask for the part that matters (a line range, a filtered command), or use a model "
           "with a larger window.")
    if results:
        tokens = sum(m.metadata.extra["elided_from_tokens"] for m in results)
        some = (f"{len(results)} older tool results the model keeps ({tokens:,} tokens) do "
                f"not fit the room left in the context window, so the model now sees only "
                f"the beginning and end of each" if len(results) > 1 else
                f"An older tool result the model keeps ({tokens:,} tokens) does not fit the "
                f"room left in the context window, so the model now sees only its beginning "
                f"and end")
        newest_part = (f"the newest result ({newest_tokens:,} tokens) was cut in its middle "
                       f"too" if newest_tokens else "the newest result is kept whole")
        notices.append(f"{some}; {newest_part}. {ask}")
    elif newest_tokens:
        notices.append(f"A tool result the model keeps ({newest_tokens:,} tokens) is larger "
                       f"than the room left in the context window, so the model now sees only "
                       f"its beginning and end. {ask}")
    if texts:
        notices.append(f"A message the model keeps ({max(texts):,} tokens) is larger than the "
                       f"room left in the context window, so the model now sees only its "
                       f"beginning and end. Send the part that matters in a smaller message, "
                       f"or use a model with a larger window.")
    return " ".join(notices)
