"""Decide: whether to compact, the guards around it, and when auto-compaction pauses.

First stage of the compaction pipeline (docs/architecture.md §5): pure functions of numbers,
settings and the agent view; nothing here calls a model or changes a session.

INTERFACE the compaction issues extend (the working set, and judging a compaction by the
provider's next report):

* :func:`decide_auto` (figures and guard state) → a :class:`Decision`: compact now or not,
  and why. The guard ("not twice without a successful model call") and the trigger
  (``current / limit > threshold``) live here; a growth guard or a calibrated ``current`` is a
  new input to it, not a new check in the manager.
* :func:`reactive_refusal` → the ``ContextLengthExceeded`` that stops a turn instead of one
  more reactive compaction, or ``None`` (at most :data:`MAX_REACTIVE_PER_TURN` a turn).
* :func:`judge` (a finished compaction's figures) → whether auto-compaction now pauses, and
  :func:`pause_notice` for the notice. Today the judgement is the estimate-based saving; a
  judgement by the next provider report replaces this function's rule.
* :func:`tool_call_cutoff`: when tool-pair summarisation runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from goosectx.config import DEFAULT_THRESHOLD_RATIO, Settings
from goosectx.errors import ContextLengthExceeded
from goosectx.events import CompactionTrigger

MIN_SAVING_RATIO = 0.10
"""A compaction that shrinks ``current`` by less than this pauses auto-compaction."""
MAX_REACTIVE_PER_TURN = 2
"""Reactive compactions allowed in one turn before the turn stops."""
TOOL_PAIR_BATCH = 10
"""Tool pairs summarised in one call; also the slack above the cutoff before it runs."""
PROTECTED_NEWEST_PAIRS = 3
"""The newest tool pairs are never summarised: the model is still working with them."""
LARGER_MODEL_HINT = ("switch to a model with a larger context window (/model or --model), or "
                     "start a new session")


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether to compact before the next model call.

    Attributes:
        compact: True to compact now.
        reason: Why (``disabled``, ``paused``, ``guard``, ``not_after_input``,
            ``under_threshold``, ``over_threshold``), for tests and logs.
    """

    compact: bool
    reason: str


def auto_compaction_due(current_tokens: int, context_limit_tokens: int,
                        threshold_ratio: float) -> bool:
    """True when ``current_tokens / context_limit_tokens > threshold_ratio``.

    A ratio outside (0, 1) disables auto-compaction (always False); so does a limit ≤ 0.
    """
    if not 0.0 < threshold_ratio < 1.0 or context_limit_tokens <= 0:
        return False
    return current_tokens / context_limit_tokens > threshold_ratio


def decide_auto(
    *, enabled: bool, paused: bool, compacted_since_call: bool, last_role: str | None,
    current_tokens: int, context_limit_tokens: int, threshold_ratio: float,
) -> Decision:
    """The auto-compaction decision before a model call (docs/architecture.md §5, step 1).

    Args:
        enabled: A model is configured, it does not manage its own context and
            auto-compaction is on in the settings.
        paused: The session's auto-compaction pause is set.
        compacted_since_call: A compaction ran since the last successful model call.
        last_role: Role of the newest agent-visible message (``None`` when there is none);
            compaction only runs after a user or tool message (role ``user``).
        current_tokens: ``current``: the reported size plus estimates since.
        context_limit_tokens: The main model's context limit.
        threshold_ratio: The configured threshold.
    """
    if not enabled:
        return Decision(False, "disabled")
    if paused:
        return Decision(False, "paused")
    if compacted_since_call:
        return Decision(False, "guard")
    if last_role != "user":
        return Decision(False, "not_after_input")
    if not auto_compaction_due(current_tokens, context_limit_tokens, threshold_ratio):
        return Decision(False, "under_threshold")
    return Decision(True, "over_threshold")


def reactive_refusal(*, manages_own_context: bool,
                     reactive_this_turn: int) -> ContextLengthExceeded | None:
    """The error that ends the turn instead of a reactive compaction, or ``None`` to compact."""
    if manages_own_context:
        return ContextLengthExceeded(
            "the request does not fit the context window and the model manages its own "
            "context (goosectx does not compact it)", LARGER_MODEL_HINT)
    if reactive_this_turn >= MAX_REACTIVE_PER_TURN:
        return ContextLengthExceeded(
            f"the request still does not fit the context window after "
            f"{MAX_REACTIVE_PER_TURN} compactions this turn", LARGER_MODEL_HINT)
    return None


def saved_too_little(tokens_before: int, tokens_after: int) -> bool:
    """True when a compaction shrank the context by less than :data:`MIN_SAVING_RATIO`."""
    return tokens_after > tokens_before * (1.0 - MIN_SAVING_RATIO)


def judge(trigger: CompactionTrigger, tokens_before: int, tokens_after: int, *,
          paused: bool) -> bool:
    """True when this finished compaction newly pauses auto-compaction.

    An automatic (``auto`` / ``reactive``) compaction that saved too little pauses it, unless
    it is paused already. Manual compaction never pauses (it lifts the pause elsewhere).
    """
    return (trigger in ("auto", "reactive") and saved_too_little(tokens_before, tokens_after)
            and not paused)


def pause_notice(tokens_before: int, tokens_after: int) -> str:
    """The inline notice shown when :func:`judge` paused auto-compaction."""
    saved_pct = max(0, round(100 * (tokens_before - tokens_after) / tokens_before)) \
        if tokens_before else 0
    return (f"Auto-compaction is paused for this session: the last compaction saved only "
            f"{saved_pct}% ({tokens_before:,} → {tokens_after:,} tokens). /compact compacts by "
            "hand and lifts the pause; /clear starts the model afresh.")


def tool_call_cutoff(settings: Settings, context_limit_tokens: int) -> int:
    """The tool-pair cutoff (docs/architecture.md §5, tool-pair summarisation).

    ``GOOSE_TOOL_CALL_CUTOFF`` when set, else clamp(3 × limit × threshold / 20,000, 10, 500)
    with threshold 0.8 when auto-compaction is off.
    """
    if settings.tool_call_cutoff is not None:
        return settings.tool_call_cutoff
    ratio = DEFAULT_THRESHOLD_RATIO
    if settings.auto_compaction_enabled:
        ratio = settings.threshold_ratio
    return int(min(500.0, max(10.0, 3 * context_limit_tokens * ratio / 20_000)))
