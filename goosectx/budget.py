"""The spending cap: a session's ``max_cost_usd``, checked before every model call.

Part of the core (docs/architecture.md §5, "The spending cap"): it never prints; what it has to
say is queued in :attr:`SpendingCap.notices` for the agent to yield.

One way reaches every call site: :meth:`SpendingCap.wrap` puts a thin :class:`CappedProvider`
around a provider, and its ``stream`` — which :func:`~goosectx.providers.base.complete` (the
compaction summary and tool-pair notes) calls too — checks the cap before delegating. The check
estimates the call's input tokens (our count × the model's calibration ratio) and prices them
with the model's input price (:meth:`Provider.prices`, litellm's cost map behind the adapter).
When what the session has spent plus that estimate would pass the cap, the call is not made:
:class:`~goosectx.errors.CostCapReached` is raised before anything is sent, so the turn ends
with the history as it was. A model without prices cannot be capped: the ledger keeps its cost
unknown and the cap says so once per model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from goosectx.conversation import Message
from goosectx.errors import CostCapReached
from goosectx.providers.base import ContextLimit, Provider, TokenPrices, ToolSchema
from goosectx.tokens import TokenCounter
from goosectx.usage import UsageLedger, format_cap_usd, format_cost_usd

if TYPE_CHECKING:
    from goosectx.config import Settings
    from goosectx.providers.base import StreamItem

RAISE_HINT = ("to go on, raise the cap: /max-cost USD in the REPL, --max-cost USD (goosectx, "
              "session, run), GOOSECTX_MAX_COST_USD or max_cost_usd in the config file")


def cap_source(source: str) -> str:
    """Where a cap came from, as the user set it, from ``Settings.source("max_cost_usd")``.

    ``--max-cost`` and ``/max-cost`` stay; ``env VAR`` → ``VAR``; ``config PATH`` →
    ``max_cost_usd in PATH``; anything else (a default, a test's settings) → ``max_cost_usd``.
    """
    if source.startswith("env "):
        return source.removeprefix("env ")
    if source.startswith("config "):
        return f"max_cost_usd in {source.removeprefix('config ')}"
    return source if source in ("--max-cost", "/max-cost") else "max_cost_usd"


def cap_text(spent_usd: float, cap_usd: float) -> str:
    """``$0.012 of $0.05`` (what ``/usage`` shows as spent / cap)."""
    return f"{format_cost_usd(spent_usd)} of {format_cap_usd(cap_usd)}"


class SpendingCap:
    """The cap of one session and what the session has spent.

    Args:
        cap_usd: ``max_cost_usd`` (``None``: no cap); the REPL's ``/max-cost`` changes it.
        ledger: The session's usage ledger (only appended to; read incrementally).
        counter_for: The token counter of a model (shared with the context manager's).
        ratio_for: The model's calibration ratio (reported input ÷ our estimate).
        source: Where the cap came from (:func:`cap_source`), named in what the cap says.
    """

    def __init__(self, cap_usd: float | None, ledger: UsageLedger,
                 counter_for: Callable[[str | None], TokenCounter],
                 ratio_for: Callable[[str], float], *, source: str = "max_cost_usd") -> None:
        self.cap_usd = cap_usd
        self.source = source
        """Where :attr:`cap_usd` came from; ``/max-cost`` sets both."""
        self.ledger = ledger
        self.counter_for = counter_for
        self.ratio_for = ratio_for
        self.notices: list[str] = []
        """Texts for the user, taken by :meth:`take_notices`."""
        self._unpriced_said: set[str] = set()
        self._summed = 0
        self._spent_usd = 0.0
        self._lock = threading.Lock()

    @classmethod
    def of(cls, settings: Settings, ledger: UsageLedger,
           counter_for: Callable[[str | None], TokenCounter],
           ratio_for: Callable[[str], float]) -> SpendingCap:
        """The cap ``settings`` give (``max_cost_usd`` and where it came from)."""
        return cls(settings.max_cost_usd, ledger, counter_for, ratio_for,
                   source=cap_source(settings.source("max_cost_usd")))

    def spent_usd(self) -> float:
        """The known cost of every call the session made (unknown costs count 0), USD.

        Incremental: only ledger entries added since the last call are summed.
        """
        entries = self.ledger.entries
        if len(entries) < self._summed:  # not expected (entries are only appended)
            self._summed, self._spent_usd = 0, 0.0
        for entry in entries[self._summed:]:
            self._spent_usd += entry.usage.cost_usd or 0.0
        self._summed = len(entries)
        return self._spent_usd

    @overload
    def wrap(self, provider: Provider) -> Provider: ...
    @overload
    def wrap(self, provider: None) -> None: ...
    @overload
    def wrap(self, provider: Provider | None) -> Provider | None: ...

    def wrap(self, provider: Provider | None) -> Provider | None:
        """``provider`` behind the cap (unchanged when already wrapped).

        Wrapped even without a cap: :attr:`cap_usd` may be set later (``/max-cost``), and a
        call then checks it; with none, :meth:`check` returns at once.
        """
        if provider is None:
            return provider
        if isinstance(provider, CappedProvider) and provider.cap is self:
            return provider
        inner = provider.inner if isinstance(provider, CappedProvider) else provider
        return CappedProvider(inner, self)

    def take_notices(self) -> list[str]:
        """The notices queued since the last call (forgotten here)."""
        with self._lock:
            out, self.notices = self.notices, []
        return out

    def estimate_input_tokens(self, model: str, system: str, messages: Sequence[Message],
                              tools: Sequence[ToolSchema]) -> int:
        """The calibrated estimate of a request's input tokens (counts cached per message)."""
        counter = self.counter_for(model)
        raw = (counter.count_cached_text(system) + counter.count_tool_schemas(tools)
               + counter.count_messages(messages))
        return int(raw * self.ratio_for(model) + 0.999)

    def check(self, provider: Provider, system: str, messages: Sequence[Message],
              tools: Sequence[ToolSchema]) -> None:
        """Allow the call, or raise before it is made.

        Raises:
            CostCapReached: spent + the call's estimated input cost would pass the cap; the
                message says what was spent, the cap and how to raise it.
        """
        cap = self.cap_usd
        if cap is None:
            return
        prices = _prices(provider)
        if prices is None:
            if provider.model not in self._unpriced_said:
                self._unpriced_said.add(provider.model)
                with self._lock:
                    self.notices.append(
                        f"the spending cap ({format_cap_usd(cap)}, set by {self.source}) "
                        f"cannot be enforced for {provider.model}: its prices are unknown, so "
                        "its calls are not counted")
            return
        spent = self.spent_usd()
        tokens = self.estimate_input_tokens(provider.model, system, messages, tools)
        estimate = tokens * prices.input_usd_per_token
        if spent + estimate > cap:
            raise CostCapReached(
                f"spending cap reached: {format_cost_usd(spent)} spent of the "
                f"{format_cap_usd(cap)} cap (set by {self.source}), and the next call to "
                f"{provider.model} (~{tokens:,} input tokens) would cost about "
                f"{format_cost_usd(estimate)}; it was not made", RAISE_HINT)


def _prices(provider: Provider) -> TokenPrices | None:
    """The provider's prices; a provider without the method counts as unpriced."""
    method = getattr(provider, "prices", None)
    return method() if callable(method) else None


class CappedProvider:
    """A provider whose every call is checked against a :class:`SpendingCap` first.

    Everything but ``stream`` is the wrapped provider's (attributes are read through).
    """

    def __init__(self, inner: Provider, cap: SpendingCap) -> None:
        self.inner = inner
        self.cap = cap
        self.model = inner.model
        self.manages_own_context = inner.manages_own_context

    def context_limit(self) -> ContextLimit:
        """The wrapped provider's context limit."""
        return self.inner.context_limit()

    def output_limit_tokens(self) -> int:
        """The wrapped provider's output limit."""
        return self.inner.output_limit_tokens()

    def prices(self) -> TokenPrices | None:
        """The wrapped provider's prices."""
        return _prices(self.inner)

    def stream(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSchema], *,
               max_tokens: int | None = None, tool_choice: str | None = None,
               cancel: threading.Event | None = None,
               retries: int | None = None) -> Iterator[StreamItem]:
        """Check the cap, then stream the wrapped provider's call (``retries`` passed on).

        Raises:
            CostCapReached: at once, before anything is sent.
        """
        self.cap.check(self.inner, system, messages, tools)
        return self.inner.stream(system, messages, tools, max_tokens=max_tokens,
                                 tool_choice=tool_choice, cancel=cancel, retries=retries)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
