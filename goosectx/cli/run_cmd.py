"""``goosectx run``: one non-interactive task in a new or resumed session.

Output (DESIGN.md §5): ``text`` streams the assistant's text to stdout and reports tool calls,
notices and errors on stderr; ``stream-json`` writes one :func:`events.event_to_json` object
per line to stdout; ``json`` writes one object at the end (session id, the turn's messages,
usage, status). Every event also goes to the session recorder, so the session is saved as it
runs and can be resumed.

Approval: with a terminal on stdin the user is asked; without one, whatever needs approval is
denied, the model is told why, and stderr suggests ``--mode auto``. Nothing waits on input
that cannot come.

Exit codes: 0 done, 1 error, 3 stopped at ``--max-turns`` / ``GOOSE_MAX_TURNS``,
130 cancelled (Ctrl-C), 143 / 129 cancelled by SIGTERM / SIGHUP (which act as Ctrl-C:
:mod:`goosectx.cli.exit_signals`); configuration and usage errors exit 2 via ``cli.app.main``.
"""

from __future__ import annotations

import shlex
import sys
import threading
from errno import EIO
from typing import TYPE_CHECKING, Any, TextIO

from goosectx.cli import exit_signals
from goosectx.cli.common import (
    OpenSession,
    check_new_name,
    current_dir,
    open_session,
    resume_command,
    session_ref,
)
from goosectx.cli.folding import plural
from goosectx.cli.input_secrets import InputSecrets
from goosectx.cli.mode_choice import choose_mode
from goosectx.cli.model_choice import check_for_run, choose_model
from goosectx.cli.run_cancel import cancelled_after_turn, cancelled_at_start
from goosectx.cli.run_early import EarlyTask
from goosectx.cli.run_events import Finished, drive
from goosectx.cli.run_failed import write_failed
from goosectx.cli.run_output import (
    Approver,
    JsonOutput,
    StreamJsonOutput,
    TextOutput,
)
from goosectx.cli.run_task_input import scrub_piped, slash_task, task_mentions, with_piped
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.sessions_names import names_shown, secret_free_name
from goosectx.cli.slash import is_command_line
from goosectx.cli.start_warnings import NEW_IN_RUN, nothing_to_continue, start_warnings
from goosectx.cli.task_input import is_piped, read_piped, read_task
from goosectx.config import Settings, parse_mode
from goosectx.conversation import Conversation
from goosectx.errors import GoosectxError, UsageError
from goosectx.testhooks import pause_point
from goosectx.turn import UNRECORDED_TEXT, cut_by_exit, interrupted_calls, not_started_calls
from goosectx.usage import summed_to_dict

if TYPE_CHECKING:
    from goosectx.agent import Agent

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MAX_TURNS = 3
EXIT_CANCELLED = 130
_EXIT_CODES = {"done": EXIT_OK, "error": EXIT_ERROR, "max_turns": EXIT_MAX_TURNS,
               "cancelled": EXIT_CANCELLED}


def run_task(
    settings: Settings,
    *,
    text: str | None,
    input_file: str | None,
    name: str | None,
    resume: str | None,
    continue_: bool,
    max_turns: int | None,
    output_format: str,
    mode: str | None,
    model: str | None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run one task to the end of its turn and return the exit code (see module docstring).

    The model and its key are checked before a session is created or locked, so a missing
    model or key changes no data.

    Raises:
        UsageError, ConfigError: bad options (exit 2).
        ModelNotConfigured, AuthFailed, ProviderError: no usable model.
        SessionNameTaken, SessionNotFound, SessionAmbiguous, SessionInUse, StoreError.
    """
    from goosectx.cli.extensions_cmd import RunServers
    from goosectx.providers.litellm_provider import make_provider
    from goosectx.runtime import build_agent
    from goosectx.scan_cache import LockedScanCache

    stdin = stdin or sys.stdin  # a closed terminal window must not stop the close-out:
    stdout, stderr = (exit_signals.survive_hangup(s) for s in (stdout or sys.stdout,
                                                               stderr or sys.stderr))
    # a full disk or a closed pipe (| head): the answer is still saved; the error comes after
    stdout = exit_signals.survive_lost_output(stdout)
    stderr = exit_signals.survive_lost_output(stderr, full_disk=False)
    task = read_task(text, input_file, stdin)
    # data piped along with -t / -i FILE is what the task is about: sent after it
    along = text is not None or input_file not in (None, "-")
    piped = read_piped(stdin) if along and is_piped(stdin) else None
    if mode:
        parse_mode("--mode", mode)  # a bad --mode changes no data
    if name is not None:  # a key in --name reads "redacted" (README, "Security")
        name = secret_free_name(settings, name)
    check_new_name(name)  # so does a bad --name
    if not resume:  # so does a deleted current dir (the new session's), before the model's check
        current_dir()
    # /NAME: a custom command expanded (from the session's dir: a resumed one's once it is
    # open; a new or --continue session's is this one), a REPL command refused
    commands_dir = settings.config_file.parent
    task, warnings = slash_task(task, None if resume else current_dir(), commands_dir)
    secrets = InputSecrets(settings=settings)  # a key in the task is neither saved nor sent
    task, piped = secrets.text(task, "the task"), scrub_piped(secrets, piped)
    if max_turns is not None:
        settings.max_turns = max_turns
        settings.sources["max_turns"] = "--max-turns"
    model_name = model or settings.model
    servers = RunServers(settings)  # --with-extension flags: settings.extensions.flags
    early: EarlyTask | None = None
    opened: OpenSession | None = None
    try:
        pause_point("run:starting")
        provider = make_provider(settings, model_name)
        if resume or continue_:  # the task is saved while litellm loads (undone on failure)
            early = EarlyTask(provider)  # its check starts once the session is locked
        else:  # a new session: nothing is created before the key is known good
            provider.check_credentials()
        # a /command resumed is read in the session's dir: refused without waiting for the check
        at_lock = early.start if early and not (resume and is_command_line(task)) else None
        opened = open_session(settings, name=name, resume=resume, continue_=continue_,
                              model=model_name, on_locked=at_lock)
        if opened.resumed and (chosen := check_for_run(  # the model chosen with /model in it
                settings, choose_model(settings, model, opened.session), stderr)):
            model_name = chosen
            if early is not None:
                early.checked_elsewhere()
        if (note := nothing_to_continue(opened)) is not None:
            stderr.write(terminal_safe(f"goosectx: note: {note}\n"))
        for warning in start_warnings(opened.session, resumed=opened.resumed,
                                      new_here=NEW_IN_RUN):
            stderr.write(terminal_safe(f"goosectx: warning: {warning}\n"))
        if opened.resumed and (calls := interrupted_calls(opened.session.conversation)):
            imported = any(r.output == UNRECORDED_TEXT
                           for r in opened.session.conversation.messages[-1].tool_responses)
            stderr.write(terminal_safe(
                f"goosectx: note: {plural(len(calls), 'tool call')} ({', '.join(calls)}) "
                + ("had no result in the imported transcript" if imported else
                   f"{'was' if len(calls) == 1 else 'were'} interrupted when goosectx last "
                   "exited" + _not_started(opened.session.conversation))
                + "; the model is told\n"))
        elif opened.resumed and cut_by_exit(opened.session.conversation):
            stderr.write("goosectx: note: the last answer was cut off when goosectx last "
                         "exited (what was saved of it is kept); the model is told\n")
        if resume:
            try:
                task, warnings = slash_task(task, opened.session.working_dir, commands_dir)
                task = secrets.text(task, "the task")
            except UsageError:
                opened.close()
                raise
        if early is not None:
            early.start()  # (started already unless the task is a /command)
        for warning in warnings:
            stderr.write(terminal_safe(f"goosectx: warning: {warning}\n"))
        if early is not None:
            early.save(opened, task, whole=piped is None)
    except GoosectxError as exc:  # the first error found (the key check's outcome dropped)
        # Scripts reading stdout still get a result in the format they asked for.
        write_failed(output_format, stdout, exc.one_line(), exc.exit_code)
        if early is not None:  # no check left importing litellm after the command returns
            early.settle()
        raise exc from None
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP while starting: said, task kept
        # at once: the check is not waited for (the process ends; in-process it ends alone)
        return cancelled_at_start(output_format, stdout=stdout, stderr=stderr, opened=opened,
                                  task=task, saved=early.message if early else None,
                                  close=not (early and early.closed))
    except BaseException:  # a bug: its traceback, after the check ended
        if early is not None:
            early.settle()
        raise
    agent: Agent | None = None
    started = False
    try:
        manager = servers.start(opened, stderr)
        approval_mode = choose_mode(settings, mode, opened.session).mode
        approver = Approver(stdin, stderr, approval_mode, opened.session.working_dir)
        agent = build_agent(settings, opened.session, approve=approver, mode=approval_mode,
                            model=model_name, interactive=approver.interactive, extensions=manager)
        agent.stopped_by = exit_signals.received_name  # SIGTERM during a tool call: said so
        agent.context.scan_cache = LockedScanCache(opened.store.data_dir, opened.session.id)
        approver.read_only = agent.always_reads_only  # `a` at a view allows views only
        approver.verdict_of = agent.verdict_of  # a rule's ask is warned with why
        output: TextOutput | StreamJsonOutput | JsonOutput
        if output_format == "json":
            output = JsonOutput(stdout, stderr)
        elif output_format == "stream-json":
            output = StreamJsonOutput(stdout, reasoning=settings.show_reasoning)
        else:
            output = TextOutput(stdout, stderr, after_call=approver.defer())
        if not isinstance(output, TextOutput):  # stderr's warnings, in the result too
            approver.notify = output.notice
        note = auto_compaction_off(settings, model_name) or paused_note(opened)
        if note:
            stderr.write(terminal_safe(f"goosectx: note: {note}\n"))
        output.start({"type": "session_started", "session_id": opened.session.id,
                      "session_name": names_shown(settings)(opened.session.name),
                      "resumed": opened.resumed,
                      "model": model_name, "approval_mode": approval_mode,
                      "working_dir": str(opened.session.working_dir)})
        cancel = threading.Event()
        files = task_mentions(settings, agent, task, manager, output, stderr, secrets)
        task = with_piped(settings, agent, task, piped, output, stderr)
        sent = early.message if early is not None else None
        pause_point("run:before-turn")
        started = True  # from here a cancel is the turn's (the agent closes it out)
        finished = drive(agent.reply(task, cancel=cancel, attachments=files, sent=sent),
                          cancel, opened, output, agent)
        status, error = finished.status, finished.error
        output.finish(_summary(opened.session.id, names_shown(settings)(opened.session.name),
                               finished))
        if status == "error":
            stderr.write(f"goosectx: error: {terminal_safe(error or '')}\n")
        elif status == "cancelled":
            by = exit_signals.received_name()
            stderr.write(terminal_safe(f"goosectx: cancelled{f' ({by})' if by else ''}\n"))
        elif status == "max_turns" and output_format != "text":
            # text output already printed the agent's one "stopped after" notice
            stderr.write(f"goosectx: stopped after {plural(settings.max_turns, 'model call')} "
                         "(the per-turn limit, --max-turns / GOOSE_MAX_TURNS)\n")
        stderr.write(terminal_safe(
            f"goosectx: session {one_line_safe(opened.session.display_name)} saved · "
            "resume with: "
            f"{resume_command(session_ref(opened.session), command='run')}\n"))
        stderr.flush()
        unwritten: OSError | None = getattr(stdout, "error", None)
        if unwritten is not None and unwritten.errno in exit_signals.WRITE_FAILED_ERRNOS - {EIO}:
            raise unwritten  # one line: "cannot write the output …" (exit 1)
        closed = [s for s in (stdout, stderr)
                  if getattr(getattr(s, "error", None), "errno", None)
                  in exit_signals.CLOSED_PIPE_ERRNOS]
        if closed:
            return closed_output_pipe(opened, stderr, closed)
        return exit_signals.exit_status(_EXIT_CODES[status])
    except KeyboardInterrupt:
        if started:  # after the turn, as it was reported: the turn is saved
            return cancelled_after_turn(stderr, opened)
        return cancelled_at_start(output_format, stdout=stdout, stderr=stderr, opened=opened,
                                  task=task, saved=early.message if early else None)
    finally:
        if agent is not None:
            agent.close()  # the shell tool's namespace ends with the session
        servers.stop()
        opened.close()


def closed_output_pipe(opened: OpenSession, stderr: TextIO, closed: list[TextIO]) -> int:
    """Exit 141 after one line (when stderr is open) saying the output pipe closed early.

    ``| head -c 20`` or a pager quitting: the turn went on to its end and the session holds
    the whole answer; the line says where to read it.
    """
    if stderr not in closed:
        stderr.write(terminal_safe(
            "goosectx: error: the output pipe was closed before the answer was written in full "
            "(its reader quit); the answer is saved — read it with: goosectx sessions show "
            f"{shlex.quote(session_ref(opened.session))}\n"))
        stderr.flush()
    return exit_signals.closed_pipe()


def _summary(session_id: str, name: str | None, finished: Finished) -> dict[str, Any]:
    last = finished.last_usage
    usage = {
        **summed_to_dict(finished.usage, finished.unreported),  # none reported: null, not 0
        "current_tokens": last.current_tokens if last else None,
        "context_limit_tokens": last.context_limit_tokens if last else None,
    }
    answer = next((m.text for m in reversed(finished.messages)
                   if m.role == "assistant" and m.text), "")
    return {
        "session_id": session_id,
        "session_name": name,
        "status": finished.status,
        "exit_code": exit_signals.exit_status(_EXIT_CODES[finished.status]),
        "error": finished.error,
        "answer": answer,
        "messages": [m.to_dict() for m in finished.messages],
        "usage": usage,
        "cost_usd": finished.usage.cost_usd,
        "compactions": finished.compactions,
        "denied_calls": finished.denied.calls,
    }


def paused_note(opened: OpenSession) -> str | None:
    """Why a resumed session will not be compacted automatically, and the fix, or ``None``.

    The REPL's banner says it (``/context`` too); a ``run`` in a script said nothing and sent a
    request twice the window after ``compact --undo``.
    """
    state = opened.session.state
    if not (opened.resumed and state.auto_compaction_paused):
        return None
    from goosectx.compaction.decide import FIXED_PART_CAUSE, resumed_reason

    if state.pause_reason.startswith(FIXED_PART_CAUSE):  # what every request sends: no
        return None  # compaction shrinks it, and its own notice named the fix
    ref = session_ref(opened.session)  # (its id when the name holds a key)
    if state.pause_reason and not state.paused_by_undo:  # the notice's sentences, as said
        return (f"auto-compaction is paused: "
                f"{resumed_reason(state.pause_reason)} Running goosectx compact {ref} "
                "compacts it and lifts the pause.")
    why = ("a compaction was undone" if state.paused_by_undo
           else "the last compaction did not shrink the context")
    return (f"auto-compaction is paused ({why}); goosectx compact {ref} "
            "compacts it and lifts the pause")


def auto_compaction_off(settings: Settings, model: str | None) -> str | None:
    """Why auto-compaction will not run in this ``run``, or ``None`` when it will."""
    if settings.model_config(model).manages_own_context:
        return "auto-compaction is off: the model manages its own context"
    if not settings.auto_compaction_enabled:
        return (f"auto-compaction is off (threshold {settings.threshold_ratio:g} from "
                f"{settings.source('threshold_ratio')} is outside (0, 1)); a long task may "
                "overflow the context window")
    return None


def _not_started(conversation: Conversation) -> str:
    """``, 1 (text_editor) not started`` for the calls after the interrupted one, else ``""``."""
    calls = not_started_calls(conversation)
    return f", {len(calls)} ({', '.join(calls)}) not started" if calls else ""
