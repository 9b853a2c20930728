"""The context manager: the agent loop's one entry point into context management.

CONTRACT (shared by the agent loop, the REPL and ``goosectx compact``). The manager works on
the in-memory :class:`~goosectx.session.Session`: it mutates ``session.conversation``,
``session.ledger`` and ``session.state`` and yields an event for every change, which the
session recorder mirrors into SQLite. It never prints and never touches the store.

The agent loop calls, per turn: :meth:`ContextManager.start_turn`; before every model call
:meth:`~ContextManager.before_call` (auto-compaction); after a successful call
:meth:`~ContextManager.record_call` then :meth:`~ContextManager.after_call` (tool-pair
summarisation); on ``ContextLengthExceeded`` :meth:`~ContextManager.on_context_exceeded`
and then the same step again. Design after goose 1.45's context management.

This module keeps the hooks and the compaction commands; the figures (``current``, the last
report, the counters) are :mod:`~goosectx.compaction.figures`; the pipeline is
:mod:`~goosectx.compaction.decide` (+ :mod:`~goosectx.compaction.guard`,
:mod:`~goosectx.compaction.calibration`), :mod:`~goosectx.compaction.layout` and
:mod:`~goosectx.compaction.execute` (docs/architecture.md §5). Every hook that may call a
summariser takes an optional ``cancel`` event: once set, the history is left as it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NoReturn

from goosectx.compaction import calibration
from goosectx.compaction.figures import ContextFigures, RequestContext
from goosectx.compaction.layout import cleared_messages
from goosectx.compaction.plan import CompactionPlan, plan
from goosectx.compaction.scan_state import ScanCache
from goosectx.errors import (
    CompactionFailed,
    CompactionWouldGrow,
    ContextLengthExceeded,
    ProviderError,
    SummaryOverBudget,
)
from goosectx.providers.base import Provider
from goosectx.usage import CallPurpose, LedgerEntry, Usage

if TYPE_CHECKING:  # the events are made where they are imported: a dry run makes none
    from goosectx.events import (
        CompactionStrategy,
        CompactionTrigger,
        Event,
        UsageUpdated,
    )

__all__ = ["CompactionPlan", "ContextManager"]


class ContextManager(ContextFigures):
    """Decides and runs compaction for one session.

    Args:
        session: The in-memory session (mutated).
        settings: Resolved settings (threshold, cutoff, compaction model...).
        provider: The main model, or ``None`` when no model is configured.
        summarizer: The ``compaction_model`` provider, or ``None`` to use ``provider``; on any
            provider error the main model is tried instead.
    """

    scan_cache: ScanCache | None = None
    """Where the facts scan of a compaction resumes (and a dry run keeps) its state: the
    session's store (:mod:`~goosectx.compaction.facts_scan`); ``None``: scanned whole."""
    reply_redact: Callable[[], Callable[[str], str]] | None = None
    """Gives the redaction a model's reply gets (the agent's ``reply_redact``, which adds the
    extensions' secrets): a summary's and tool-pair notes' text gets it too before it is kept,
    shown or sent; ``None``: the environment's (:func:`~goosectx.env_secrets.
    tool_output_redactor`), as for ``goosectx compact``."""

    def start_turn(self) -> None:
        """Reset per-turn counters (reactive compactions this turn)."""
        self._reactive_this_turn = 0

    def record_call(
        self, usage: Usage | None, request: RequestContext, *, model: str,
        purpose: CallPurpose = "reply",
    ) -> UsageUpdated:
        """Record a finished model call (call AFTER its reply message was appended).

        Adds a ledger entry (usage unknown → zero tokens, cost ``None``); for a reply, sets
        ``current`` to the reported input + output (or the estimate), notes what the report
        covers (the messages, and the estimate of the fixed part in the session state, stored
        with the entry), calibrates, judges a pending compaction and re-arms the guard. Returns the
        :class:`UsageUpdated` event to yield (the recorder stores the entry and the state).
        """
        from goosectx.events import UsageUpdated

        entry = LedgerEntry(usage or Usage(), model, purpose)
        ledger = self.session.ledger
        ledger.entries.append(entry)
        if purpose == "reply":
            if usage is not None and usage.total_tokens:
                self._reported_tokens = usage.input_tokens + usage.output_tokens
                self._covered_ids = {m.id for m in self.session.conversation.agent_messages()}
                self.session.state.report_fixed_tokens = self.fixed_tokens(request)
                ledger.current_tokens = self._reported_tokens
                ledger.current_is_estimate = False
                self.session.note_context_figure(ledger.current_tokens, False)
            else:
                self._set_estimate(request)
            key = self.provider.model if self.provider else model
            self.guard.on_reply(usage, model=key, estimate_tokens=self._call_estimate,
                                current_tokens=ledger.current_tokens,
                                context_limit_tokens=self.context_limit().tokens,
                                threshold_ratio=self.settings.threshold_ratio)
        return UsageUpdated(
            entry, ledger.current_tokens, ledger.accumulated(),
            self.context_limit().tokens, ledger.current_is_estimate, ledger.unreported(),
        )

    def before_call(self, request: RequestContext, *,
                    cancel: threading.Event | None = None) -> Iterator[Event]:
        """Auto-compaction check before every model call (turn start and between tool calls).

        Compacts when :func:`~goosectx.compaction.decide.decide_auto` says so (calibrated
        ``current``, growth guard, pause). A failed summary call falls back to the extractive
        summary; a cancel leaves the history untouched. Notes the raw request estimate. Paused,
        a request over the context limit itself is compacted or ends the turn (the reactive
        path's error) instead of being sent (:meth:`_fit_window`).
        """
        if _is_set(cancel):
            return
        yield from self._guard_notices()
        agent = self.session.conversation.agent_messages()
        current, estimated = self.current_tokens(request)
        self.guard.note_current(current, in_tool_loop=bool(agent and agent[-1].tool_responses))
        from goosectx.compaction.decide import decide_auto  # (a dry run loads none of decide)

        decision = decide_auto(
            enabled=(self.provider is not None and not self.manages_own_context
                     and self.settings.auto_compaction_enabled),
            paused=self.session.state.auto_compaction_paused,
            compacted_since_call=self.guard.compacted_since_call,
            last_role=agent[-1].role if agent else None, current_tokens=current,
            context_limit_tokens=self.context_limit().tokens,
            threshold_ratio=self.settings.threshold_ratio,
            growth_base_tokens=self.session.state.growth_base_tokens)
        if decision.compact:
            try:
                yield from self._compact(request, trigger="auto",
                                         strategy=self.guard.strategy("llm"),
                                         fallback_extractive=True, cancel=cancel)
            except (ProviderError, CompactionFailed) as exc:
                self.guard.on_auto_failed(exc, current_tokens=current, reported=not estimated,
                                          context_limit_tokens=self.context_limit().tokens,
                                          fixed_part=lambda: self.fixed_part_notice(request))
            yield from self._guard_notices()
        elif decision.reason == "no_growth":  # waiting for growth a compaction cannot undo:
            notice = self.fixed_part_notice(request)  # the fixed part alone fills the window
            if notice is not None:
                self.guard.pause(notice)
                yield from self._guard_notices()
        if decision.reason != "disabled" and self.session.state.auto_compaction_paused:
            yield from self._fit_window(request, cancel)  # (a silent server truncates it)
        self._call_estimate = self.breakdown(request).total

    def _fit_window(self, request: RequestContext, cancel: threading.Event | None
                    ) -> Iterator[Event]:
        """Paused (the pause stays), a request over the limit is compacted once or not sent."""
        limit = self.context_limit().tokens
        if _is_set(cancel) or self.current_tokens(request)[0] <= limit:
            return
        if (fixed_part := self._fixed_part_error(request, 1.0)) is not None:
            raise fixed_part
        if not self.guard.compacted_since_call:  # none ran yet for this request
            try:
                yield from self._compact(request, trigger="auto",
                                         strategy=self.guard.strategy("llm"),
                                         fallback_extractive=True, cancel=cancel)
            except (ProviderError, CompactionFailed) as exc:
                self._not_fitted(request, exc)
        if not _is_set(cancel) and self.current_tokens(request)[0] > limit:
            self._not_fitted(request, None)

    def _guard_notices(self) -> Iterator[Event]:
        from goosectx.events import Notification

        yield from (Notification("inline", text) for text in self.guard.take_notices())

    def on_context_exceeded(self, request: RequestContext, *,
                            cancel: threading.Event | None = None) -> Iterator[Event]:
        """Reactive compaction after ``ContextLengthExceeded``; the caller then retries.

        At most 2 per turn; a failed summary call falls back to the extractive summary (a
        notice); ``cancel`` set: history untouched, the caller's retry ends the turn. Raises
        ``ContextLengthExceeded`` (with a larger-model hint) a third time in a turn, for a
        model that manages its own context, or when nothing is left to compact.
        """
        from goosectx.compaction.decide import reactive_refusal

        refusal = reactive_refusal(manages_own_context=self.manages_own_context,
                                   reactive_this_turn=self._reactive_this_turn)
        if refusal is not None:
            raise self._fixed_part_error(request, self.settings.threshold_ratio) or refusal
        if (fixed_part := self._fixed_part_error(request, 1.0)) is not None:
            raise fixed_part  # compacting the history for nothing: it stays as it is
        self._reactive_this_turn += 1
        if self._call_estimate:  # the refusal proves a ratio that said "it fits" too low
            calibration.refused(self.session.state, self._model() or "",
                                self.context_limit().tokens, self._call_estimate)
        strategy = self.guard.strategy("llm" if self.provider is not None else "extractive")
        try:
            yield from self._compact(request, trigger="reactive", strategy=strategy,
                                     fallback_extractive=True, cancel=cancel)
        except CompactionFailed as exc:
            self._not_fitted(request, exc)

    def _not_fitted(self, request: RequestContext, exc: ProviderError | CompactionFailed | None
                    ) -> NoReturn:
        """Ends the turn: a compaction failed (``exc``) or left the request over the limit."""
        from goosectx.compaction.decide import LARGER_MODEL_HINT

        if exc is not None:
            self.guard.on_failed(counts=not isinstance(exc, CompactionWouldGrow))
        why = "even after a compaction" if exc is None else f"and compaction failed: {exc.message}"
        raise (self._fixed_part_error(request, self.settings.threshold_ratio)
               or ContextLengthExceeded(f"the request does not fit the context window "
                                        f"({self.context_limit().tokens:,} tokens) {why}",
                                        LARGER_MODEL_HINT)) from None

    def _fixed_part_error(self, request: RequestContext, ratio: float
                          ) -> ContextLengthExceeded | None:
        """The error of a refused request whose fixed part alone is ``ratio`` of the limit.

        It names what takes the room (the extensions) and the fix, as the pause notice does,
        instead of "use a larger model" alone; ``None`` when the fixed part is smaller.
        """
        from goosectx.compaction.decide import fixed_part_cause

        found = None if self.manages_own_context else self.fixed_part_cause(request, ratio)
        if found is None:
            return None
        cause, fix = fixed_part_cause(*found)
        return ContextLengthExceeded(f"the request does not fit the context window: {cause}", fix)

    def after_call(self, request: RequestContext, *,
                   cancel: threading.Event | None = None) -> Iterator[Event]:
        """Tool-pair summarisation after a model call (docs/architecture.md §5).

        When the agent-visible tool pairs that can be condensed (each alone in its messages)
        exceed cutoff + 10, the oldest 10 (never the newest 3) become one-line agent-only
        notes written in one summariser call; a note the reply lacks (or a failed call) gets
        an extractive one. Yields a thinking notification, then
        :class:`ToolPairsSummarized` with the whole new conversation and the call's ledger
        entry (purpose ``tool_pairs``). When ``cancel`` is set before or during the call,
        nothing changes (the pairs are condensed after a later call).
        """
        yield from self._guard_notices()
        if (self.provider is None or self.manages_own_context
                or not self.settings.tool_pair_summarization or _is_set(cancel)):
            return
        from goosectx.compaction.decide import tool_call_cutoff
        from goosectx.compaction.pairs_step import condense_old_pairs  # here, as execute

        cutoff = tool_call_cutoff(self.settings, self.context_limit().tokens)
        done = yield from condense_old_pairs(self.session, self._summarisers(), self.counter,
                                             self._counter_for, cutoff=cutoff, cancel=cancel,
                                             redact=self._redact())
        if done is None:
            return
        if self._reported_tokens is not None:
            self._reported_tokens = max(0, self._reported_tokens - done.hidden_tokens)
        self.session.ledger.current_tokens, _ = self.current_tokens(request)
        yield done.event

    # -- compaction ------------------------------------------------------------------------------
    def compact(
        self, request: RequestContext, *, trigger: CompactionTrigger = "manual",
        instructions: str | None = None, strategy: str = "llm",
        max_summary_tokens: int | None = None, cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        """Compact now (``/compact``, ``goosectx compact``): the function auto compaction uses.

        ``strategy``: ``llm`` or ``extractive`` (also without a model, with a notice);
        ``max_summary_tokens``: extractive budget; ``cancel`` (Ctrl-C): history untouched, a
        notice. Yields notices, then ``HistoryReplaced``. Lifts the auto pause (and, with the
        model, the failure breaker).

        Raises:
            CompactionFailed: the model manages its own context, nothing to compact, or the
                summary request cannot be made to fit; :class:`CompactionWouldGrow` when the
                view would not shrink (its hint names the fixed part when that alone is over
                the threshold). ProviderError: the summary call failed. History untouched.
        """
        if strategy not in ("llm", "extractive"):
            raise ValueError(f"unknown compaction strategy {strategy!r}")
        if self.manages_own_context:
            from goosectx.compaction.decide import own_context_refusal

            raise own_context_refusal(self.provider.model if self.provider else self.session.model)
        chosen: CompactionStrategy = "llm" if strategy == "llm" else "extractive"
        if chosen == "llm" and not self._summarisers():
            from goosectx.events import Notification

            yield Notification("inline", "No model is configured: using the extractive summary "
                                         "(built from the transcript, no model call).")
            chosen = "extractive"
        try:
            yield from self._compact(request, trigger=trigger, strategy=chosen,
                                     instructions=instructions,
                                     max_summary_tokens=max_summary_tokens, cancel=cancel)
        except CompactionWouldGrow as exc:
            found = self.fixed_part_cause(request, self.settings.threshold_ratio)
            if found is not None and not isinstance(exc, SummaryOverBudget):
                # "already about as small as a summary" hides why: what every request sends
                from goosectx.compaction.decide import fixed_part_cause

                cause, fix = fixed_part_cause(*found)
                exc.hint = f"{cause}; {fix}"
            raise

    def plan(
        self, request: RequestContext, *, instructions: str | None = None,
        strategy: str = "llm", max_summary_tokens: int | None = None,
    ) -> CompactionPlan:
        """What :meth:`compact` would do, without calling a model (``--dry-run``).

        Raises the refusals :meth:`compact` raises before any call (``CompactionFailed``).
        """
        if self.manages_own_context:
            from goosectx.compaction.decide import own_context_refusal

            raise own_context_refusal(self.provider.model if self.provider else self.session.model)
        b = self.breakdown(request)  # once, for both figures
        before, _ = self.current_tokens(request, b)
        return plan(self.session.conversation, self._summarisers(), self.counter,
                    self.layout_budget(request, b), tokens_before=before,
                    counter_for=self._counter_for, instructions=instructions,
                    strategy=strategy, max_summary_tokens=max_summary_tokens,
                    scan_cache=self.scan_cache)

    def _redact(self) -> Callable[[str], str]:
        """The redaction a summariser's text gets now (:attr:`reply_redact`)."""
        if self.reply_redact is not None:
            return self.reply_redact()
        from goosectx.env_secrets import tool_output_redactor  # built once a model summarises

        return tool_output_redactor(self.settings)

    def _summarisers(self) -> list[Provider]:
        out = [p for p in (self.summarizer, self.provider) if p is not None]
        return out[:1] if len(out) == 2 and out[0] is out[1] else out

    def _compact(
        self, request: RequestContext, *, trigger: CompactionTrigger,
        strategy: CompactionStrategy, instructions: str | None = None,
        max_summary_tokens: int | None = None, fallback_extractive: bool = False,
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        """Run :func:`~goosectx.compaction.execute.execute`; the guard sees ``HistoryReplaced``."""
        # Imported here: a dry run (``plan``) and a session that never compacts need none of
        # the summary call's modules (parse, render, the tool-pair notes).
        from goosectx.compaction.execute import execute
        from goosectx.events import HistoryReplaced

        b = self.breakdown(request)  # once, for the budget and the starting figure
        def measure() -> tuple[int, int]:  # called before the history changes
            return self.current_tokens(request, b)[0], self.context_limit().tokens

        failed: list[bool] = []
        for event in execute(
            self.session, self._summarisers(), trigger=trigger, strategy=strategy,
            measure=measure, counter=self.counter, counter_for=self._counter_for,
            max_summary_tokens=max_summary_tokens,
            reestimate=lambda: self._set_estimate(request), instructions=instructions,
            fallback_extractive=fallback_extractive, cancel=cancel,
            budget=self.layout_budget(request, b),
            attempt_failed=lambda: failed.append(True),
            budget_for=lambda: self.layout_budget(request, b),  # a limit the server stated
            scan_cache=self.scan_cache,
            redact=self._redact() if strategy == "llm" else None,  # only a model writes keys
            # A refusal may just have proved the ratio of the last report too low: the line
            # starts from the refused request at the ratio it left, as its "after" is measured.
            shown=((lambda: calibration.apply(b.total, self.estimate_ratio()))
                   if trigger == "reactive" else None),
        ):
            if isinstance(event, HistoryReplaced):
                # The refused request held more than the limit in the provider's count: the
                # next report is judged against that, not against our estimate of it.
                judged = (max(event.tokens_before, self.context_limit().tokens)
                          if trigger == "reactive" else event.tokens_before)
                self.guard.on_compacted(trigger, wanted=strategy, failed=bool(failed),
                                        tokens_before=judged, tokens_after=event.tokens_after)
            yield event
        yield from self._guard_notices()

    def undo_compaction(self, request: RequestContext) -> Iterator[Event]:
        """``/undo-compact``: walk back the last compaction (:mod:`~goosectx.compaction.undo`)."""
        from goosectx.compaction.undo import undo_last

        yield from undo_last(self.session, reestimate=lambda: self._set_estimate(request),
                             recount=lambda made: self.recount_restored(request, made),
                             context_limit_tokens=self.context_limit().tokens)

    def clear(self, request: RequestContext) -> Iterator[Event]:
        """``/clear``: hide the whole history from the model, reset ``current``, lift pause.

        The transcript is kept (a user-only notice marks the point). Yields
        ``HistoryReplaced`` with trigger ``clear`` and strategy ``none``.
        """
        from goosectx.events import HistoryReplaced

        before, _ = self.current_tokens(request)
        conversation = self.session.conversation
        conversation.messages = cleared_messages(
            conversation, notice="Context cleared: the model no longer sees the messages above.")
        after = self._set_estimate(request)
        self.guard.on_clear()
        yield HistoryReplaced(conversation.snapshot(), "clear", before, after,
                              None, "none", None, False)


def _is_set(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()
