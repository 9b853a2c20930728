"""The interactive REPL (``goosectx``, ``goosectx session``): prompt, slash commands, turns.

One :class:`Repl` drives one locked session. Each turn (or ``/compact``, ``/clear``) runs
the core's event generator in a worker thread; the main thread takes the events from a
queue, records each through the :class:`~goosectx.recorder.SessionRecorder` (so the session
is saved whatever happens next) and draws it with the
:class:`~goosectx.cli.render.TranscriptRenderer`. Approval questions travel the same queue,
so every terminal read and write happens on the main thread, and Ctrl-C there only sets the
turn's cancel event: the agent ends the turn itself and the history stays valid. SIGTERM and
SIGHUP are that Ctrl-C too (:mod:`goosectx.cli.exit_signals`), after which the REPL leaves.

Its prompt-toolkit input/output and its rich console are parameters (:class:`ReplIO`) so
tests drive it with pipe input and read the transcript (STYLE.md example 9).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.formatted_text import FormattedText

from goosectx.approval import ApprovalAnswer, ApprovalFn
from goosectx.cli import (
    exit_signals,
    repl_agent,
    repl_approval,
    repl_extensions,
    repl_outcome,
    reports,
)
from goosectx.cli.common import OpenSession
from goosectx.cli.driver import EventSource, TurnDriver
from goosectx.cli.input_secrets import EnvironmentRedactor
from goosectx.cli.model_choice import ModelChoice, show_retreat, switch_provider
from goosectx.cli.prompt import history_problem, make_prompt_session
from goosectx.cli.prompt_editor import editor_for
from goosectx.cli.render import TranscriptRenderer
from goosectx.cli.repl_mentions import redacted_message
from goosectx.cli.repl_opening import draw_opening
from goosectx.cli.resume_load import BackgroundLoad, after_render, compose_pre_run
from goosectx.cli.resume_tail import draw_resumed
from goosectx.cli.shell_escape_cmd import is_escape_line, run_escape
from goosectx.cli.terminal import ReplIO
from goosectx.cli.toolbar import ContextFigure, toolbar_fragments
from goosectx.config import ApprovalMode, Settings
from goosectx.conversation import Message, ToolRequest
from goosectx.errors import GoosectxError, ModelNotConfigured
from goosectx.events import Event, HistoryReplaced, MessageCompleted, UsageUpdated
from goosectx.recorder import DraftRedact, SessionRecorder
from goosectx.session import Session, TokenCount
from goosectx.store import SessionStore
from goosectx.store.replacing import replace_surrogates

if TYPE_CHECKING:
    from goosectx.agent import Agent
    from goosectx.cli import slash
    from goosectx.providers.base import Provider

__all__ = ["Repl", "ReplIO"]

AgentFactory = Callable[[ApprovalFn], "Agent"]
"""Builds the session's agent around the REPL's approval callable (may raise
``ModelNotConfigured`` / ``AuthFailed``; the REPL then opens without a model)."""
ProviderFactory = Callable[[str], "Provider"]
"""Builds the provider for ``/model NAME``."""

HISTORY_FILE = "repl_history"
"""Input history file in the data dir."""


class Repl:
    """The read–run–render loop of one session.

    Args:
        settings: Resolved settings.
        store: The open store (the recorder writes to it).
        session: The locked, loaded session.
        io: Console and input.
        resumed: Show the tail of the stored transcript first (the last turns, about a
            screenful; see :mod:`goosectx.cli.resume_tail`).
        full_history: With ``resumed``, draw the whole stored transcript (``--history``).
        mode: The starting approval mode (``cli.mode_choice.choose_mode``); ``None``: the config's.
        mode_restored: ``mode`` is the one stored in the session (the banner says so).
        mode_flag: The ``--mode`` given at launch (``/resume`` chooses the other session's
            mode as ``goosectx --resume`` with it would: :func:`cli.mode_choice.choose_mode`).
        model: The ``--model`` given at launch (``/resume`` chooses the other session's model
            as ``goosectx --resume`` with it would: ``cli.model_choice.choose_model``).
        model_choice: The starting model and where it came from (the banner says so);
            ``None``: ``model``, else the config's.
        agent_factory: Builds the agent (default: ``goosectx.runtime.build_agent``).
        provider_factory: Builds a provider for ``/model`` (default: the litellm adapter).
        background_checks: On opening, import litellm and check the model's credentials in a
            background thread (off in tests with a scripted provider).
    """

    def __init__(
        self, settings: Settings, store: SessionStore, session: Session, *, io: ReplIO,
        resumed: bool = False, mode: ApprovalMode | None = None, model: str | None = None,
        mode_restored: bool = False, agent_factory: AgentFactory | None = None,
        provider_factory: ProviderFactory | None = None, background_checks: bool = True,
        full_history: bool = False, extensions: Any = None,  # an ExtensionManager
        opened: OpenSession | None = None, mode_flag: str | None = None,
        model_choice: ModelChoice | None = None,
    ) -> None:
        self.settings = settings
        self.opened = opened
        """The lock holder ``/resume`` hands over (``start_repl``'s); ``None``: no ``/resume``."""
        self.extensions = extensions
        if extensions is not None:
            repl_extensions.watch(self, extensions)  # failures shown while the prompt waits
        self.store = store
        self.session = session
        self.io = io
        self.resumed = resumed
        self.full_history = full_history
        self.recorder = self.new_recorder(session)
        self.renderer = TranscriptRenderer(io.console, plain=io.plain,
                                           show_reasoning=settings.show_reasoning)
        self.renderer.unsaved = lambda: self.recorder.unsaved  # (the recorder may be replaced)
        self.mode: ApprovalMode = mode or settings.mode
        self.mode_restored = mode_restored
        self.mode_flag = mode_flag
        self.model_flag = model
        self.model_choice = model_choice
        self._model_override = model_choice.model if model_choice else model
        self.retreat_lines: list[str] = []  # a restored model that cannot be used (shown once)
        self._agent_factory = agent_factory or self._runtime_agent
        self._agent_factory_given = agent_factory is not None
        self._provider_factory = provider_factory or (lambda n: switch_provider(settings, n))
        self._figure: ContextFigure | None = None
        self._background_checks = background_checks
        self.typed_escape: tuple[str, str, str] | None = None  # shell_escape_cmd: for !!
        self.typed = ""  # the line being run, as typed
        self.unsent: str | None = None  # typed without a model; offered again (repl_outcome)
        self.driver = TurnDriver(self.renderer, on_event=self._on_event, ask=self._ask,
                                 on_failure=self._failed, quiet_terminal=io.is_real_terminal,
                                 typed_input=lambda: getattr(self._prompt, "input", None))
        self.loader = repl_agent.new_loader(self)
        self.background = (BackgroundLoad(self, opened.deferred)
                           if opened is not None and opened.deferred else None)
        """Loads a long resumed session's messages after the prompt is up (``resume_load``)."""
        self.redact_input = EnvironmentRedactor(settings)
        """This environment's secrets out of what the user types (messages, history)."""
        self._prompt = None if io.plain else make_prompt_session(
            history_path=settings.data_dir / HISTORY_FILE if io.history else None,
            toolbar=self._toolbar, completer=repl_extensions.completer(self),
            input=io.input, output=io.output,
            editor=editor_for(settings, lambda line: self.renderer.notice(line, style="yellow")),
            redact=self.redact_input, interrupted=self._how_to_leave)

    def new_recorder(self, session: Session) -> SessionRecorder:
        """The recorder of ``session`` as this REPL drives it (also after ``/resume``).

        A large batch of token counts (an old history counted at first need) is stored once
        the next prompt is drawn (:meth:`_read`), not between a turn's last chunk and it.
        """
        recorder = SessionRecorder(self.store, session)
        recorder.fresh_token_counts = self._fresh_token_counts
        recorder.redact = DraftRedact(lambda: self.agent.reply_redact())
        recorder.defer_bulk = True
        return recorder

    # -- building the agent --------------------------------------------------------------
    def _runtime_agent(self, approve: ApprovalFn) -> Agent:
        return repl_extensions.build_agent(self, approve)

    @property
    def agent(self) -> Agent:
        """The session's agent (waits for the background build on first use)."""
        return self.loader.agent

    @property
    def provider(self) -> Provider | None:
        """The agent's current model, or ``None`` (also while the agent is being built)."""
        return self.loader.provider

    @property
    def prompt_session(self) -> Any:
        """The prompt-toolkit session (``None`` for plain input)."""
        return self._prompt

    def show_loaded(self) -> None:
        """Number outputs, draw a resumed tail, then start the agent (its imports slow drawing)."""
        self.renderer.seed_numbers(self.session.conversation)
        if self.resumed and len(self.session.conversation):
            draw_resumed(self.renderer, self.session.conversation, width=self.io.console.width,
                         full=self.full_history)
        self._start_agent()

    def _start_agent(self) -> None:
        """Build the agent: in the background (checks on), else now, then the context meter."""
        if self._background_checks:
            self.loader.start(self._on_ready)
        else:
            self._refresh_figure()

    def _on_ready(self) -> None:
        self._refresh_figure()
        if self.extensions is not None:  # servers up before the agent: their tools counted
            repl_extensions.redraw(self)
        app = self._prompt.app if self._prompt is not None else None
        if app is not None and app.is_running:
            app.invalidate()

    def _model_names(self) -> list[str]:
        names = [*self.settings.models]
        for extra in (self.settings.model, self.session.model):
            if extra and extra not in names:
                names.append(extra)
        return names

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> int:
        """Run until ``/exit``, Ctrl-D, the end of input, SIGTERM or SIGHUP; returns 0.

        A SIGTERM / SIGHUP during a turn cancels it like Ctrl-C; once the turn is closed out
        (and saved) the REPL leaves as on ``/exit``.
        """
        draw_opening(self)  # the banner, then its notes and warnings
        if self.background is None:
            self.show_loaded()
        if self.loader.setup_error is not None:
            self.renderer.panel(reports.no_model_text(self.settings, self.loader.setup_error),
                                title="no model configured", style="yellow")
        while exit_signals.received() is None:
            repl_extensions.show_notices(self)
            try:
                line = self._read()
            except KeyboardInterrupt:
                if exit_signals.received() is not None:
                    break
                self._how_to_leave()
                continue
            except EOFError:
                break
            except OSError:
                if exit_signals.received() is None:
                    raise
                break  # the terminal is gone (the window closed)
            if not line.strip():
                continue
            from goosectx.cli import slash  # its 22 dataclasses: at the first line, not launch
            command = slash.parse_slash(line)
            if isinstance(command, slash.Exit):
                break  # at once, as Ctrl-D: leaving needs nothing of a session still loading
            if self.background is not None and self.background.pending:
                try:
                    self.background.wait()  # nothing runs on a half-loaded session
                except KeyboardInterrupt:
                    self.renderer.notice("not sent: the session is still loading")
                    continue
            self.typed = line
            try:
                if is_escape_line(line):
                    run_escape(self, line)
                elif command is None:
                    self.turn(slash.unescape_prompt(line))
                else:
                    self.renderer.command_echo(line.strip())
                    self.command(command)
            except KeyboardInterrupt:  # Ctrl-C stops a command's output (a long /history)
                if exit_signals.received() is not None:
                    break
                self.renderer.notice("stopped (Ctrl-C)")
            except GoosectxError as exc:  # e.g. the store failed: say so, keep the REPL
                self.renderer.error(exc.message, exc.hint)
        return 0 if self._goodbye() else 1  # 1: what the session lost is said above

    def _read(self) -> str:
        later = self.background
        if later is not None and later.pending:
            later.finish_if_loaded()
        if self._prompt is not None:
            pre_run = repl_extensions.take_pre_run(self)
            if later is not None and later.pending:
                pre_run = compose_pre_run(later.pre_run, pre_run)
            if self.recorder.has_deferred:  # once the prompt is drawn
                pre_run = compose_pre_run(pre_run, after_render(self.recorder.start_deferred))
            line = self._prompt.prompt(pre_run=pre_run, default=repl_outcome.unsent(self))
            problem = history_problem(self._prompt)
            if problem is not None:
                self.renderer.notice(problem, style="yellow")
            return replace_surrogates(line)  # a byte not UTF-8 (Latin-1 terminal) → U+FFFD
        self.recorder.start_deferred()
        return replace_surrogates(self.io.read_plain_line())

    def _how_to_leave(self) -> None:
        """What Ctrl-C at an empty prompt says (drawn above the prompt, which stays up)."""
        saved = "; the session is saved" if self._session_is_kept() else ""
        self.renderer.notice(f"(Ctrl-D or /exit leaves{saved})")

    def _session_is_kept(self) -> bool:
        return repl_outcome.is_kept(self)

    def _fresh_token_counts(self) -> dict[str, TokenCount]:
        """Token counts made since the last save (none while the agent is still being built)."""
        if not self.loader.ready:
            return {}
        return self.agent.context.take_fresh_token_counts()

    def _goodbye(self) -> bool:
        return repl_outcome.goodbye(self)

    # -- turns ---------------------------------------------------------------------------
    def turn(self, text: str, attachments: list[Any] | None = None) -> None:
        """Run one turn for ``text`` and draw it.

        Without a usable model (none configured, or the background check found no API key)
        nothing is sent: :func:`goosectx.cli.repl_outcome.not_sent` says why and keeps the
        typed line for the prompt once ``/model`` has set one.
        """
        text = redacted_message(self, text)  # a key typed is neither saved nor sent
        self.renderer.user(text, show=self.io.echo or not self.io.plain)
        sent = self._save_early(text, attachments)
        if not self.loader.wait(self.renderer, quiet_terminal=self.io.is_real_terminal):
            if exit_signals.received() is None:  # Ctrl-C: the user took it back
                repl_outcome.take_back(self, sent)
            elif sent is not None:  # SIGTERM / SIGHUP: what was typed stays in the session
                self.renderer.notice("your message is kept in the session (not sent)")
            return
        show_retreat(self)
        late = self.loader.take_late_error()
        if late is not None or self.provider is None:  # a key check failed, or no model
            repl_outcome.take_back(self, sent)
            repl_outcome.not_sent(self, self.typed or text, late)
            return
        self._drive(repl_extensions.reply(self, text, attachments, sent))

    def _save_early(self, text: str, attachments: list[Any] | None) -> Message | None:
        """Add and save the user's message before waiting for the model client; or ``None``.

        Not for a message with attachments or ``@`` words (reading those needs the model's
        context limit, so the turn adds it once the agent is built), nor when the model is
        already known to be unusable (nothing is sent then). Taken back when the turn is
        not sent after all (Ctrl-C while waiting, a failed key check).
        """
        if attachments or "@" in text or self.loader.setup_error or self.loader.late_error:
            return None
        message = Message.user(text)
        self.session.conversation.append(message)
        self._record(MessageCompleted(message))
        return message

    def _drive(self, start: EventSource, *, waiting: str = "thinking…") -> None:
        """Run a core generator through the driver, then refresh the context meter."""
        try:
            self.driver.run(start, waiting=waiting)
        finally:
            self._refresh_figure()
            repl_outcome.save_figure(self)  # what sessions list shows

    def _on_event(self, event: Event) -> None:
        """Record the event (the session is saved whatever happens next), then draw it."""
        self._record(event)
        if isinstance(event, UsageUpdated):
            self._figure = ContextFigure(event.current_tokens, event.context_limit_tokens,
                                         event.is_estimate)
        elif isinstance(event, HistoryReplaced) and self._figure is not None:
            self._figure = ContextFigure(event.tokens_after, self._figure.limit_tokens, True)
        self.renderer.handle(event)

    def _record(self, event: Event) -> None:
        repl_outcome.record(self, event)

    def _failed(self, error: BaseException) -> None:
        repl_outcome.report_failure(self, error)

    def _ask(self, request: ToolRequest, cancel: threading.Event) -> ApprovalAnswer:
        """Ask whether a tool call may run (see :func:`goosectx.cli.repl_approval.ask`)."""
        return repl_approval.ask(self, request)

    # -- slash commands ------------------------------------------------------------------
    def command(self, command: slash.SlashCommand) -> None:
        """Run one slash command (``/exit`` is handled by :meth:`run`).

        See :func:`goosectx.cli.repl_commands.run_command`.
        """
        from goosectx.cli.repl_commands import run_command  # (it imports slash: not at launch)
        run_command(self, command)

    # -- context figures -----------------------------------------------------------------
    def _refresh_figure(self) -> None:
        """Recompute the context figure every display shows (toolbar, ``/usage``).

        The same ``ContextManager.current_tokens`` figure ``/context`` reports (and lists).
        """
        try:
            manager = repl_agent.context_manager(self)
            current, is_estimate = manager.note_figure(self.agent.request_context)
            self._figure = ContextFigure(current, manager.context_limit().tokens, is_estimate)
        except GoosectxError:
            pass

    def _toolbar(self) -> FormattedText:
        note = "auto-compaction paused" if self.session.state.auto_compaction_paused else ""
        problem = self.loader.late_error or self.loader.setup_error
        if problem is not None and not isinstance(problem, ModelNotConfigured):
            note = "⚠ " + problem.message
        note = repl_extensions.toolbar_note(self, note)
        return FormattedText(toolbar_fragments(
            model=self.loader.model_name, mode=self.mode, figure=self._figure,
            note=note))
