"""The context manager: the agent loop's one entry point into context management.

CONTRACT (shared by the agent loop, the REPL and ``goosectx compact``). The manager works on
the in-memory :class:`~goosectx.session.Session`: it mutates ``session.conversation``,
``session.ledger`` and ``session.state`` and yields an event for every change, which the
session recorder mirrors into SQLite. It never prints and never touches the store.

TEMPORARY: this file is the interface skeleton; the compaction issue replaces the bodies.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from goosectx.config import Settings
from goosectx.events import Event, UsageUpdated
from goosectx.providers.base import ContextLimit, Provider, ToolSchema
from goosectx.session import Session
from goosectx.tokens import ContextBreakdown, TokenCounter
from goosectx.usage import CallPurpose, LedgerEntry, Usage

DEFAULT_CONTEXT_LIMIT_TOKENS = 128_000


@dataclass(slots=True)
class RequestContext:
    """The fixed part of every request.

    Attributes:
        system_prompt: The full system prompt sent (project instructions included).
        project_instructions: The part of ``system_prompt`` that came from ``.goosehints`` /
            ``AGENTS.md`` (for the ``/context`` breakdown).
        tool_schemas: The tools as sent.
    """

    system_prompt: str
    project_instructions: str = ""
    tool_schemas: list[ToolSchema] = field(default_factory=list)


class ContextManager:
    """Decides and runs compaction for one session.

    Args:
        session: The in-memory session (mutated).
        settings: Resolved settings (threshold, cutoff, compaction model...).
        provider: The main model, or ``None`` when no model is configured.
        summarizer: The ``compaction_model`` provider, or ``None`` to use ``provider``.
    """

    def __init__(
        self,
        session: Session,
        settings: Settings,
        provider: Provider | None,
        *,
        summarizer: Provider | None = None,
    ) -> None:
        self.session = session
        self.settings = settings
        self.provider = provider
        self.summarizer = summarizer
        self.counter = TokenCounter(provider.model if provider else session.model)

    def set_provider(self, provider: Provider | None) -> None:
        """Switch the main model (``/model``); its limit applies to the next call."""
        self.provider = provider
        self.counter = TokenCounter(provider.model if provider else None)

    def context_limit(self) -> ContextLimit:
        """The main model's context limit (default 128,000 with no model)."""
        if self.provider is None:
            limit = self.settings.context_limit_tokens or DEFAULT_CONTEXT_LIMIT_TOKENS
            return ContextLimit(limit, self.settings.source("context_limit_tokens"))
        return self.provider.context_limit()

    def current_tokens(self, request: RequestContext) -> tuple[int, bool]:
        """``current`` per DESIGN.md §4.1: (tokens, is_estimate)."""
        b = self.breakdown(request)
        return b.total, True

    def breakdown(self, request: RequestContext) -> ContextBreakdown:
        """Token estimate of the next full request by category."""
        return self.counter.breakdown(
            system_prompt=request.system_prompt,
            project_instructions=request.project_instructions,
            tool_schemas=request.tool_schemas,
            messages=self.session.conversation.agent_messages(),
        )

    def start_turn(self) -> None:
        """Reset per-turn counters (reactive compactions this turn)."""

    def record_call(
        self, usage: Usage | None, request: RequestContext, *, model: str,
        purpose: CallPurpose = "reply",
    ) -> UsageUpdated:
        """Record a finished model call (call AFTER its reply message was appended).

        Adds a ledger entry (usage unknown → zero tokens, cost ``None``), sets ``current`` to
        the reported input + output (or the estimate when nothing was reported) and returns
        the event to yield.
        """
        entry = LedgerEntry(usage or Usage(), model, purpose)
        self.session.ledger.entries.append(entry)
        if usage is not None and usage.total_tokens and purpose == "reply":
            self.session.ledger.current_tokens = usage.input_tokens + usage.output_tokens
            self.session.ledger.current_is_estimate = False
        elif purpose == "reply":
            self.session.ledger.current_tokens, _ = self.current_tokens(request)
            self.session.ledger.current_is_estimate = True
        return UsageUpdated(
            entry, self.session.ledger.current_tokens, self.session.ledger.accumulated(),
            self.context_limit().tokens, self.session.ledger.current_is_estimate,
        )

    def before_call(self, request: RequestContext) -> Iterator[Event]:
        """Auto-compaction check before every model call; may yield a compaction's events."""
        return iter(())

    def on_context_exceeded(self, request: RequestContext) -> Iterator[Event]:
        """Reactive compaction after ``ContextLengthExceeded``; re-raises it past 2 per turn."""
        from goosectx.errors import ContextLengthExceeded

        raise ContextLengthExceeded("the request does not fit the context window")

    def after_call(self, request: RequestContext) -> Iterator[Event]:
        """Tool-pair summarisation after a model call."""
        return iter(())

    def compact(
        self, request: RequestContext, *, trigger: str = "manual",
        instructions: str | None = None, strategy: str = "llm",
    ) -> Iterator[Event]:
        """Compact now (``/compact``, ``goosectx compact``)."""
        raise NotImplementedError

    def clear(self, request: RequestContext) -> Iterator[Event]:
        """``/clear``: hide the whole history from the model, reset ``current``, lift pause."""
        raise NotImplementedError
