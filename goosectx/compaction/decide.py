"""When to compact: the auto-compaction threshold, the pause rule and the tool-pair cutoff.

DESIGN.md §4.1 and §4.3; pure functions of numbers and settings.
"""

from __future__ import annotations

from goosectx.config import DEFAULT_THRESHOLD_RATIO, Settings

MIN_SAVING_RATIO = 0.10
"""A compaction that shrinks ``current`` by less than this pauses auto-compaction."""
MAX_REACTIVE_PER_TURN = 2
"""Reactive compactions allowed in one turn before the turn stops."""
TOOL_PAIR_BATCH = 10
"""Tool pairs summarised in one call; also the slack above the cutoff before it runs."""
PROTECTED_NEWEST_PAIRS = 3
"""The newest tool pairs are never summarised: the model is still working with them."""


def auto_compaction_due(current_tokens: int, context_limit_tokens: int,
                        threshold_ratio: float) -> bool:
    """True when ``current_tokens / context_limit_tokens > threshold_ratio``.

    A ratio outside (0, 1) disables auto-compaction (always False); so does a limit ≤ 0.
    """
    if not 0.0 < threshold_ratio < 1.0 or context_limit_tokens <= 0:
        return False
    return current_tokens / context_limit_tokens > threshold_ratio


def saved_too_little(tokens_before: int, tokens_after: int) -> bool:
    """True when a compaction shrank the context by less than :data:`MIN_SAVING_RATIO`."""
    return tokens_after > tokens_before * (1.0 - MIN_SAVING_RATIO)


def tool_call_cutoff(settings: Settings, context_limit_tokens: int) -> int:
    """The tool-pair cutoff (DESIGN.md §4.3).

    ``GOOSE_TOOL_CALL_CUTOFF`` when set, else clamp(3 × limit × threshold / 20,000, 10, 500)
    with threshold 0.8 when auto-compaction is off.
    """
    if settings.tool_call_cutoff is not None:
        return settings.tool_call_cutoff
    ratio = DEFAULT_THRESHOLD_RATIO
    if settings.auto_compaction_enabled:
        ratio = settings.threshold_ratio
    return int(min(500.0, max(10.0, 3 * context_limit_tokens * ratio / 20_000)))
