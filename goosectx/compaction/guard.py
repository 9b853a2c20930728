"""The guard state of automatic compaction: judged by the next report, growth, failures.

docs/architecture.md §5 ("Judged by the next report"). The rules are the pure functions of
:mod:`goosectx.compaction.decide`; this class keeps what they need between calls — in the
session state (stored: the pending judgement, the growth base, the failure count, the
calibration) or in memory (a compaction since the last successful call) — and says what to
tell the user. The context manager calls it; it never prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from goosectx.compaction import calibration
from goosectx.errors import CompactionWouldGrow, GoosectxError
from goosectx.session import SessionState
from goosectx.usage import Usage

if TYPE_CHECKING:  # types only: a dry run never imports the events
    from goosectx.events import CompactionStrategy, CompactionTrigger


class CompactionGuard:
    """Guard state of one session's automatic compaction.

    Args:
        state: The session state (mutated; the recorder stores it).
    """

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.compacted_since_call = False
        self.notices: list[str] = []
        self._loop_tokens: int | None = None
        self._step_tokens: int | None = None
        self._judged_step_tokens: int | None = None
        self._said: str | None = None  # the cause of the pause last told (a notice), if any

    def note_current(self, current_tokens: int, *, in_tool_loop: bool) -> None:
        """Note ``current`` before a model call; in a tool loop, the step's size is the change.

        Between two calls of one tool loop the difference is what a step added (kept in
        memory, for the storm judgement of :meth:`on_reply`).
        """
        last, self._loop_tokens = self._loop_tokens, current_tokens if in_tool_loop else None
        self._step_tokens = (current_tokens - last
                             if in_tool_loop and last is not None else None)

    def on_reply(self, usage: Usage | None, *, model: str, estimate_tokens: int | None,
                 current_tokens: int, context_limit_tokens: int,
                 threshold_ratio: float) -> None:
        """A successful model call: calibrate, judge a pending compaction, re-arm the guard.

        Args:
            usage: The call's usage (``None`` when the provider reported none).
            model: The model that answered (the calibration key).
            estimate_tokens: Our raw estimate of the same request's input, if known.
            current_tokens: The new ``current`` (the report, when there is one).
            context_limit_tokens: The main model's limit.
            threshold_ratio: The configured threshold.
        """
        self.compacted_since_call = False
        if usage is None or not usage.input_tokens:
            return
        if estimate_tokens:
            calibration.record(self.state, model, usage.input_tokens, estimate_tokens)
        judged = self.state.judge_input_tokens
        if judged is None:
            return
        self.state.judge_input_tokens = None
        self.state.growth_base_tokens = current_tokens
        step, self._judged_step_tokens = self._judged_step_tokens, None
        from goosectx.compaction.decide import (  # (a dry run: none)
            ineffective,
            pause_notice,
            storm,
            storm_notice,
        )

        if self.state.auto_compaction_paused:
            return
        if ineffective(judged, usage.input_tokens, context_limit_tokens, threshold_ratio):
            self._pause(pause_notice(judged, usage.input_tokens, context_limit_tokens,
                                     threshold_ratio), "ineffective")
        elif step is not None and storm(usage.input_tokens, step, context_limit_tokens,
                                        threshold_ratio):
            self._pause(storm_notice(usage.input_tokens, step, context_limit_tokens,
                                     threshold_ratio), "storm")
        else:  # auto-compaction goes on: a later pause is a new one, told again
            self._said = None

    def strategy(self, wanted: CompactionStrategy) -> CompactionStrategy:
        """The strategy of an automatic compaction: extractive after 3 failed attempts."""
        from goosectx.compaction.decide import MAX_FAILED_ATTEMPTS

        if wanted == "llm" and self.state.compaction_failures >= MAX_FAILED_ATTEMPTS:
            return "extractive"
        return wanted

    def on_compacted(self, trigger: CompactionTrigger, *, wanted: CompactionStrategy,
                     failed: bool, tokens_before: int, tokens_after: int) -> None:
        """A compaction replaced the history (``failed``: the model's summary was not used).

        Only an automatic (or reactive) one counts a failure: a manual one that failed
        outright counts none, nor does one that still compacted (a tiny reply kept with the
        extractive summary beneath it) — the breaker's notice, "now extractive until a
        /compact with the model succeeds", would contradict the ``Compacted … (llm)`` beside
        it.
        """
        self.compacted_since_call = True
        if wanted == "llm" and not failed:
            self.state.compaction_failures = 0
        elif wanted == "llm" and trigger != "manual":
            self.on_failed()
        # A reactive compaction lifts a pause: the same judgement may set it again.
        self._judged_step_tokens = self._step_tokens if trigger != "manual" else None
        self._loop_tokens = self._step_tokens = None  # the next step is measured afresh
        if trigger in ("auto", "reactive"):
            self.state.judge_input_tokens = tokens_before
            self.state.growth_base_tokens = tokens_after
        else:  # the user lifted the pause: one set again is told again
            self._said = None
            self.state.judge_input_tokens = None
            self.state.growth_base_tokens = None

    def on_failed(self, *, counts: bool = True) -> None:
        """A compaction did not happen; ``counts``: a failed attempt (3 open the breaker)."""
        self.compacted_since_call = True
        if not counts:
            return
        self.state.compaction_failures += 1
        from goosectx.compaction.decide import MAX_FAILED_ATTEMPTS, failures_notice

        if self.state.compaction_failures == MAX_FAILED_ATTEMPTS:
            self.notices.append(failures_notice(MAX_FAILED_ATTEMPTS))

    def on_auto_failed(self, exc: GoosectxError, *, current_tokens: int, reported: bool,
                       context_limit_tokens: int,
                       fixed_part: Callable[[], str | None] = lambda: None) -> None:
        """An automatic compaction left the history unchanged: say why, count or pause.

        One that would not shrink the view pauses auto-compaction (it would not shrink it next
        time either); a failed summary call counts towards the breaker; "nothing to compact"
        counts nothing. ``fixed_part``: the notice naming the cause when the request's fixed
        part alone fills the window (compacting by hand would not help either), else ``None``.
        """
        if isinstance(exc, CompactionWouldGrow):
            self.compacted_since_call = True
            if not self.state.auto_compaction_paused:
                from goosectx.compaction.decide import would_grow_notice

                notice = fixed_part()
                self._pause(notice or would_grow_notice(
                    current_tokens, reported, context_limit_tokens, exc.message),
                    "would_grow" if notice is None else "fixed_part")
            return
        self.on_failed(counts=not exc.message.startswith("nothing to compact"))
        self.notices.append(f"Auto-compaction failed: {exc.one_line()} — the history is "
                            "unchanged.")

    def pause(self, notice: str) -> None:
        """Pause auto-compaction with ``notice`` unless it is paused already.

        For the fixed part found filling the window while the growth guard waits (resumed
        with a smaller window): no compaction is tried, none could help.
        """
        if not self.state.auto_compaction_paused:
            self._pause(notice, "fixed_part")

    def _pause(self, notice: str, cause: str) -> None:
        """Pause auto-compaction, keeping why (``/context`` says it again), and tell the user.

        Told once: set again for the same ``cause`` after a reactive compaction lifted it (a
        provider refusing requests as too long, every turn of a small window) it is not told
        again; a new cause, or a pause after the user or a judgement lifted it, is.
        """
        from goosectx.compaction.decide import pause_reason

        self.state.auto_compaction_paused = True
        self.state.pause_reason = pause_reason(notice)
        if cause != self._said:
            self.notices.append(notice)
        self._said = cause

    def on_clear(self) -> None:
        """``/clear``: lift the pause and forget the guard figures."""
        self.state.auto_compaction_paused = False
        self.state.paused_by_undo = False
        self.state.pause_reason = ""
        self.state.judge_input_tokens = None
        self.state.growth_base_tokens = None
        self.compacted_since_call = False
        self._said = None

    def take_notices(self) -> list[str]:
        """The notices to show now (each once)."""
        out, self.notices = self.notices, []
        return out
