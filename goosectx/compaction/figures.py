"""The figures of one session's context: ``current``, the last report, the counters, the limit.

:class:`ContextFigures` holds what every figure is made from (the session, the settings, the
providers wrapped in the spending cap, a token counter per model, the last report and the
messages it covers) and computes ``current``, the ``/context`` breakdown and the compaction
budget from them (docs/architecture.md §5). :class:`~goosectx.compaction.manager.ContextManager`
adds the hooks and the compaction commands on top; :class:`RequestContext` is the fixed part
of every request both are given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import TYPE_CHECKING

from goosectx.budget import SpendingCap
from goosectx.compaction import calibration
from goosectx.compaction.budget import Budget, settings_budget
from goosectx.compaction.guard import CompactionGuard
from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS, Settings
from goosectx.plain_record import mutable_record
from goosectx.providers.base import ContextLimit, Provider, ToolSchema
from goosectx.session import Session, TokenCount
from goosectx.tokens import ContextBreakdown, TokenCounter

if TYPE_CHECKING:
    from datetime import datetime

    from goosectx.config import ApprovalMode
    from goosectx.tools.definitions import ToolExtras, ToolList


@mutable_record  # compared, printed nowhere (a test)
class RequestContext:
    """The fixed part of every request.

    Attributes:
        system_prompt: The full system prompt sent (project instructions included).
        project_instructions: The part of ``system_prompt`` that came from ``.goosehints`` /
            ``AGENTS.md`` (for the ``/context`` breakdown).
        tool_schemas: The tools as sent.
        extension_instructions: (extension, its instructions as sent) in ``system_prompt``.
        tools_settled: False while tools that come and go between turns (extensions) have
            not been offered yet — before a resumed REPL's first turn — so ``tool_schemas``
            may lack tools the next request will carry: ``current`` then keeps the stored
            report's fixed part instead of correcting it by this request's.
    """

    system_prompt: str
    project_instructions: str = ""
    tool_schemas: list[ToolSchema] = field(default_factory=list)
    tools_settled: bool = True
    extension_instructions: tuple[tuple[str, str], ...] = ()


def sends_tools(session: Session, mode: ApprovalMode) -> bool:
    """Whether the next request carries the tool schemas.

    Not in ``chat`` mode while the agent view holds no tool call; once it holds one they are
    sent, because providers reject tool calls in a request without tools.
    """
    return mode != "chat" or any(
        m.tool_requests for m in session.conversation.agent_view(for_sending=False))


def next_request(session: Session, mode: ApprovalMode, tools: ToolList,
                 offering: ToolExtras, *, tools_sent: bool,
                 project_instructions: str) -> RequestContext:
    """The system prompt and tool schemas of ``session``'s next request.

    :attr:`Agent.request_context <goosectx.agent.Agent.request_context>` makes it;
    ``goosectx compact`` too, without an agent.
    """
    from goosectx.prompts import build_system_prompt

    extension_instructions = tuple(offering.instructions())
    prompt = build_system_prompt(
        session.working_dir, tool_names=tools.names(), mode=mode,
        project_instructions=project_instructions,
        extension_instructions=extension_instructions, deferred_tools=offering.deferred)
    return RequestContext(prompt.text, prompt.project_instructions,
                          tools.schemas() if tools_sent else [],
                          tools_settled=offering.settled,
                          extension_instructions=extension_instructions)


class ContextFigures:
    """The figures of one session's context (the state :class:`ContextManager` works on).

    Args:
        session: The in-memory session (its ledger's ``current`` is set here).
        settings: Resolved settings (limit, threshold, spending cap...).
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
        self.counter = TokenCounter(provider.model if provider else session.model,
                                    stored=session.token_counts)
        self._counters: dict[str | None, TokenCounter] = {self.counter.model: self.counter}
        self.budget = SpendingCap.of(settings, session.ledger, self._counter_for,
                                     lambda model: calibration.ratio(session.state, model))
        self.provider, self.summarizer = self.budget.wrap(provider), self.budget.wrap(summarizer)
        self._reactive_this_turn = 0
        self.guard = CompactionGuard(session.state)
        self._call_estimate: int | None = None
        self._reported_tokens: int | None = None
        self._covered_ids: set[str] = set()
        self._fixed_memo: tuple[TokenCounter, list[ToolSchema], str, int] | None = None
        ledger = session.ledger
        if ledger.current_tokens > 0 and not ledger.current_is_estimate:
            # A resumed session: the stored report covered the history up to its last reply.
            agent = session.conversation.agent_messages()
            last = max((i for i, m in enumerate(agent) if m.role == "assistant"), default=-1)
            self._reported_tokens = ledger.current_tokens
            self._covered_ids = {m.id for m in agent[:last + 1]}

    def set_provider(self, provider: Provider | None) -> None:
        """Switch the main model (``/model``); its limit applies to the next call."""
        self.provider = self.budget.wrap(provider)
        self.counter = self._counter_for(provider.model if provider else None)

    def estimate_ratio(self) -> float:
        """The main model's calibration ratio: every estimate is multiplied by it (1.0 = none)."""
        return calibration.ratio(self.session.state, self._model())

    def _model(self) -> str | None:
        return self.provider.model if self.provider else self.session.model

    def _counter_for(self, model: str | None) -> TokenCounter:
        if model not in self._counters:
            self._counters[model] = self.counter.alongside(model)
        return self._counters[model]

    def take_fresh_token_counts(self) -> dict[str, TokenCount]:
        """Raw counts made since the last call (by message id), for the recorder to store."""
        return take_fresh_counts(self._counters.values(), self.session.token_counts)

    @property
    def manages_own_context(self) -> bool:
        """True when the main model manages its own context: goosectx never compacts it."""
        if self.provider is not None:
            return bool(self.provider.manages_own_context)
        return self.settings.model_config(self.session.model).manages_own_context

    def context_limit(self) -> ContextLimit:
        """The main model's context limit (default 128,000 with no model)."""
        if self.provider is None:
            limit = self.settings.context_limit_tokens or DEFAULT_CONTEXT_LIMIT_TOKENS
            return ContextLimit(limit, self.settings.source("context_limit_tokens"))
        from goosectx.compaction.stated_limit import kept_limit

        return kept_limit(self.session.state, self.provider, self.provider.context_limit())

    def current_tokens(self, request: RequestContext,
                       breakdown: ContextBreakdown | None = None) -> tuple[int, bool]:
        """(``current``, is_estimate) (docs/architecture.md §5): the trigger's and displays' figure.

        The last report (input + output) plus the calibrated estimate of messages added since
        and of the change of the request's fixed part since (tools or instructions added or
        removed, a resume without an extension); with no report, the calibrated estimate of
        the whole next request (or of ``breakdown``). An estimated part makes it an estimate.
        """
        ratio = self.estimate_ratio()
        if self._reported_tokens is None:
            b = self.breakdown(request) if breakdown is None else breakdown
            return calibration.apply(b.total, ratio), True
        added = [m for m in self.session.conversation.agent_messages()
                 if m.id not in self._covered_ids]
        covered = self.session.state.report_fixed_tokens
        shift = (0 if covered is None or not request.tools_settled
                 else self.fixed_tokens(request) - covered)
        raw = self.counter.count_messages(added) + shift
        return max(0, self._reported_tokens + calibration.apply(raw, ratio)), bool(added or shift)

    def note_figure(self, request: RequestContext) -> tuple[int, bool]:
        """:meth:`current_tokens`, also kept in the session state for ``sessions list``.

        (``SessionState.context_figure``: stored with the state's next write.)
        """
        current, estimated = self.current_tokens(request)
        self.session.note_context_figure(current, estimated)
        return current, estimated

    def fixed_tokens(self, request: RequestContext) -> int:
        """Raw estimate of the request's fixed part, as :meth:`breakdown` counts it.

        The system prompt (project instructions included) and the tool schemas, in tokens.
        Kept for the last schema list seen (a request's list is made anew, never changed in
        place), so the toolbar's figure does not serialise 60k tokens of schemas each time.
        """
        memo = self._fixed_memo
        if (memo is None or memo[0] is not self.counter or memo[1] is not request.tool_schemas
                or memo[2] != request.system_prompt):
            tokens = (self.counter.count_cached_text(request.system_prompt)
                      + self.counter.count_tool_schemas(request.tool_schemas))
            memo = self._fixed_memo = (self.counter, request.tool_schemas,
                                       request.system_prompt, tokens)
        return memo[3]

    def fixed_part_notice(self, request: RequestContext) -> str | None:
        """Why compaction cannot help when the fixed part alone is over the threshold, or ``None``.

        Names the extensions whose tool schemas (``NAME__tool``) or instructions the request
        carries, largest first, with what they cost (``decide.fixed_part_notice``).
        """
        cause = self.fixed_part_cause(request, self.settings.threshold_ratio)
        if cause is None:
            return None
        from goosectx.compaction.decide import fixed_part_notice  # (a dry run: none of it)

        return fixed_part_notice(*cause)

    def fixed_part_cause(self, request: RequestContext, ratio: float
                         ) -> tuple[int, int, list[tuple[str, int, int, int]],
                                    tuple[float, str]] | None:
        """What the fixed part takes when it alone is at least ``ratio`` of the limit.

        ``(fixed tokens, limit, extensions, (threshold, its source))``, extensions as
        ``decide.fixed_part_notice``; ``None`` when the fixed part is below that.
        """
        limit = self.context_limit().tokens
        fixed = self.fixed_tokens(request)
        if fixed < limit * ratio:
            return None
        groups: dict[str, list[ToolSchema]] = {}
        for schema in request.tool_schemas:
            extension, sep, _ = str(schema.get("name", "")).partition("__")
            if sep and extension:
                groups.setdefault(extension, []).append(schema)
        instructions = {name: self.counter.count_cached_text(text)
                        for name, text in request.extension_instructions}
        extensions = sorted(((name, len(groups.get(name, [])),
                              self.counter.count_tool_schemas(groups.get(name, [])),
                              instructions.get(name, 0))
                             for name in {*groups, *instructions}),
                            key=lambda e: (-e[2] - e[3], e[0]))
        threshold = (self.settings.threshold_ratio, self.settings.source("threshold_ratio"))
        return fixed, limit, extensions, threshold

    def breakdown(self, request: RequestContext) -> ContextBreakdown:
        """Token estimate of the next full request by category (for ``/context``)."""
        return self.counter.breakdown(
            system_prompt=request.system_prompt, project_instructions=request.project_instructions,
            tool_schemas=request.tool_schemas, messages=self.session.conversation.agent_messages())

    def layout_budget(self, request: RequestContext,
                      breakdown: ContextBreakdown | None = None) -> Budget:
        """The one budget rule for the next compaction (docs/architecture.md §5)."""
        b = self.breakdown(request) if breakdown is None else breakdown
        return settings_budget(self.settings, self.context_limit().tokens,
                               b.total - b.messages - b.summary, self.estimate_ratio())

    def recount_restored(self, request: RequestContext, made: datetime) -> tuple[int, bool]:
        """``current`` of the view an undo restored (compaction ``made`` then).

        With no reply since the compaction, the last reply's report covers that view again
        (up to its last reply, as a resumed session's does): ``current`` is what it was before
        the compaction, not a fresh estimate that a later dry run would set against it.
        """
        replies = [e for e in self.session.ledger.entries if e.purpose == "reply"]
        if not replies or not replies[-1].usage.total_tokens or replies[-1].created >= made:
            return self._set_estimate(request), True
        agent = self.session.conversation.agent_messages()
        last = max((i for i, m in enumerate(agent) if m.role == "assistant"), default=-1)
        self._reported_tokens = replies[-1].usage.input_tokens + replies[-1].usage.output_tokens
        self._covered_ids = {m.id for m in agent[:last + 1]}
        ledger = self.session.ledger
        ledger.current_tokens, ledger.current_is_estimate = self.current_tokens(request)
        return ledger.current_tokens, ledger.current_is_estimate

    def _set_estimate(self, request: RequestContext) -> int:
        """Forget the last report; ``current`` becomes the estimate of the next request."""
        self._reported_tokens = None
        self._covered_ids = set()
        self.session.state.report_fixed_tokens = None
        tokens = calibration.apply(self.breakdown(request).total, self.estimate_ratio())
        self.session.ledger.current_tokens = tokens
        self.session.ledger.current_is_estimate = True
        self.session.note_context_figure(tokens, True)
        return tokens


def take_fresh_counts(counters: Iterable[TokenCounter], stored: dict[str, TokenCount]
                      ) -> dict[str, TokenCount]:
    """The counts made since the last call by the ``counters`` that fill ``stored``."""
    fresh: dict[str, TokenCount] = {}
    for counter in counters:
        if counter.stored is stored:
            fresh.update(counter.take_fresh())
        else:
            counter.save_kept_counts()
    return fresh
