"""Calibration: how far the provider's token counts sit from goosectx's estimates, per model.

docs/architecture.md §5 ("Calibrated estimates"). After every model call that reported its
input, the ratio reported input ÷ our estimate of the same request is kept per model (the
newest :data:`WINDOW`, in :attr:`goosectx.session.SessionState.calibration`, so it survives a
resume and switching back to a model restores its ratio). The running median is applied on
use to every estimate the trigger, the budgets and the displays use; stored per-message counts
stay raw. A model never used before starts uncalibrated (ratio 1.0).
"""

from __future__ import annotations

import math
from statistics import median

from goosectx.session import SessionState

WINDOW = 15
"""Newest ratios kept per model (the median is taken over them)."""
MIN_ESTIMATE_TOKENS = 50
"""Requests smaller than this are not used: their ratio is mostly noise."""
RATIO_BOUNDS = (0.25, 8.0)
"""A ratio outside these bounds is a mismatch (another request, a cached report): ignored."""


def record(state: SessionState, model: str, reported_input_tokens: int,
           estimate_tokens: int) -> None:
    """Add one call's ratio (reported input ÷ raw estimate of the same request)."""
    if estimate_tokens < MIN_ESTIMATE_TOKENS or reported_input_tokens <= 0:
        return
    value = reported_input_tokens / estimate_tokens
    if not RATIO_BOUNDS[0] <= value <= RATIO_BOUNDS[1]:
        return
    ratios = state.calibration.setdefault(model, [])
    ratios.append(round(value, 4))
    del ratios[:-WINDOW]


def ratio(state: SessionState, model: str | None) -> float:
    """The running median for ``model`` (1.0 when uncalibrated)."""
    ratios = state.calibration.get(model or "")
    return float(median(ratios)) if ratios else 1.0


def calls(state: SessionState, model: str | None) -> int:
    """How many calls the ratio of ``model`` rests on (at most :data:`WINDOW`)."""
    return len(state.calibration.get(model or "", []))


def apply(tokens: int, factor: float) -> int:
    """A raw estimate scaled by the ratio (rounded up)."""
    return tokens if factor == 1.0 else math.ceil(tokens * factor)


def describe(state: SessionState, model: str | None) -> str:
    """``estimates ×1.84, calibrated on 12 calls`` (``/context``, ``goosectx info``)."""
    n = calls(state, model)
    if not n:
        return "estimates uncalibrated (no provider report yet for this model)"
    return f"estimates ×{ratio(state, model):.2f}, calibrated on {n} call{'' if n == 1 else 's'}"
