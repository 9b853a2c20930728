"""The agent tool loop: model → tools → model until the model answers without a tool call.

DESIGN.md §5. The loop mutates the in-memory session and yields events; it never prints and
never touches the store (the session recorder persists the events). Context management goes
through the :class:`~goosectx.compaction.manager.ContextManager` hooks, in the order its
contract states: ``start_turn`` once, ``before_call`` before every model call,
``on_context_exceeded`` then a retry of the same step when the provider says the request does
not fit, ``record_call`` and ``after_call`` after each reply is appended.

Cancelling (the ``cancel`` event, or a KeyboardInterrupt raised while the loop runs) keeps the
history valid: streamed text so far is kept in an assistant message marked ``cancelled``, and
every tool request still open gets a "cancelled" error response. A turn an error ends (the
spending cap, a provider's failure) closes out the same way, its answers naming the error.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

from goosectx.agent_tools import AgentTools, CancelTurn, tool_identity
from goosectx.approval import (
    CANCELLED_TEXT,
    ApprovalFn,
    PermissionRules,
    cancelled_text,
    stopped_running_text,
)
from goosectx.compaction.figures import RequestContext, next_request, sends_tools
from goosectx.compaction.manager import ContextManager
from goosectx.config import ApprovalMode, Settings
from goosectx.conversation import (
    Message,
    Part,
    TextContent,
)
from goosectx.errors import ContextLengthExceeded, GoosectxError
from goosectx.events import (
    Event,
    MessageCompleted,
    Notification,
    ToolCallFinished,
    TurnFinished,
)
from goosectx.prompts import load_project_instructions
from goosectx.providers.base import Provider
from goosectx.redaction_reply import redacted_reply
from goosectx.session import Session
from goosectx.stream_reply import cut_off_notice, empty_reply_notice, stream_reply
from goosectx.tools.base import ToolContext, ToolRegistry, ToolSource
from goosectx.tools.offering import ToolOffering
from goosectx.turn import (
    Turn,
    close_cancelled,
    error_not_started_text,
    turn_error_notice,
)

log = logging.getLogger("goosectx.agent")

NO_MODEL_TEXT = (
    "no model is configured — set GOOSE_MODEL (e.g. export GOOSE_MODEL=openai/gpt-4o-mini) "
    "or use /model NAME"
)


class Agent(AgentTools):
    """Drives one session.

    The agent mutates the in-memory ``session`` (appends completed messages; compaction swaps
    the conversation) and yields an event for every change; it never prints and never
    touches the store (the session recorder persists the events).

    Args:
        session: The session to continue.
        settings: Resolved settings (``max_turns`` is read at the start of every turn).
        provider: The main model, or ``None`` (then ``reply`` ends with a clear error event).
        tools: The tools offered to the model.
        approve: Called for each tool call that needs approval in the current mode.
        mode: Approval mode (``settings.mode`` by default).
        context: The context manager (built from the other arguments by default).
        tool_context: Where tools run (default: the built-in tools' context for the session's
            working dir); kept for the whole session (the editor's undo stack lives in it).
        interactive: False when nobody can be asked (``run`` without a TTY): a denial then
            tells the model that approval was impossible rather than refused.
        tool_source: Tools that come and go between turns (extensions), offered after ``tools``.
    """

    def __init__(
        self,
        session: Session,
        settings: Settings,
        *,
        provider: Provider | None,
        tools: ToolRegistry,
        approve: ApprovalFn,
        mode: ApprovalMode | None = None,
        context: ContextManager | None = None,
        tool_context: ToolContext | None = None,
        interactive: bool = True,
        tool_source: ToolSource | None = None,
    ) -> None:
        self.session = session
        self.settings = settings
        self.tools = tools
        self.approve = approve
        self.mode: ApprovalMode = mode or settings.mode
        self.context = context or ContextManager(session, settings, provider)
        self.context.reply_redact = self.reply_redact  # a summary is a model's reply too
        self.provider = self.context.budget.wrap(provider)  # the spending cap checks each call
        self.interactive = interactive
        self.always_allowed: dict[str, str] = {}
        """Tools the user answered "always allow" for, until the process exits (not stored):
        name → the tool it named then (:func:`~goosectx.agent_tools.tool_identity`)."""
        self.reads_allowed: dict[str, str] = {}
        """Tools whose read-only calls the user always allowed (answered at a read-only call)."""
        self.rules: PermissionRules = settings.permissions
        """Permission rules for :func:`~goosectx.approval.decide` (config, ``--allow``/
        ``--deny``, and the rules the user allowed in this session)."""
        self.offering = ToolOffering(tools, tool_source)
        self.progress: Callable[[str], None] | None = None  # a long call's progress text
        self.writing: Callable[[str], None] | None = None  # a streaming tool call's progress
        self.stopped_by: Callable[[], str | None] = lambda: None
        """The signal a cancel came from (``"SIGTERM"``), ``None`` for the user's Ctrl-C (the
        front end's; the model is told which)."""
        self._tool_context = tool_context
        self._project_instructions: str | None = None
        self._request: RequestContext | None = None
        self._turn_id = ""

    @property
    def request_context(self) -> RequestContext:
        """System prompt (with project instructions) and tool schemas of the next request.

        In ``chat`` mode no tool schemas are sent while the agent view holds no tool call
        (the model then cannot ask for a tool it may not run); once it holds one they are
        sent, because providers reject tool calls in a request without tools.
        """
        tools_sent = sends_tools(self.session, self.mode)
        if self._request is not None and bool(self._request.tool_schemas) != (
                tools_sent and bool(self.tools.names())):
            self._request = None
        if self._request is None:
            if self._project_instructions is None:
                self.reload_instructions()
            self._request = next_request(self.session, self.mode, self.tools, self.offering,
                                         tools_sent=tools_sent,
                                         project_instructions=self._project_instructions or "")
        return self._request

    def reload_instructions(self) -> None:
        """Read the project's instruction files again (each turn: an AGENTS.md /init wrote).

        Redacted as a streamed reply is (:meth:`reply_redact`: this environment's and the
        extensions' secrets): a key written in AGENTS.md or .goosehints never reaches the model.
        """
        fresh = self.reply_redact()(load_project_instructions(self.session.working_dir))
        if fresh != self._project_instructions:  # the request's prefix changes only then
            self._project_instructions, self._request = fresh, None

    def reply(self, user_input: str, *, cancel: threading.Event | None = None,
              attachments: Sequence[Part] = (), sent: Message | None = None) -> Iterator[Event]:
        """Run one turn for ``user_input``; ends with exactly one ``TurnFinished``.

        Statuses: ``done`` (the model answered without tools), ``max_turns`` (the turn made
        ``settings.max_turns`` model calls), ``cancelled`` (``cancel`` was set, an approval
        was answered "cancel", or a KeyboardInterrupt was raised inside the loop — the agent
        then sets ``cancel`` so a running tool stops), ``error`` (a provider or configuration
        error; its one-line reason is in ``TurnFinished.error``; the history is kept).

        A consumer whose own code catches a KeyboardInterrupt between events should set
        ``cancel`` and keep iterating: the turn then closes out the same way.
        ``attachments`` (e.g. an extension resource) go with the user's message, after its text.
        ``sent``: the user's message, already appended to the conversation and saved by the
        caller as soon as it was typed (``Message.user(user_input)``); the turn does not add it.
        """
        turn = Turn(cancel if cancel is not None else threading.Event())
        try:
            yield from self._run_turn(user_input, turn, tuple(attachments), sent)
        except KeyboardInterrupt:
            turn.cancel.set()
            yield from self._close_cancelled(turn)
        except CancelTurn as stop:
            turn.cancel_text = str(stop)
            yield from self._close_cancelled(turn)
        except GoosectxError as exc:
            log.info("turn ended with an error: %s", exc.one_line())
            # the calls left unanswered are told the error ended the turn, not the user (none
            # of them started: run_tool makes any exception of a call its error result)
            turn.cancel_text = error_not_started_text(exc.kind)
            yield from self._close_cancelled(turn, finish=False, error=True)
            yield from self._complete(turn_error_notice(self.reply_redact()(exc.one_line())))
            yield TurnFinished("error", exc.one_line())

    def compact(self, instructions: str | None = None, *, strategy: str = "llm",
                cancel: threading.Event | None = None) -> Iterator[Event]:
        """Manual compaction (``/compact [instructions]``): the context manager's events.

        Setting ``cancel`` (Ctrl-C) stops the summary call; the history is then unchanged and
        the last event is an inline "Compaction cancelled; nothing changed." notice.
        """
        return self.context.compact(self.request_context, trigger="manual",
                                    instructions=instructions, strategy=strategy,
                                    cancel=cancel)

    def clear(self) -> Iterator[Event]:
        """``/clear``: hide the whole history from the model (the context manager's events)."""
        return self.context.clear(self.request_context)

    def set_mode(self, mode: ApprovalMode) -> list[str]:
        """Change the approval mode (``/mode``); the system prompt follows (chat mode).

        The session's "always allow" answers are forgotten: choosing a mode means its rules
        apply again from the next tool call (``/mode approve`` asks before every one).

        Returns:
            The names of the tools whose "always allow" was forgotten, sorted.
        """
        forgotten = sorted([*self.always_allowed,
                            *(f"{name} (read-only calls)" for name in self.reads_allowed)])
        self.always_allowed.clear()
        self.reads_allowed.clear()
        self.mode = mode
        self._request = None
        return forgotten

    def forget_changed(self) -> list[str]:
        """Forget each "always allow" whose tool name now stands for another tool.

        An extension replaced by another of the same name, or a restart that offers another
        of the server's tools under the name: the answer was given for the tool it named then
        (README: ``a`` applies to that one tool). A name no tool holds now (the extension was
        removed or is starting) is kept: a call of it cannot run, and the same tool back
        under it is still the one allowed.

        Returns:
            The forgotten names, sorted (a read-only one with " (read-only calls)").
        """
        forgotten = []
        for allowed, label in ((self.always_allowed, ""), (self.reads_allowed,
                                                          " (read-only calls)")):
            for name, identity in list(allowed.items()):
                tool = self.tools.get(name) or self.offering.served(name)
                if tool is not None and tool_identity(name, tool) != identity:
                    del allowed[name]
                    forgotten.append(name + label)
        return sorted(forgotten)

    def forget_allowed(self, names: Iterable[str]) -> list[str]:
        """Forget the "always allow" answers given for the tools ``names`` (``/extension remove``).

        Returns:
            The forgotten names, sorted (a read-only one with " (read-only calls)").
        """
        names = set(names)
        forgotten = [name + label for allowed, label in (
            (self.always_allowed, ""), (self.reads_allowed, " (read-only calls)"))
            for name in names if allowed.pop(name, None) is not None]
        return sorted(forgotten)

    def set_provider(self, provider: Provider | None) -> None:
        """Change the model (``/model``); its context limit applies to the next call."""
        self.provider = self.context.budget.wrap(provider)
        self.context.set_provider(provider)

    def close(self) -> None:
        """The session ends: close the tools (the shell tool's namespace and what runs in it)."""
        self.tools.close()

    # -- the loop --------------------------------------------------------------------------
    def _complete(self, message: Message) -> Iterator[Event]:
        self.session.conversation.append(message)
        yield MessageCompleted(message)

    def _complete_redacted(self, message: Message) -> Iterator[Event]:
        """:meth:`_complete` of what a cancel keeps of the streamed answer, redacted."""
        if message.role == "assistant":
            message = redacted_reply(message, self.reply_redact())
        yield from self._complete(message)

    def _run_turn(self, user_input: str, turn: Turn, parts: tuple[Part, ...],
                  sent: Message | None) -> Iterator[Event]:
        if self.provider is None:
            yield TurnFinished("error", NO_MODEL_TEXT)
            return
        self.context.start_turn()
        self.reload_instructions()
        yield from (Notification("inline", n) for n in self.offering.prepare_turn(turn.cancel))
        self.sync_tools()
        if forgotten := self.forget_changed():
            yield Notification("inline", "always allow forgotten (the name now stands for "
                                         f"another tool): {', '.join(forgotten)}")
        asked = sent or Message("user", (TextContent(user_input), *parts))
        if sent is None:
            yield from self._complete(asked)
        self._turn_id = asked.id  # the turn's edits are journalled under it (/undo)
        max_turns = self.settings.max_turns
        calls = 0
        while True:
            if turn.cancel.is_set():
                yield from self._close_cancelled(turn)
                return
            if calls >= max_turns:
                noun = "model call" if calls == 1 else "model calls"
                yield Notification("inline", f"stopped after {calls} {noun} (the per-turn "
                                   "limit, --max-turns / GOOSE_MAX_TURNS); send a message to "
                                   "continue")
                yield TurnFinished("max_turns")
                return
            request = self.request_context
            yield from self.context.before_call(request, cancel=turn.cancel)
            if turn.cancel.is_set():  # cancelled while auto-compaction ran
                continue
            if self.sync_tools():  # compacted: loaded tools the summary hid are deferred again
                request = self.request_context
            try:
                response = yield from stream_reply(self.provider, request,
                                                    self.session.conversation, turn.streamed,
                                                    turn.cancel, turn.reasoned,
                                                    self.context.budget.take_notices,
                                                    self.writing, self.reply_redact(),
                                                    turn.shares)
            except ContextLengthExceeded:
                yield from self.context.on_context_exceeded(request, cancel=turn.cancel)
                continue
            calls += 1
            if turn.cancel.is_set():
                yield from self._close_cancelled(turn)
                return
            turn.streamed, turn.reasoned = [], []
            message = redacted_reply(response.message.with_metadata(  # before a call runs
                usage=response.usage, cut_at_output_limit=response.finish_reason == "length"),
                self.reply_redact())
            if message.content:
                yield from self._complete(message)
            if (empty := empty_reply_notice(message)) is not None:
                yield Notification("inline", empty)
            cut = cut_off_notice(response, self.provider, self.settings)
            if cut is not None:
                yield Notification("inline", cut)
            turn.reply_calls(message.tool_requests)  # answered on a cancel or an error
            yield self.context.record_call(response.usage, request,
                                           model=response.model or self.provider.model)
            yield from self.context.after_call(request, cancel=turn.cancel)
            if not message.tool_requests:
                yield TurnFinished("done")
                return
            for tool_request in message.tool_requests:
                if turn.cancel.is_set():
                    break
                tool_response = yield from self._handle_tool_request(tool_request, turn)
                turn.responses.append(tool_response)
                yield ToolCallFinished(tool_response)
            if turn.cancel.is_set():
                yield from self._close_cancelled(turn)
                return
            yield from self._complete(Message("user", (*turn.responses, *turn.attachments)))
            turn.reply_calls([])
            turn.attachments = []
            if self.offering.loaded_mid_turn:
                self.sync_tools()  # search_tools loaded a tool: offered from the next call

    def sync_tools(self) -> bool:
        """Take the offering's new tool list, if any (True then); the system prompt follows.

        Before every turn and model call; a front end may call it between turns too (the REPL
        does once the extensions are up, so its context meter counts their tools before a
        turn).
        """
        if self.offering.sync(lambda: self.context.context_limit().tokens,
                              self.session.conversation.agent_messages()):
            self.tools, self._request = self.offering.registry, None
            return True
        return False

    @property
    def tool_context(self) -> ToolContext | None:
        """The tools' context (shell environment, redactor, caps); ``None`` until one is made."""
        return self._tool_context

    def reply_redact(self) -> Callable[[str], str]:
        """:attr:`redact` for a streamed reply: the tools' redactor, with its ``secrets``.

        When it lists them, the live answer is held back for them (:mod:`goosectx.secret_tail`),
        and so is the draft a front end's recorder saves of it (:class:`goosectx.recorder.
        DraftRedact`): the extensions' secrets with the environment's.
        """
        if self._tool_context is None:
            return self.redact
        return self._tool_context.redact

    def _close_cancelled(self, turn: Turn, *, finish: bool = True, error: bool = False
                         ) -> Iterator[Event]:
        """Keep streamed text and reasoning (marked cancelled), answer open requests, end.

        A cancel that came from a signal (SIGTERM) answers them saying so, not "the user"; an
        error's answers are the caller's (``turn.error_not_started_text``).
        """
        if turn.cancel_text == CANCELLED_TEXT:
            turn.cancel_text = cancelled_text(self.stopped_by())
        if not error:
            turn.started_text = stopped_running_text(self.stopped_by())  # a call it met running
        yield from close_cancelled(turn, self._complete_redacted, finish=finish, error=error)
