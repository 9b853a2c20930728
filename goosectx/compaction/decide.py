"""Decide: whether to compact, the guards around it, and when auto-compaction pauses.

First stage of the compaction pipeline (docs/architecture.md §5): pure functions of numbers,
settings and the agent view; nothing here calls a model or changes a session.

INTERFACE the compaction issues extend (the working set, and judging a compaction by the
provider's next report):

* :func:`decide_auto` (figures and guard state) → a :class:`Decision`: compact now or not,
  and why. The guard (not twice without a successful model call AND growth of 10 % of the
  limit since the last automatic compaction) and the trigger (calibrated
  ``current / limit > threshold``) live here.
* :func:`reactive_refusal` → the ``ContextLengthExceeded`` that stops a turn instead of one
  more reactive compaction, or ``None`` (at most :data:`MAX_REACTIVE_PER_TURN` a turn).
* :func:`ineffective` (the figure that triggered an automatic compaction and the provider's
  next reported input) → whether auto-compaction now pauses, and :func:`pause_notice` for the
  notice. The growth guard is ``growth_base_tokens`` of :func:`decide_auto`. In a tool loop,
  :func:`storm` (that report and the size of the step that triggered it) pauses it too.
* :func:`tool_call_cutoff`: when tool-pair summarisation runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from goosectx.config import DEFAULT_THRESHOLD_RATIO, Settings
from goosectx.errors import CompactionFailed, ContextLengthExceeded

MIN_SAVING_RATIO = 0.10
"""A compaction whose next reported input is not this much lower pauses auto-compaction."""
MIN_GROWTH_RATIO = 0.10
"""Growth (share of the limit) needed since the last automatic compaction before another."""
MAX_FAILED_ATTEMPTS = 3
"""Consecutive failed compaction attempts after which compaction is extractive only."""
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
    growth_base_tokens: int | None = None,
) -> Decision:
    """The auto-compaction decision before a model call (docs/architecture.md §5, step 1).

    Args:
        enabled: A model is configured, it does not manage its own context and
            auto-compaction is on in the settings.
        paused: The session's auto-compaction pause is set.
        compacted_since_call: A compaction ran since the last successful model call.
        last_role: Role of the newest agent-visible message (``None`` when there is none);
            compaction only runs after a user or tool message (role ``user``).
        current_tokens: ``current`` (calibrated): the reported size plus estimates since.
        context_limit_tokens: The main model's context limit.
        threshold_ratio: The configured threshold.
        growth_base_tokens: ``current`` after the last automatic compaction (``None``: none
            ran): the growth guard wants :data:`MIN_GROWTH_RATIO` of the limit above it.
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
    if (growth_base_tokens is not None
            and current_tokens - growth_base_tokens < MIN_GROWTH_RATIO * context_limit_tokens):
        return Decision(False, "no_growth")
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


def ineffective(trigger_tokens: int, reported_input_tokens: int, context_limit_tokens: int,
                threshold_ratio: float) -> bool:
    """True when the provider's next report shows an automatic compaction did not work.

    It did not when the reported input is not at least :data:`MIN_SAVING_RATIO` below the
    figure that triggered the compaction, or is still over the threshold.
    """
    if reported_input_tokens > trigger_tokens * (1.0 - MIN_SAVING_RATIO):
        return True
    return auto_compaction_due(reported_input_tokens, context_limit_tokens, threshold_ratio)


STORM_STEPS = 2
"""A compaction in a tool loop that leaves room for no more steps than this pauses."""


def storm(next_input_tokens: int, step_tokens: int, context_limit_tokens: int,
          threshold_ratio: float) -> bool:
    """True when an automatic compaction in a tool loop only bought another compaction.

    ``next_input_tokens``: the provider's first report after it; ``step_tokens``: what the
    step that triggered it added (its reply and tool responses). When :data:`STORM_STEPS` more
    steps of that size cross the threshold again — and grow the view enough for the growth
    guard — every step or two would be summarised (a compaction storm); the usual cause is a
    window too small for the tool responses the model keeps.
    """
    if step_tokens <= 0 or not 0.0 < threshold_ratio < 1.0:
        return False
    ahead = STORM_STEPS * step_tokens
    return (ahead >= MIN_GROWTH_RATIO * context_limit_tokens
            and auto_compaction_due(next_input_tokens + ahead, context_limit_tokens,
                                    threshold_ratio))


def storm_notice(next_input_tokens: int, step_tokens: int, context_limit_tokens: int,
                 threshold_ratio: float) -> str:
    """The notice when :func:`storm` paused auto-compaction: the figures, then the fixes."""
    room = max(0, int(threshold_ratio * context_limit_tokens) - next_input_tokens)
    return (f"{PAUSED}each step of this tool loop adds about {step_tokens:,} tokens, and the "
            f"last compaction left room for only {room:,} more below the threshold "
            f"({round(100 * threshold_ratio)}% of the {context_limit_tokens:,}-token limit; "
            f"the provider reported {next_input_tokens:,} tokens after it), so the "
            f"conversation would be summarised again every step or two.{GOES_ON} To compact "
            "less often, use a model with a larger context "
            "window (/model or --model), raise auto_compact_threshold, or lower "
            f"tool_output_max_chars so each tool response adds less. {PAUSE_FIX}")


PAUSE_FIX = ("A request over the context limit itself is still compacted. The pause lasts "
             "until a compaction by hand (/compact in the REPL, goosectx compact SESSION "
             "otherwise), /clear, or a compaction after the provider refuses a request as too "
             "long; a new session starts without it.")
"""What the pause leaves and what ends it (``execute``: a manual or reactive compaction;
``CompactionGuard.on_clear``), worded for both the REPL and ``run``."""


PAUSED = "Auto-compaction is paused: "
"""Starts every pause notice; what follows is the reason (:func:`pause_reason`)."""
GOES_ON = " The turn goes on without auto-compaction."
"""Said in a pause notice shown mid-turn only: not kept with the reason (:func:`pause_reason`)."""


def pause_reason(notice: str) -> str:
    """The reason a pause notice gives (its text after :data:`PAUSED`), kept for ``/context``.

    What holds only while the notice's turn runs (:data:`GOES_ON`) is left out.
    """
    return notice.removeprefix(PAUSED).replace(GOES_ON, "")


def resumed_reason(reason: str) -> str:
    """A kept :func:`pause_reason` as a resumed ``run`` says it: without the REPL's fixes.

    The caller names its own (``goosectx compact SESSION``); a reason kept before
    :func:`pause_reason` left out :data:`GOES_ON` loses it here.
    """
    return reason.replace(GOES_ON, "").removesuffix(PAUSE_FIX).strip()


def pause_notice(trigger_tokens: int, reported_input_tokens: int, context_limit_tokens: int,
                 threshold_ratio: float) -> str:
    """The notice shown when the next report paused auto-compaction (no compaction loops).

    It leads with why (:func:`ineffective`): the request grew, is still over the threshold
    (``still 129% of the 128,000-token limit after the last compaction``), or shrank by less
    than :data:`MIN_SAVING_RATIO`; then the provider's two figures; then what to do — over the
    limit itself, also that the next request may not fit (it is compacted again, or the turn
    ends with an error, instead of being sent) and how to send less.
    """
    pct = round(100 * reported_input_tokens / context_limit_tokens) if context_limit_tokens else 0
    limit = f"{pct}% of the {context_limit_tokens:,}-token limit"
    figures = f"the provider reported {trigger_tokens:,} → {reported_input_tokens:,} tokens"
    if reported_input_tokens >= trigger_tokens:
        reason = f"the request grew after the last compaction, to {limit} ({figures})"
    elif auto_compaction_due(reported_input_tokens, context_limit_tokens, threshold_ratio):
        reason = f"the request is still {limit} after the last compaction ({figures})"
    else:
        saved_pct = round(100 * (trigger_tokens - reported_input_tokens) / trigger_tokens)
        reason = (f"the last compaction made the request only {saved_pct}% smaller, to {limit} "
                  f"({figures})")
    over = (" Over the whole window, the next request may not fit: "
            "send less at once (a shorter message or file), or "
            f"{LARGER_MODEL_HINT.removesuffix(', or start a new session')}."
            if pct >= 100 else "")
    return f"{PAUSED}{reason}.{over} {PAUSE_FIX}"


def would_grow_notice(current_tokens: int, reported: bool, context_limit_tokens: int,
                      reason: str) -> str:
    """The notice when auto-compaction pauses because a compaction would not shrink the view."""
    pct = round(100 * current_tokens / context_limit_tokens) if context_limit_tokens else 0
    figure = "the provider reported" if reported else "goosectx estimates"
    return (f"{PAUSED}{figure} the request at "
            f"{current_tokens:,} tokens, {pct}% of the {context_limit_tokens:,}-token limit, "
            f"but {reason}. {PAUSE_FIX}")


FIXED_PART_CAUSE = "the system prompt and tool definitions sent with every request alone take"
"""Starts the cause of a pause (or refusal) no compaction can help: what every request sends."""


def fixed_part_cause(fixed_tokens: int, context_limit_tokens: int,
                     extensions: list[tuple[str, int, int, int]],
                     threshold: tuple[float, str] | None = None) -> tuple[str, str]:
    """What the fixed part of every request takes and the fix: ``(cause, fix)``, clauses.

    ``extensions``: (name, its tools, their schema tokens, its instructions' tokens), largest
    first — the cause when there are any; compacting (the usual advice) cannot shrink the
    system prompt or the tools. ``threshold``: the auto-compaction threshold and where it was
    set (``Settings.source``): while the fixed part fits the window, the cause names the
    threshold it is over and the fix first says to raise it (:func:`raise_threshold`). The
    pause notice (:func:`fixed_part_notice`) and the error of a refused request that a
    compaction cannot help (the reactive path) say the same thing.
    """
    pct = round(100 * fixed_tokens / context_limit_tokens) if context_limit_tokens else 0
    raising = (raise_threshold(fixed_tokens, context_limit_tokens, *threshold)
               if threshold is not None and fixed_tokens < context_limit_tokens else "")
    over = f", over the {threshold[0]:.0%} auto-compaction threshold," if raising and threshold \
        else ""
    cause = (f"{FIXED_PART_CAUSE} about {fixed_tokens:,} tokens, {pct}% of the "
             f"{context_limit_tokens:,}-token limit{over} and compaction shortens only the "
             "conversation")
    first_fix = f"{raising}, " if raising else ""
    if not extensions:
        return cause, (f"{first_fix}use a model with a larger context window, or send less "
                       "with every request: project instructions (/context shows the parts)")
    named = "; ".join(f"{name}: " + ", ".join(
        ([f"{tools:,} tool{'s' if tools != 1 else ''}, ~{tokens:,} tokens"] if tools else [])
        + ([f"instructions ~{instr:,} tokens"] if instr else []))
        for name, tools, tokens, instr in extensions)
    first, _, schema_tokens, instr_tokens = extensions[0]
    disable = (f"{first_fix}disable an extension (enabled = false under [extensions.{first}] "
               f"in the config, or /extension remove {first} in the REPL), ")
    if instr_tokens > schema_tokens:
        return (f"{cause}. Extensions in it — {named}",
                f"{disable}send less of {first}'s instructions (a lower max_instructions_chars "
                f"under [extensions.{first}]), or use a model with a larger context window")
    return (f"{cause}. Extensions in it — {named}",
            f"{disable}let extension tools be deferred behind search_tools (a "
            "tool_budget_ratio below 1; 0.10 by default), or use a model with a larger "
            "context window")


def raise_threshold(fixed_tokens: int, context_limit_tokens: int, ratio: float,
                    source: str) -> str:
    """The fix "raise the threshold" for a fixed part over it, as a clause, or ``""``.

    It names the setting where it was set (the environment variable overrides the config)
    and a value above the fixed part's share of the window; ``""`` when no threshold below 1
    leaves room for the conversation.
    """
    above = (100 * fixed_tokens + context_limit_tokens - 1) // context_limit_tokens / 100 \
        if context_limit_tokens else 1.0
    if above >= 0.95:
        return ""
    where = ("GOOSE_AUTO_COMPACT_THRESHOLD" if source.startswith("env ")
             else "auto_compact_threshold in the config (or GOOSE_AUTO_COMPACT_THRESHOLD)")
    source = "the default" if source == "default" else source
    return f"raise {where} above {above:.2f} (now {ratio:g}, {source})"


def fixed_part_notice(fixed_tokens: int, context_limit_tokens: int,
                      extensions: list[tuple[str, int, int, int]],
                      threshold: tuple[float, str] | None = None) -> str:
    """The notice when auto-compaction pauses because the fixed part alone fills the window."""
    cause, fix = fixed_part_cause(fixed_tokens, context_limit_tokens, extensions, threshold)
    return f"{PAUSED}{cause}. {fix[0].upper()}{fix[1:]}."


def failures_notice(failures: int) -> str:
    """The notice when compaction switches to the extractive summary after failed attempts."""
    return (f"The summary model failed {failures} compactions in a row: automatic compaction "
            "now uses the extractive summary (no model call) until a /compact with the model "
            "succeeds.")


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


def own_context_refusal(model: str | None) -> CompactionFailed:
    """Why a model that manages its own context is never compacted, with the setting to change."""
    return CompactionFailed(
        f"compaction is unavailable: {model} manages its own context "
        "(manages_own_context = true), so goosectx leaves its context to it",
        f'set manages_own_context = false under [models."{model}"] in the config to '
        "let goosectx compact it",
    )
