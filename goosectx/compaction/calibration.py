"""Calibration: how far the provider's token counts sit from goosectx's estimates, per model.

docs/architecture.md §5 ("Calibrated estimates"). After every model call that reported its
input, the ratio reported input ÷ our estimate of the same request is kept per model (the
newest :data:`WINDOW`, in :attr:`goosectx.session.SessionState.calibration`, so it survives a
resume and switching back to a model restores its ratio). The running median is applied on
use to every estimate the trigger, the budgets and the displays use; stored per-message counts
stay raw. A model never used before starts uncalibrated (ratio 1.0). A context-length refusal
of a request the calibrated estimate said fits proves the ratio too low (:func:`refused`).
"""

from __future__ import annotations

import math

from goosectx.session import CALIBRATION_BOUNDS, CALIBRATION_WINDOW, SessionState

WINDOW = CALIBRATION_WINDOW
"""Newest ratios kept per model (the median is taken over them)."""
MIN_ESTIMATE_TOKENS = 50
"""Requests smaller than this are not used: their ratio is mostly noise."""
RATIO_BOUNDS = CALIBRATION_BOUNDS
"""A ratio outside these bounds is a mismatch (another request, a cached report): ignored
(and dropped when a stored state holds one: :meth:`SessionState.from_dict`)."""
MAX_REFUSAL_BOUND = 3.0
"""A refusal of a request estimated under a third of the limit says the limit is wrong (the
server runs a smaller window than configured), not the estimate: the ratio is kept."""


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


def refused(state: SessionState, model: str, context_limit_tokens: int,
            estimate_tokens: int) -> bool:
    """The provider refused a request as too long: drop ratios that said it fits.

    The request held more than ``context_limit_tokens``, so the true ratio is above
    ``context_limit_tokens ÷ estimate_tokens`` (raw estimate of that request). Ratios below
    that bound, or below 1 (a provider counting fewer tokens than tiktoken was just shown to
    mislead), are dropped; when none is left the model starts over: uncalibrated, or at the
    bound when it is above 1. A bound over :data:`MAX_REFUSAL_BOUND` changes nothing. Returns
    True when the ratio changed (the compaction that follows measures with it).
    """
    if estimate_tokens <= 0 or context_limit_tokens <= 0:
        return False
    bound = context_limit_tokens / estimate_tokens
    if bound > MAX_REFUSAL_BOUND:
        return False
    before = state.calibration.get(model, [])
    floor = max(1.0, bound)
    kept = [r for r in before if r >= floor]
    if kept == before:
        return False
    restart = [round(bound, 4)] if bound > 1 else []
    state.calibration[model] = kept or restart
    return True


def ratio(state: SessionState, model: str | None) -> float:
    """The running median for ``model`` (1.0 when uncalibrated)."""
    ratios = state.calibration.get(model or "")
    if not ratios:
        return 1.0
    from statistics import median  # here: an uncalibrated session never takes one

    return float(median(ratios))


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
