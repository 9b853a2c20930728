"""The agent's tool calls: the approval decision, the question, running one call.

Part of :class:`goosectx.agent.Agent` (docs/architecture.md §4, §5), kept apart so the loop
module stays one concept: :class:`AgentTools` is the mixin the agent inherits. Core module:
no printing, no adapter imports.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator

from goosectx.approval import (
    ApprovalAnswer,
    ApprovalContext,
    ApprovalFn,
    ApprovalVerdict,
    PermissionRules,
    cancelled_text,
    decide,
    denied_text,
    non_interactive_denied_text,
    stopped_running_text,
)
from goosectx.compaction.manager import ContextManager
from goosectx.config import ApprovalMode, Settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.events import Event, ToolCallStarted
from goosectx.session import Session
from goosectx.testhooks import pause_point
from goosectx.tools.base import ToolContext, ToolRegistry
from goosectx.tools.offering import ToolOffering
from goosectx.tools.runner import (
    cap_output,
    fit_output_tokens,
    output_cap_chars,
    output_cap_tokens,
    run_tool,
)
from goosectx.turn import Turn

log = logging.getLogger("goosectx.agent")


def tool_identity(name: str, tool: object | None) -> str:
    """The tool behind ``name``, as an "always allow" answer remembers it.

    An extension tool's ``identity`` (its server's spec and the server's own name for the
    tool: another server given the same extension name, or another of the server's tools
    offered under the name after a restart, is another tool); a built-in tool's name.
    """
    identity = getattr(tool, "identity", None)
    return identity if isinstance(identity, str) else name


def _still(allowed: dict[str, str], name: str, identity: str) -> frozenset[str]:
    """``{name}`` while ``allowed`` holds it for the tool ``identity``; else nothing."""
    return frozenset({name}) if allowed.get(name) == identity else frozenset()


class CancelTurn(Exception):
    """The user answered "cancel" to an approval prompt."""


class AgentTools:
    """How :class:`~goosectx.agent.Agent` decides on, asks about and runs one tool call."""

    session: Session
    settings: Settings
    tools: ToolRegistry
    approve: ApprovalFn
    mode: ApprovalMode
    interactive: bool
    always_allowed: dict[str, str]
    reads_allowed: dict[str, str]
    rules: PermissionRules
    offering: ToolOffering
    context: ContextManager
    progress: Callable[[str], None] | None
    writing: Callable[[str], None] | None
    stopped_by: Callable[[], str | None]
    _tool_context: ToolContext | None
    _turn_id: str
    _asking: tuple[ToolRequest, ApprovalVerdict] | None = None
    """The call being asked about and the decision that asks (:meth:`verdict_of` gives it)."""

    def _verdict(self, request: ToolRequest, tools: ToolRegistry) -> ApprovalVerdict:
        """The approval decision for ``request`` to one of ``tools`` (docs/architecture.md §4)."""
        tool, arguments = tools.get(request.name), request.arguments
        identity = tool_identity(request.name, tool)
        verdict = decide(ApprovalContext(
            mode=self.mode, tool_name=request.name, read_only=self.is_read_only(request, tools),
            working_dir=self.session.working_dir, arguments=arguments or {},
            rules=self.rules, always_allowed=_still(self.always_allowed, request.name, identity),
            reads_allowed=_still(self.reads_allowed, request.name, identity),
            data_dir=self.settings.data_dir, config_file=self.settings.config_file,
            extension_trusted=getattr(tool, "extension_trusted", None)))
        log.debug("approval of %s: %s (%s)", request.name, verdict.action, verdict.reason)
        return verdict

    def verdict_of(self, request: ToolRequest) -> ApprovalVerdict:
        """The approval decision on ``request`` (the question and ``run``'s notice say why).

        For the call being asked about, the decision that asks (made once, with the tools
        the call was judged against, a deferred extension tool's included); else a new one.
        """
        if self._asking is not None and self._asking[0] is request:
            return self._asking[1]
        return self._verdict(request, self.tools)

    def is_read_only(self, request: ToolRequest, tools: ToolRegistry | None = None) -> bool:
        """The tool's claim that this call changes nothing (False: unknown tool, bad JSON).

        ``tools``: where the tool is looked up (the offered ones and a deferred one called by
        name); the session's registry by default.
        """
        tool = (self.tools if tools is None else tools).get(request.name)
        arguments = request.arguments
        return tool is not None and arguments is not None and tool.is_read_only(arguments)

    def always_reads_only(self, request: ToolRequest) -> bool:
        """``a`` (always allow) at ``request`` allows only the tool's read-only calls.

        True for a read-only call of a tool whose calls differ (``text_editor view``: its edits
        still ask). An extension tool's read-only annotation is the whole tool's, so ``a``
        there allows the tool (README: Extensions > Approval).
        """
        tool = self.tools.get(request.name)
        return (self.is_read_only(request)
                and getattr(tool, "extension_trusted", None) is None)

    def _ask(self, request: ToolRequest, verdict: ApprovalVerdict, identity: str) -> str | None:
        """On an ``ask`` verdict: ``None`` when the user allows the call, else the denial text.

        "Always allow" is remembered for this session (the answer's permission rule; for a
        read-only call the tool's read-only calls; else the whole tool), with ``identity``, the
        tool the name stands for now (:func:`tool_identity`): it covers no other tool that
        later takes the name; "cancel" ends the turn; a denial carries the user's reason.
        """
        answer = self.approve(request)
        if isinstance(answer, str):
            answer = ApprovalAnswer(answer)
        if answer.decision == "cancel":
            raise CancelTurn(cancelled_text(answer.reason, asked=True))
        if answer.decision == "always_allow":
            if answer.rule:
                self.rules = self.rules.plus("allow", answer.rule)
            elif self.always_reads_only(request):
                self.reads_allowed[request.name] = identity
            else:
                self.always_allowed[request.name] = identity
        if answer.decision != "deny":
            return None
        return denied_text(answer.reason) if self.interactive else non_interactive_denied_text(
            verdict)

    def _handle_tool_request(self, request: ToolRequest, turn: Turn
                             ) -> Generator[Event, None, ToolResponse]:
        """Approve and run one call; returns its response (yields ``ToolCallStarted``).

        A ``deny`` verdict (chat mode) answers any call, even one that could not run; an
        ``ask`` verdict asks only about a call that can run (an edit's dry run must succeed).
        A deferred extension tool called by its exact name runs too (``ToolOffering.served``).
        """
        turn.handling = request  # a cancel before it starts: it did not run (turn.cancel_answer)
        served = self.offering.served(request.name)
        tools = self.tools if served is None else ToolRegistry([*self.tools.tools(), served])
        if (refusal := tools.nul_refusal(request)) is not None:  # before a path resolves
            return ToolResponse(request.id, self.redact(refusal), is_error=True)
        verdict = self._verdict(request, tools)
        if verdict.action == "deny":  # (our answers quote the call: redacted as output is)
            return ToolResponse(request.id, self.redact(verdict.tool_text), is_error=True)
        refusal = self.offering.refusal(request.name) or tools.refusal(request)
        if refusal is not None:  # "There is no tool named '…'"
            return ToolResponse(request.id, self.redact(refusal), is_error=True)
        tool = tools.get(request.name)
        assert tool is not None and request.arguments is not None
        ctx = self._context_for(turn.cancel)
        ctx.turn_id, ctx.call_id = self._turn_id, request.id
        ctx.write_target = verdict.write_target  # what the decision (and a question) saw
        ctx.read_target = verdict.read_target  # the file a view was judged on
        if verdict.action == "ask":  # an edit that would fail is answered without asking
            failed = getattr(tool, "dry_run", lambda _a, _c: None)(request.arguments, ctx)
            if failed is not None and failed.is_error:
                output = cap_output(ctx.redact(failed.output), ctx.max_output_chars)
                return ToolResponse(request.id, output, is_error=True)
        denial = None
        if verdict.action == "ask":
            self._asking = (request, verdict)
            try:
                denial = self._ask(request, verdict, tool_identity(request.name, tool))
            finally:
                self._asking = None
        if denial is not None:  # it may quote the command: redacted as its output would be
            return ToolResponse(request.id, ctx.redact(denial), is_error=True)
        pause_point("tool:approved")  # tests race the call's file here
        turn.started.append(request)  # from here a cancel leaves it "may have run"
        yield ToolCallStarted(request)
        result = run_tool(tool, request.arguments, ctx, turn.cancel)
        output = cap_output(ctx.redact(result.output), ctx.max_output_chars)
        cap_tokens = output_cap_tokens(self.settings.tool_output_max_chars,
                                       self.context.context_limit().tokens)
        if cap_tokens is not None:  # the default cap: in counted tokens, not 4 chars a token
            output = fit_output_tokens(output, cap_tokens, self.context.counter.count_text)
        if turn.cancel.is_set():
            stopped = stopped_running_text(self.stopped_by())
            output = stopped + (f"\n{output}" if output.strip() else "")
            return ToolResponse(request.id, output, is_error=True)
        turn.attachments.extend(result.attachments)
        response = ToolResponse(request.id, output, result.is_error, diff=result.diff)
        return self.offering.noting_unloads(response, lambda: [
            *self.session.conversation.agent_messages(),
            Message("user", (*turn.responses, response))])

    def preview_edit(self, request: ToolRequest) -> str | None:
        """The diff an edit would make, changing nothing (drawn before its approval question)."""
        return self._edit_query(request, "preview")

    def edit_state(self, request: ToolRequest) -> str | None:
        """The file an edit changes, as it is now (a SHA-256); ``None`` for a call not an edit.

        Taken with the preview and again at the answer: a difference means the file changed
        while the question waited, and the diff shown is not what the edit would do.
        """
        return self._edit_query(request, "target_state")

    def _edit_query(self, request: ToolRequest, method: str) -> str | None:
        query = getattr(self.tools.get(request.name), method, None)
        if query is None or request.arguments is None:
            return None
        found: str | None = query(request.arguments, self._tool_context
                                  or self._context_for(threading.Event()))
        return found

    def redact(self, text: str) -> str:
        """``text`` redacted as tool output is (the tools' redactor: this environment's secrets).

        For what the user sends (README, "Security": an API key never reaches a session).
        """
        if self._tool_context is None:
            from goosectx.tools.builtin import make_tool_context

            self._tool_context = make_tool_context(self.settings, self.session.working_dir)
        return self._tool_context.redact(text)

    def _context_for(self, cancel: threading.Event) -> ToolContext:
        if self._tool_context is None:
            from goosectx.tools.builtin import make_tool_context

            self._tool_context = make_tool_context(self.settings, self.session.working_dir,
                                                   cancel)
        edits = self._tool_context.edits  # the edits /undo restores (goosectx.file_undo)
        if edits is None or edits.session_id != self.session.id:
            from goosectx.file_journal import EditJournal

            self._tool_context.edits = EditJournal(self.settings.data_dir, self.session.id)
        context = self._tool_context
        context.session_id, context.cancel = self.session.id, cancel  # overflow names carry the id
        context.max_output_chars = output_cap_chars(self.settings.tool_output_max_chars,
                                                    self.context.context_limit().tokens)
        context.progress, context.spinner = self.progress, self.writing
        return context
