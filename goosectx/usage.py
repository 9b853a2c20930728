"""Token usage of model calls and the session's usage ledger.

A session keeps two figures (DESIGN.md §2):

* ``current`` — the size of the full request the model last saw, in tokens: the last call's
  reported ``input_tokens + output_tokens``; after a compaction, the estimate of the next
  full request. Display and the auto-compaction trigger read this one figure.
* ``accumulated`` — everything billed, compaction and tool-pair summary calls included.
"""

from __future__ import annotations

import math
from dataclasses import field
from datetime import UTC, datetime
from typing import Any, Literal

from goosectx.plain_record import compared_record, frozen_record, mutable_record

CallPurpose = Literal["reply", "compaction", "tool_pairs"]

COST_UNKNOWN = "cost unknown"
"""What every surface says for a cost of ``None`` (a model without prices), once a session."""
NOT_REPORTED = "not reported"
"""What ``/usage`` says for the tokens of calls whose provider reported none
(:attr:`Usage.reported`), never 0."""


MAX_TOKENS = 10**12
"""The largest token figure a session takes from a file (an import, a stored row): far above
any real call or session, far below what SQLite's 64-bit integers hold."""
MAX_COST_USD = 1e9
"""The largest cost a session takes from a file (US dollars)."""


def read_tokens(value: Any, name: str, *, optional: bool = False) -> int | None:
    """``value`` as a token figure named ``name`` (``None``/absent → 0, or ``None`` if optional).

    Takes what an export writes (a whole number); a whole number given as text or as a float
    with no fraction reads as well, as it always did.

    Raises:
        ValueError: ``"NAME" must be a whole number from 0 to 1,000,000,000,000, not …``.
    """
    if value is None:
        return None if optional else 0
    number: int | None = None
    if not isinstance(value, bool):
        try:
            number = int(value) if isinstance(value, int | str) or (
                isinstance(value, float) and value.is_integer()) else None
        except (ValueError, OverflowError):
            number = None
    if number is None or not 0 <= number <= MAX_TOKENS:
        shown = _shown_number(value)
        raise ValueError(f'"{name}" must be a whole number from 0 to {MAX_TOKENS:,}, not {shown}')
    return number


def read_cost_usd(value: Any, name: str = "cost_usd") -> float | None:
    """``value`` as a cost in US dollars (``None`` stays unknown).

    Raises:
        ValueError: not a finite number from 0 to :data:`MAX_COST_USD` (NaN, a negative cost).
    """
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not 0 <= value <= MAX_COST_USD):  # (NaN compares false)
        raise ValueError(f'"{name}" must be a number of dollars from 0 to {MAX_COST_USD:,.0f}, '
                         f"not {_shown_number(value)}")
    return float(value)


def _shown_number(value: Any) -> str:
    """``value`` for an error line: a number as it reads (a long one by its size), else its kind."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return f"{value:,}" if digits <= 16 else f"a {digits}-digit number"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return f"the text {value[:20]!r}"
    return "a list" if isinstance(value, list) else (
        "an object" if isinstance(value, dict) else type(value).__name__)


def format_cost_usd(cost_usd: float | None) -> str:
    """The one cost formatter: two significant digits, never scientific notation.

    ``0.000066`` → ``$0.000066``, ``0.0123`` → ``$0.012``, ``0.5`` → ``$0.50``; from one
    dollar up, cents: ``12.3456`` → ``$12.35``, ``1234.5`` → ``$1,234.50``; ``0`` → ``$0.00``;
    ``None`` → :data:`COST_UNKNOWN`.
    """
    if cost_usd is None:
        return COST_UNKNOWN
    if cost_usd <= 0 or not math.isfinite(cost_usd):
        return "$0.00" if cost_usd == 0 else f"${cost_usd}"
    rounded = float(f"{cost_usd:.2g}")  # two significant digits (may round up to a power of 10)
    if rounded >= 1:
        return f"${cost_usd:,.2f}"
    decimals = 1 - math.floor(math.log10(rounded))
    return f"${rounded:.{decimals}f}"


def format_cap_usd(cap_usd: float) -> str:
    """A spending cap, never rounded away from the amount that was set.

    :func:`format_cost_usd` when that shows it exactly (``0.001`` → ``$0.0010``, ``5`` →
    ``$5.00``), else every digit it was given, at least cents (``0.123456`` → ``$0.123456``,
    ``12.3456`` → ``$12.3456``): a cap shown as ``$0.12`` would say calls stop sooner than they do.
    """
    shown = format_cost_usd(cap_usd)
    if not math.isfinite(cap_usd) or float(shown.lstrip("$").replace(",", "")) == cap_usd:
        return shown
    from decimal import Decimal  # (here: ~0.7 ms at import, for a cap's rare wording)

    whole, _, decimals = f"{Decimal(repr(cap_usd)):,f}".partition(".")
    return f"${whole}.{decimals.ljust(2, '0')}"


@frozen_record
class Usage:
    """Token usage of one model call, or a sum of calls.

    Attributes:
        input_tokens: Prompt tokens, cached input included.
        output_tokens: Completion tokens.
        total_tokens: ``input_tokens + output_tokens`` unless the provider said otherwise.
        cache_read_tokens: Input tokens served from the provider's cache, if reported.
        cache_write_tokens: Input tokens written to the provider's cache, if reported.
        cost_usd: Cost in US dollars; ``None`` means unknown (never 0 for unknown).
        estimated: The figures are our estimate, not the provider's report: a summary reply
            stopped past twice its budget was billed, but its stream was closed before any
            usage came (:func:`estimated_usage`). A sum is estimated when any part is.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost_usd: float | None = None
    estimated: bool = False

    @property
    def reported(self) -> bool:
        """False for a call whose provider reported no usage (many local servers streaming).

        Such a call is kept as zeros (the ledger's columns hold numbers); a call that was
        reported always has input tokens, so zeros say "not reported", never "0 tokens".
        """
        return bool(self.input_tokens or self.output_tokens or self.total_tokens)

    @classmethod
    def of(cls, input_tokens: int, output_tokens: int, cost_usd: float | None = None) -> Usage:
        """Build a usage with ``total_tokens`` = input + output."""
        return cls(input_tokens, output_tokens, input_tokens + output_tokens, cost_usd=cost_usd)

    def __add__(self, other: Usage) -> Usage:
        def opt_add(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        cost: float | None
        if self.cost_usd is None and other.cost_usd is None:
            cost = None
        else:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.total_tokens + other.total_tokens,
            opt_add(self.cache_read_tokens, other.cache_read_tokens),
            opt_add(self.cache_write_tokens, other.cache_write_tokens),
            cost,
            self.estimated or other.estimated,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (snake_case keys; ``estimated`` only when true)."""
        out: dict[str, Any] = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cost_usd": self.cost_usd,
        }
        if self.estimated:
            out["estimated"] = True
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        """Inverse of :meth:`to_dict`; missing keys take their defaults.

        Reads a stored row as it always has (a figure is taken as ``int`` makes it); a file
        from elsewhere takes :meth:`checked_from_dict`.
        """
        return cls(
            int(data.get("input_tokens") or 0),
            int(data.get("output_tokens") or 0),
            int(data.get("total_tokens") or 0),
            data.get("cache_read_tokens"),
            data.get("cache_write_tokens"),
            data.get("cost_usd"),
            data.get("estimated") is True,
        )

    @classmethod
    def checked_from_dict(cls, data: dict[str, Any]) -> Usage:
        """:meth:`from_dict` of a file from elsewhere (an import): every figure checked.

        Raises:
            ValueError: a figure that is no token count or cost (:func:`read_tokens`,
                :func:`read_cost_usd`), naming the field.
        """
        return cls(
            read_tokens(data.get("input_tokens") or 0, "input_tokens") or 0,
            read_tokens(data.get("output_tokens") or 0, "output_tokens") or 0,
            read_tokens(data.get("total_tokens") or 0, "total_tokens") or 0,
            read_tokens(data.get("cache_read_tokens"), "cache_read_tokens", optional=True),
            read_tokens(data.get("cache_write_tokens"), "cache_write_tokens", optional=True),
            read_cost_usd(data.get("cost_usd")),
            data.get("estimated") is True,
        )


def estimated_usage(input_tokens: int, output_tokens: int, input_usd_per_token: float | None,
                    output_usd_per_token: float | None) -> Usage:
    """A call's usage by our count (:attr:`Usage.estimated`), priced at the model's list prices.

    ``input_usd_per_token`` ``None``: the model has no prices, the cost is unknown; an output
    price not listed counts 0 (as litellm prices such a model).
    """
    cost = (None if input_usd_per_token is None else
            input_tokens * input_usd_per_token + output_tokens * (output_usd_per_token or 0.0))
    return Usage(input_tokens, output_tokens, input_tokens + output_tokens, cost_usd=cost,
                 estimated=True)


def cost_text(cost_usd: float | None, estimated: bool = False) -> str:
    """:func:`format_cost_usd`, or ``~$0.0040 (estimate)`` for an ``estimated`` known cost."""
    shown = format_cost_usd(cost_usd)
    return f"~{shown} (estimate)" if estimated and cost_usd is not None else shown


UNKNOWN_MODEL = "(unknown model)"
"""The model of a ledger entry whose source named none (an import), as kept and shown."""


@compared_record  # read-only to mypy; printed nowhere (a test)
class LedgerEntry:
    """One billed model call in a session's ledger.

    Attributes:
        usage: What the call used and cost.
        model: The model that answered, as litellm names it; :data:`UNKNOWN_MODEL` for a
            call whose source did not record it (a goose database's ledger can leave it empty).
        purpose: ``reply`` (a turn's model call), ``compaction`` or ``tool_pairs``.
        created: When the call finished (UTC).
    """

    usage: Usage
    model: str
    purpose: CallPurpose = "reply"
    created: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        if not self.model or not self.model.strip():  # kept (its figures count), labelled
            object.__setattr__(self, "model", UNKNOWN_MODEL)

    @property
    def is_compaction(self) -> bool:
        """True for a compaction's summary call."""
        return self.purpose == "compaction"

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form used by exports (a call not reported: its tokens ``null``)."""
        figures = _reported_figures(self.usage)  # read back as not reported
        return {
            "model": self.model,
            "purpose": self.purpose,
            "is_compaction": self.is_compaction,
            "created": self.created.isoformat(),
            **figures,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LedgerEntry:
        """Inverse of :meth:`to_dict`, for an export's ledger (every figure checked).

        Raises:
            ValueError: an unknown purpose, a time that does not read, or a figure
                :meth:`Usage.checked_from_dict` refuses (each naming the field).
        """
        raw = data.get("purpose") or ("compaction" if data.get("is_compaction") else "reply")
        purposes: dict[str, CallPurpose] = {
            "reply": "reply", "compaction": "compaction", "tool_pairs": "tool_pairs"}
        if raw not in purposes:
            raise ValueError(f"unknown ledger purpose {raw!r}")
        created = data.get("created")
        try:
            when = datetime.fromisoformat(created) if created else datetime.now(UTC)
        except (TypeError, ValueError):
            raise ValueError('"created" must be an ISO 8601 time (text), not '
                             f"{_shown_number(created)}") from None
        return cls(Usage.checked_from_dict(data), str(data.get("model") or ""), purposes[raw],
                   when)


def summed_to_dict(usage: Usage, unreported_calls: int) -> dict[str, Any]:
    """The JSON form of a sum of calls, ``unreported_calls`` of which reported no usage.

    ``run``'s ``result`` usage and a ``usage_updated`` event's ``accumulated``: the calls
    that reported none are counted in ``unreported_calls``; when no call was reported, the
    token figures are ``null`` (unknown), not 0.
    """
    figures = _reported_figures(usage) if unreported_calls else usage.to_dict()
    return {**figures, "unreported_calls": unreported_calls}


def _reported_figures(usage: Usage) -> dict[str, Any]:
    """``usage.to_dict()``, its token figures ``null`` (unknown, not 0) when none was reported."""
    figures = usage.to_dict()
    if not usage.reported:
        figures.update(input_tokens=None, output_tokens=None, total_tokens=None)
    return figures


@mutable_record  # compared, printed nowhere (a test)
class UsageLedger:
    """All billed calls of a session plus its ``current`` context figure.

    Attributes:
        entries: Every billed call, oldest first.
        current_tokens: Size of the full request the model last saw (see module docstring).
        current_is_estimate: True when ``current_tokens`` is our tiktoken estimate rather than
            a provider-reported figure.
    """

    entries: list[LedgerEntry] = field(default_factory=list)
    current_tokens: int = 0
    current_is_estimate: bool = True

    def unreported(self, purpose: CallPurpose | None = None) -> int:
        """How many calls (of one purpose) reported no usage (:attr:`Usage.reported`)."""
        return sum(1 for e in self.entries
                   if (purpose is None or e.purpose == purpose) and not e.usage.reported)

    def estimated(self) -> int:
        """How many calls' usage is our estimate (:attr:`Usage.estimated`)."""
        return sum(1 for e in self.entries if e.usage.estimated)

    def accumulated(self, purpose: CallPurpose | None = None) -> Usage:
        """Sum of the ledger, optionally only the calls of one purpose."""
        total = Usage()
        for entry in self.entries:
            if purpose is None or entry.purpose == purpose:
                total = total + entry.usage
        return total
