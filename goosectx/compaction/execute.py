"""Execute: the summary call (ladder, fallbacks) and the write-back of one compaction.

Steps 2, 3 and 5 of the compaction pipeline (docs/architecture.md §5); step 4 is
:func:`goosectx.compaction.layout.layout`, which :func:`execute` calls. Nothing here prints or
touches the store: the session is changed in memory and events say what happened.

INTERFACE the compaction issues extend: :func:`execute` (the session, the summarisers, the
trigger and strategy, the figures the decision used) → events: inline notices, a thinking
notice while the summary is written, then one :class:`~goosectx.events.HistoryReplaced`
carrying the new conversation, tokens before/after, cost, strategy and ledger entry, then any
notice about what the layout cut. The provider's next report judges the compaction (the
manager, with :func:`goosectx.compaction.decide.ineffective`). A cancel yields a notice and
changes nothing; a failed summary call raises (or, with ``fallback_extractive`` — auto and
reactive — is replaced by the extractive summary in the same step). A compaction never makes
the model's view larger: what is added beneath a raw summary fits the summary's budget, a model
summary that would grow the view is replaced by the extractive one (auto and reactive), and a
new view not smaller than the old one (raw tokens, and the estimate against ``current``) is
not written (:class:`CompactionWouldGrow`; the summary call, if any, is still billed).
:func:`~goosectx.compaction.plan.plan` says what :func:`execute` would do without calling a model
(``--dry-run``); the head to summarise, the budgets and the refusals before any call are there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from goosectx.compaction.budget import Budget, layout_budget
from goosectx.compaction.digest_rung import extractive_digest
from goosectx.compaction.facts import merge_facts
from goosectx.compaction.layout import elided_notice, layout, new_compaction_id
from goosectx.compaction.parse import extract_json
from goosectx.compaction.plan import (
    MIN_BENEATH_TOKENS,
    extractive_budget,
    growth_refusal,
    prepare,
    standalone_extractive_text,
)
from goosectx.compaction.scan_state import ScanCache
from goosectx.compaction.summarize import (
    STOP_CHARS_PER_TOKEN,
    SummaryCancelled,
    SummaryResult,
    WindowShrank,
    cancelled_text,
    done_text,
    intro_text,
    model_summary,
    stop_chars,
    summarising_text,
)
from goosectx.compaction.summary import quoted_reply, render_markdown
from goosectx.compaction.tail import Split
from goosectx.conversation import Conversation, Message, SystemNotification
from goosectx.errors import (
    CompactionFailed,
    CompactionWouldGrow,
    MalformedModelReply,
    ProviderError,
    SummaryOverBudget,
)
from goosectx.events import (
    CompactionStrategy,
    CompactionTrigger,
    Event,
    HistoryReplaced,
    Notification,
    UsageUpdated,
)
from goosectx.providers.base import Provider
from goosectx.session import Session
from goosectx.tokens import TokenCounter
from goosectx.usage import LedgerEntry

MIN_RAW_SUMMARY_WORDS = 40
"""An unparsable summary reply shorter than this gets an extractive summary added beneath."""


def execute(
    session: Session, summarisers: Sequence[Provider], *, trigger: CompactionTrigger,
    strategy: CompactionStrategy, measure: Callable[[], tuple[int, int]],
    counter: TokenCounter, counter_for: Callable[[str | None], TokenCounter],
    max_summary_tokens: int | None, reestimate: Callable[[], int],
    instructions: str | None = None,
    fallback_extractive: bool = False, cancel: threading.Event | None = None,
    budget: Budget | None = None,
    attempt_failed: Callable[[], None] | None = None,
    budget_for: Callable[[], Budget] | None = None,
    scan_cache: ScanCache | None = None,
    shown: Callable[[], int] | None = None,
    redact: Callable[[str], str] | None = None,
) -> Iterator[Event]:
    """Summarise and rewrite the history; on a cancel, a notice and no change at all.

    Args:
        session: Changed in memory: conversation, ledger (the summary call) and state (pause).
        summarisers: Providers to try in order (``compaction_model`` first).
        trigger: What started it.
        strategy: ``llm`` or ``extractive``.
        measure: Returns (``current``, the main model's context limit), the figures the
            compaction starts from; read once, after the nothing-to-compact and cancel checks.
            A reactive compaction starts from at least the limit (the provider refused more).
        counter: The main model's counter.
        counter_for: A counter per summariser model.
        max_summary_tokens: Budget of an extractive summary (see :func:`extractive_budget`).
        reestimate: Forgets the last provider report and returns the estimate of the next
            request (called once the new history is in place).
        instructions: Extra instructions for the summary prompt.
        fallback_extractive: Use the extractive summary when the summary call fails (auto and
            reactive compaction); a failed call that reported usage is billed once.
        cancel: Set it to stop: the history is left untouched and a notice says so.
        budget: The layout budget (docs/architecture.md §5); ``None`` = the rule at
            threshold 0.8 with no prefix.
        attempt_failed: Called when the model's summary failed or was unusable and the
            extractive summary stands in (the failure breaker counts it).
        budget_for: Returns the layout budget for the main model's limit as it is now: after
            a summariser's server refused the summary request and stated a smaller window,
            the compaction is planned again with it (``None``: the plan stays).
        scan_cache: Where the facts scan of the view resumes its state (:mod:`.facts_scan`).
        shown: Returns the figure the compaction line starts from when it is not ``current``
            (reactive: the refused request's estimate at the ratio the refusal left, measured
            as the figure after is); read with ``measure``.
        redact: The redaction a model's reply gets: the summary's text gets it before it is
            kept, shown or sent (a key the summariser copied from the history).

    Raises:
        CompactionFailed: nothing to compact, or the summary request cannot be made to fit.
        CompactionWouldGrow: the new view would not be smaller (history unchanged; a
            :class:`UsageUpdated` for the summary call was yielded first).
        ProviderError: the summary call failed (without ``fallback_extractive``).
    """
    conversation = session.conversation
    if _is_set(cancel):
        yield Notification("inline", cancelled_text(trigger))
        return
    shown_before, context_limit_tokens = measure()  # the refused request's estimate, shown
    before = shown_before
    if shown is not None:
        shown_before = shown()
    if trigger == "reactive":  # the refused request held more than the limit in the provider's
        before = max(before, context_limit_tokens)  # count: the growth checks start there
    if budget is None:
        budget = layout_budget(context_limit_tokens, 0.8)
    def planned(budget: Budget, limit_tokens: int) -> tuple[Split, list[Message], int, int, int]:
        """(split, head messages, old view's raw tokens, head's, extractive budget)."""
        working, messages, old_tokens, _ = prepare(conversation, budget, counter,
                                                    trigger=trigger, before=before,
                                                    instructions=instructions,
                                                    scan_cache=scan_cache)
        head_tokens = counter.count_messages(messages)
        return (working, messages, old_tokens, head_tokens,
                extractive_budget(max_summary_tokens, limit_tokens, head_tokens))

    working, messages, old_tokens, head_tokens, extractive_tokens = planned(
        budget, context_limit_tokens)
    if _only_the_request(working):  # no history before the message it keeps: no model call
        strategy = "extractive"
    alone = _elided_alone(working)  # nor a summary: the message, elided, is all there is
    limit = context_limit_tokens if trigger == "auto" else 0
    yield Notification("inline", intro_text(trigger, before, limit))
    summary: SummaryResult | None = None
    billed: list[LedgerEntry] = []
    fallback: str | None = None
    first, resized = 0, False  # the summariser to ask; refused, stating a smaller window
    while strategy == "llm" and summary is None:
        replaced = working.hidden_count()  # stored messages, as an undo counts them
        yield Notification("thinking", summarising_text(replaced, "message"))
        try:
            summary = yield from model_summary(
                summarisers[first:], messages, instructions, counter_for, replaced=replaced,
                cancel=cancel,
                max_output_tokens=budget.summary_max_tokens, result_chars=budget.result_chars,
                billed=billed, resized=resized, digest=extractive_digest(working.scan_memo))
        except SummaryCancelled:
            yield Notification("inline", cancelled_text(trigger))
            return
        except WindowShrank as shrank:  # planned again for the window the server stated:
            first, resized = first + shrank.index, True  # the main model's view too
            yield Notification("inline", shrank.notice())
            if budget_for is not None:
                budget = budget_for()
                context_limit_tokens = budget.context_limit_tokens
                working, messages, old_tokens, head_tokens, extractive_tokens = planned(
                    budget, context_limit_tokens)
                alone = _elided_alone(working)
                if _only_the_request(working):
                    strategy = "extractive"
        except (ProviderError, CompactionFailed) as exc:
            if not fallback_extractive:
                raise
            if attempt_failed is not None:
                attempt_failed()
            yield Notification("inline", f"The summary call failed: {exc.one_line()} — "
                                         "using an extractive summary instead.")
            strategy = "extractive"
            fallback = _failure(exc)
            break
    if summary is not None and redact is not None:  # a key the summariser wrote: kept out
        summary = replace(summary, text=redact(summary.text))  # as a reply's is
    if summary is not None and summary.stopped:  # read no further than twice its budget
        over = SummaryOverBudget(CompactionWouldGrow(before, before),
                                 budget.scaled(counter.count_text(summary.text)),
                                 budget.summary_max_tokens,
                                 stopped_at=(stop_chars(budget.summary_max_tokens),
                                             STOP_CHARS_PER_TOKEN))
        if not fallback_extractive:  # refused, and billed: the provider was paid for it
            yield from _bill(session, summary.call, context_limit_tokens)
            raise over
        if attempt_failed is not None:
            attempt_failed()
        yield Notification("inline", f"The model's summary {over.change} — using an "
                                     "extractive summary instead.")
        strategy, fallback = "extractive", "the model's summary was too long"
        summary = _extractive(messages, working, budget, counter, max_summary_tokens,
                              head_tokens, summary.call)
    model_text = summary.text if summary is not None else ""  # counted if a refusal needs it
    if alone:  # the layout adds no summary (and no continuation): only the elided copy
        summary = SummaryResult("", None, None)
    elif summary is None:  # a failed call that still reported usage is billed once, with it
        summary = _extractive(messages, working, budget, counter, max_summary_tokens,
                              head_tokens, _merged(billed))
    elif not summary.parsed and (len(summary.text.split()) < MIN_RAW_SUMMARY_WORDS
                                 or isinstance(extract_json(summary.text), dict)):
        # A tiny unparsable reply (a small base model echoing template tokens) is kept as
        # it is, with an extractive summary beneath it so the model keeps the thread.
        from goosectx.compaction.extractive import extractive_summary

        words = len(summary.text.split())
        if attempt_failed is not None:
            attempt_failed()
        short = (f" and is only {words} word{'' if words == 1 else 's'}"
                 if words < MIN_RAW_SUMMARY_WORDS else "")
        yield Notification("inline", (
            f"The model's summary did not follow the requested format{short}; an extractive "
            "summary of the transcript was added beneath it."))
        # Beneath it only what the summary's budget leaves (raw tokens), never a fixed share.
        room = (int(budget.summary_max_tokens / budget.ratio)
                - counter.count_text(summary.text))
        extractive = render_markdown(extractive_summary(
            messages, max_tokens=max(MIN_BENEATH_TOKENS, min(extractive_tokens, room)),
            counter=counter, memo=working.scan_memo, answered=working.answered,
            tail=working.tail, copied=working.copied()))
        summary = replace(summary, text=f"{quoted_reply(summary.text)}\n\n{extractive}")
    elif not summary.parsed:  # a long reply in no requested format: kept, said to be quoted
        summary = replace(summary, text=quoted_reply(summary.text))
    if _is_set(cancel):
        yield Notification("inline", cancelled_text(trigger))
        return
    def with_facts(result: SummaryResult) -> SummaryResult:
        """``result`` with the facts of the head it lacks, earlier summaries' included.

        Every summary gets them (files, errors, commands, constraints, to-do items): the
        model's, and the extractive one of every fallback.
        """
        return replace(result, text=merge_facts(result.text, messages, counter=counter,
                                                max_tokens=budget.facts_tokens,
                                                memo=working.scan_memo,
                                                resent=working.whole_copies(),
                                                tail=working.tail))

    if not alone:  # any summary, the model's or the extractive one
        summary = with_facts(summary)

    cid = new_compaction_id()
    new = layout(conversation, None if alone else summary.text, working, trigger=trigger,
                 compaction_id=cid)
    growth = growth_refusal(before, old_tokens,
                     counter.count_messages(Conversation(new).agent_messages()), budget,
                     reactive=trigger == "reactive")
    if growth is not None and summary.rung is not None and not fallback_extractive:
        growth = _blame_the_summary(growth, counter.count_text(model_text), budget)
    if growth is not None and summary.rung is not None and fallback_extractive:
        # A model summary longer than asked for would grow the view: like an unusable reply,
        # the extractive summary (bounded by the summary's room) takes its place.
        if attempt_failed is not None:
            attempt_failed()
        yield Notification("inline", (
            f"The model's summary would {growth.change} — using an extractive summary "
            "instead."))
        strategy, fallback = "extractive", f"the model's summary would {growth.effect}"
        summary = with_facts(_extractive(messages, working, budget, counter,
                                         max_summary_tokens, head_tokens, summary.call))
        new = layout(conversation, summary.text, working, trigger=trigger, compaction_id=cid)
        growth = growth_refusal(before, old_tokens,
                         counter.count_messages(Conversation(new).agent_messages()), budget,
                         reactive=trigger == "reactive")
    if growth is not None:
        yield from _bill(session, summary.call, context_limit_tokens)  # though nothing changes
        raise growth
    conversation.messages = new  # taken as it is (the layout made a MessageList): no copy
    after = reestimate()
    cost = summary.call.usage.cost_usd if summary.call is not None else None
    notice_at = next(i for i in range(len(new) - 1, -1, -1)  # the layout's last message
                     if new[i].metadata.compaction_id == cid)
    new[notice_at] = replace(new[notice_at], content=(SystemNotification(
        "inline", done_text(trigger, shown_before, after, cost, strategy, fallback,
                           summarised=not alone, estimated=summary.call is not None
                           and summary.call.usage.estimated)),))
    if summary.call is not None:
        session.ledger.entries.append(summary.call)
    state = session.state
    if trigger in ("manual", "reactive"):  # auto does not run while paused; a compaction
        state.auto_compaction_paused = state.paused_by_undo = False  # made lifts the pause
        state.pause_reason = ""
        # (a reactive one is judged by the next report again, and may pause it again)
    yield HistoryReplaced(conversation.snapshot(), trigger, shown_before, after, cost, strategy,
                          summary.call, state.auto_compaction_paused, summary.rung)
    elided = elided_notice(new, cid)
    if elided is not None:
        yield Notification("inline", elided)


def _failure(exc: ProviderError | CompactionFailed) -> str:
    """Why the model's summary was not used, as the transcript's compaction line says it.

    A request that did not fit (no rung fits by estimate, or the provider refused each one as
    too long) is no reply at all; an empty reply or a tool call is an unusable one.
    """
    if isinstance(exc, MalformedModelReply):
        return "the model's reply was unusable"
    if isinstance(exc, CompactionFailed):
        return "the summary request did not fit the summariser's context window"
    return "the summary call failed"


def _bill(session: Session, call: LedgerEntry | None, context_limit_tokens: int,
          ) -> Iterator[Event]:
    """Bill a refused compaction's summary call (the recorder stores it); none: nothing."""
    if call is not None:
        session.ledger.entries.append(call)
        yield UsageUpdated(call, session.ledger.current_tokens, session.ledger.accumulated(),
                           context_limit_tokens, session.ledger.current_is_estimate,
                           session.ledger.unreported())


def _extractive(messages: list[Message], working: Split, budget: Budget, counter: TokenCounter,
                max_summary_tokens: int | None, head_tokens: int,
                call: LedgerEntry | None) -> SummaryResult:
    """The extractive summary that stands alone, billed with ``call`` (a failed model's)."""
    return SummaryResult(standalone_extractive_text(messages, working, budget, counter,
                                                    max_summary_tokens, head_tokens), call, None)


def _blame_the_summary(growth: CompactionWouldGrow, model_raw: int,
                       budget: Budget) -> CompactionWouldGrow:
    """``growth``, or :class:`SummaryOverBudget` when the model's summary is its cause.

    The cause is the summary when it is far over the budget it was given (``model_raw``: its
    raw tokens); a view too small to shrink was refused before any call (:func:`prepare`).
    """
    if model_raw <= budget.summary_max_tokens / budget.ratio * _FAR_OVER_BUDGET:
        return growth
    return SummaryOverBudget(growth, budget.scaled(model_raw), budget.summary_max_tokens)


_FAR_OVER_BUDGET = 1.5
"""A model summary more than this many times its budget is "far over" it."""


def _only_the_request(working: Split) -> bool:
    """True when the head is only the original of the request the layout keeps a copy of.

    A first message larger than the window: nothing before it to summarise.
    """
    kept = working.request
    return kept is not None and all(m.id == kept.metadata.extra.get("copy_of")
                                    for m in working.head)


def _elided_alone(working: Split) -> bool:
    """True when the head is only the original of a request whose copy's middle is elided.

    A first message larger than the window is sent with its middle elided and no summary (a
    summary of it would only say it again); a small one is left as it is (compacting it
    would not shrink the context).
    """
    kept = working.request
    return (_only_the_request(working) and kept is not None
            and "elided_from_tokens" in kept.metadata.extra)


def _merged(entries: Sequence[LedgerEntry]) -> LedgerEntry | None:
    """The failed summary calls of one attempt as one ledger entry (``None`` for none)."""
    if not entries:
        return None
    total = entries[0].usage
    for entry in entries[1:]:
        total = total + entry.usage
    return replace(entries[0], usage=total)


def _is_set(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()
