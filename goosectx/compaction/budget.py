"""The one budget rule: the size the request after a compaction aims at and never exceeds.

Part of step 4 of the compaction pipeline (docs/architecture.md §5). The next request targets
≤ ½ × threshold × limit; the hard ceiling is threshold × limit − a margin; when the prefix, the
summary and the newest request alone exceed the target, only the ceiling applies. Every
estimate is multiplied by the calibration ratio (``Budget.ratio``). :mod:`.layout` lays the
view out within it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from goosectx.config import DEFAULT_THRESHOLD_RATIO
from goosectx.plain_record import compared_record

if TYPE_CHECKING:
    from goosectx.config import Settings

MARGIN_RATIO = 0.05
"""The hard ceiling sits this share of the limit below the threshold."""
SUMMARY_SHARE_OF_TARGET = 0.25
"""The summary's ``max_tokens`` is at most this share of the target."""
DEFAULT_KEEP_USER_TOKENS = 8_000
"""``keep_user_tokens`` default: min(this, 0.1 × limit)."""


@compared_record  # read-only to mypy; printed nowhere (a test)
class Budget:
    """The budget of the request after a compaction (all figures calibrated tokens).

    Attributes:
        context_limit_tokens: The main model's context limit.
        target_tokens: ½ × threshold × limit: the next request aims at most this.
        ceiling_tokens: threshold × limit − margin: never more than this.
        prefix_tokens: System prompt + project instructions + tool schemas.
        summary_max_tokens: The summary call's ``max_tokens`` (≤ ¼ target).
        tail_tokens: ``keep_recent_ratio`` × limit (0 = goose's layout, no tail).
        user_tokens: ``keep_user_tokens``: earlier user messages re-sent verbatim.
        ratio: Calibration ratio every raw estimate is multiplied by.
        result_chars: Tool results longer than this are cut in the summary request.
        facts_tokens: Cap on the facts merged into the summary from the transcript.
    """

    context_limit_tokens: int
    target_tokens: int
    ceiling_tokens: int
    prefix_tokens: int = 0
    summary_max_tokens: int = 1_000
    tail_tokens: int = 0
    user_tokens: int = 0
    ratio: float = 1.0
    result_chars: int = 2_000
    facts_tokens: int = 1_500

    def scaled(self, raw_tokens: int) -> int:
        """A raw estimate times the calibration ratio (rounded up)."""
        return math.ceil(raw_tokens * self.ratio)


def layout_budget(
    context_limit_tokens: int, threshold_ratio: float, *, prefix_tokens: int = 0,
    keep_recent_ratio: float = 0.2, keep_user_tokens: int | None = None, ratio: float = 1.0,
    result_chars: int = 2_000, facts_tokens: int = 1_500,
) -> Budget:
    """The one budget rule (docs/architecture.md §5).

    Args:
        context_limit_tokens: The main model's context limit.
        threshold_ratio: The auto-compaction threshold; outside (0, 1) counts as 0.8.
        prefix_tokens: Calibrated estimate of system prompt + instructions + tool schemas.
        keep_recent_ratio: Share of the limit kept as the verbatim tail.
        keep_user_tokens: Re-sent user messages; ``None`` = min(8,000, 0.1 × limit).
        ratio: The calibration ratio.
        result_chars: ``summary_result_chars`` (carried to the summary request).
        facts_tokens: ``summary_facts_tokens`` (carried to the facts merge).
    """
    thr = threshold_ratio if 0.0 < threshold_ratio < 1.0 else DEFAULT_THRESHOLD_RATIO
    limit = max(context_limit_tokens, 1)
    target = int(0.5 * thr * limit)
    ceiling = max(target, int(thr * limit - MARGIN_RATIO * limit))
    users = (min(DEFAULT_KEEP_USER_TOKENS, limit // 10) if keep_user_tokens is None
             else keep_user_tokens)
    return Budget(limit, target, ceiling, prefix_tokens,
                  max(64, int(target * SUMMARY_SHARE_OF_TARGET)),
                  int(keep_recent_ratio * limit), users, ratio, result_chars, facts_tokens)


def settings_budget(settings: Settings, context_limit_tokens: int, prefix_raw_tokens: int,
                    ratio: float = 1.0) -> Budget:
    """:func:`layout_budget` from the settings; ``prefix_raw_tokens`` is scaled by ``ratio``."""
    return layout_budget(context_limit_tokens, settings.threshold_ratio,
                         prefix_tokens=math.ceil(prefix_raw_tokens * ratio),
                         keep_recent_ratio=settings.keep_recent_ratio,
                         keep_user_tokens=settings.keep_user_tokens, ratio=ratio,
                         result_chars=settings.summary_result_chars,
                         facts_tokens=settings.summary_facts_tokens)
