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
130 cancelled (Ctrl-C); configuration and usage errors exit 2 via ``cli.app.main``.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from goosectx.approval import ApprovalDecision
from goosectx.cli.approval_view import VIEW_KEY, approval_question, plain_question
from goosectx.cli.common import OpenSession, choose_mode, open_session, resume_command
from goosectx.cli.folding import plural, tool_result_label
from goosectx.cli.sanitize import APPROVAL_MARKER, SafeStream, json_safe, terminal_safe
from goosectx.config import Settings, parse_mode
from goosectx.conversation import Message, ToolRequest
from goosectx.errors import GoosectxError, UsageError
from goosectx.events import (
    Event,
    HistoryReplaced,
    MessageCompleted,
    MessageDelta,
    Notification,
    ToolCallFinished,
    ToolCallStarted,
    ToolPairsSummarized,
    TurnFinished,
    UsageUpdated,
    event_to_json,
)
from goosectx.recorder import SessionRecorder
from goosectx.session import TokenCount
from goosectx.usage import Usage

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MAX_TURNS = 3
EXIT_CANCELLED = 130
_EXIT_CODES = {"done": EXIT_OK, "error": EXIT_ERROR, "max_turns": EXIT_MAX_TURNS,
               "cancelled": EXIT_CANCELLED}


def read_task(text: str | None, input_file: str | None, stdin: TextIO | None = None) -> str:
    """The task from ``-t TEXT`` or ``-i FILE`` (``-`` = stdin).

    Raises:
        UsageError: both or neither given, an unreadable file, or an empty task.
    """
    if (text is None) == (input_file is None):
        raise UsageError("give the task with exactly one of -t TEXT and -i FILE",
                         "e.g. goosectx run -t 'fix the failing test' (or -i - to read stdin)")
    if input_file is None:
        task = text or ""
    elif input_file == "-":
        task = (stdin or sys.stdin).read()
    else:
        try:
            task = Path(input_file).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"cannot read task file {input_file}: {exc.strerror}") from None
    if not task.strip():
        raise UsageError("the task is empty", "give some text with -t or -i")
    return task


class _Approver:
    """``run``'s approval callable: ask on a terminal, else deny and warn once per tool.

    Called only for a call whose verdict (:func:`goosectx.approval.decide`) is ``ask``.
    """

    def __init__(self, stdin: TextIO, stderr: TextIO) -> None:
        self.stdin = stdin
        self.stderr = stderr
        self.interactive = stdin.isatty()
        self.warned: set[str] = set()

    def __call__(self, request: ToolRequest) -> ApprovalDecision:
        if not self.interactive:
            if request.name not in self.warned:
                self.warned.add(request.name)
                self.stderr.write(terminal_safe(
                    f"goosectx: warning: {request.name} needs approval and there is no "
                    "terminal to ask, so it was denied; use --mode auto to run tools "
                    "without asking\n"))
                self.stderr.flush()
            return "deny"
        question = approval_question(request, shutil.get_terminal_size().columns)
        self._draw(plain_question(question, whole=False))
        viewed = not question.long
        while True:
            keys = "[y] once  [a] always (this tool)  [n] deny  [c] cancel the task"
            if not viewed:
                keys = f"[{VIEW_KEY}] view the whole call  {keys}"
            self._draw([f"{APPROVAL_MARKER} {keys}: "], end="")
            answer = self.stdin.readline().strip().lower()
            if answer == VIEW_KEY and not viewed:
                viewed = True
                self._draw(plain_question(question, whole=True))
                continue
            if answer in ("y", "yes", "a") and not viewed:
                self._draw([f"{APPROVAL_MARKER} press {VIEW_KEY} to see the whole call first"])
                continue
            return {"y": "allow_once", "yes": "allow_once", "a": "always_allow",
                    "c": "cancel"}.get(answer, "deny")  # type: ignore[return-value]

    def _draw(self, lines: list[str], end: str = "\n") -> None:
        """Write lines of goosectx's own question (their outside parts are already safe)."""
        self.stderr.write("\n".join(lines) + end)
        self.stderr.flush()


class _TextOutput:
    """``--output-format text``: answer on stdout, progress on stderr."""

    def __init__(self, stdout: TextIO, stderr: TextIO) -> None:
        self.stdout, self.stderr = stdout, stderr
        self.line_open = False
        self._answer = SafeStream()

    def _err(self, line: str) -> None:
        """One progress line on stderr; outside text in it is made terminal-safe."""
        if self.line_open:
            self.stdout.write("\n")
            self.stdout.flush()
            self.line_open = False
        self.stderr.write(terminal_safe(line) + "\n")
        self.stderr.flush()

    def on_event(self, event: Event) -> None:
        if isinstance(event, MessageDelta):
            text = self._answer.feed(event.text)
            if not text:
                return
            self.stdout.write(text)
            self.stdout.flush()
            self.line_open = not text.endswith("\n")
        elif isinstance(event, MessageCompleted) and event.message.role == "assistant":
            if self.line_open:
                self.stdout.write("\n")
                self.stdout.flush()
                self.line_open = False
        elif isinstance(event, ToolCallStarted):
            args = event.request.arguments_json()
            self._err(f"> {event.request.name} {args if len(args) <= 200 else args[:199] + '…'}")
        elif isinstance(event, ToolCallFinished) and event.response.is_error:
            label, ran = tool_result_label(event.response)
            first = (event.response.output.strip().splitlines() or [""])[0]
            self._err(f"  {label}: {first[:200]}" if ran else f"  {label}")
        elif isinstance(event, Notification) and event.kind == "inline":
            self._err(f"goosectx: {event.text}")
        elif isinstance(event, HistoryReplaced):
            self._err(f"goosectx: context compacted ({event.trigger}) · "
                      f"{event.tokens_before:,} → {event.tokens_after:,} tokens")
        elif isinstance(event, ToolPairsSummarized):
            self._err(f"goosectx: summarised {plural(event.count, 'old tool call')} "
                      f"(~{event.tokens_saved:,} tokens)")

    def start(self, started: dict[str, Any]) -> None:
        return

    def finish(self, summary: dict[str, Any]) -> None:
        if self.line_open:
            self.stdout.write("\n")
            self.stdout.flush()


class _StreamJsonOutput:
    """``--output-format stream-json``: one JSON object per line.

    First ``session_started`` (the session id), then one line per event, last one ``result``
    line (:func:`result_fields`).
    """

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout

    def _line(self, data: dict[str, Any]) -> None:
        self.stdout.write(json_safe(json.dumps(data, ensure_ascii=False)) + "\n")
        self.stdout.flush()

    def start(self, started: dict[str, Any]) -> None:
        self._line(started)

    def on_event(self, event: Event) -> None:
        self._line(event_to_json(event))

    def finish(self, summary: dict[str, Any]) -> None:
        self._line({"type": "result", **result_fields(summary)})


class _JsonOutput:
    """``--output-format json``: one object when the turn ends."""

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout

    def start(self, started: dict[str, Any]) -> None:
        return

    def on_event(self, event: Event) -> None:
        return

    def finish(self, summary: dict[str, Any]) -> None:
        self.stdout.write(json_safe(json.dumps(summary, ensure_ascii=False, indent=2)) + "\n")
        self.stdout.flush()


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

    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    task = read_task(text, input_file, stdin)
    if mode:
        parse_mode("--mode", mode)  # a bad --mode changes no data
    if max_turns is not None:
        settings.max_turns = max_turns
        settings.sources["max_turns"] = "--max-turns"
    model_name = model or settings.model
    servers = RunServers(settings)  # --with-extension flags: settings.extensions.flags
    try:
        make_provider(settings, model_name).check_credentials()
        opened = open_session(settings, name=name, resume=resume, continue_=continue_,
                              model=model_name)
    except GoosectxError as exc:
        # Scripts reading stdout still get a result in the format they asked for.
        failed = {"session_id": None, "status": "error", "error": exc.one_line(),
                  "exit_code": exc.exit_code, "usage": None, "cost_usd": None, "compactions": 0}
        if output_format == "json":
            stdout.write(json.dumps(failed) + "\n")
        elif output_format == "stream-json":
            stdout.write(json.dumps(event_to_json(TurnFinished("error", exc.one_line()))) + "\n")
            stdout.write(json.dumps({"type": "result", **result_fields(failed)}) + "\n")
        stdout.flush()
        raise
    manager = servers.start(opened, stderr)
    try:
        approval_mode = choose_mode(settings, mode, opened.session).mode
        approver = _Approver(stdin, stderr)
        agent = build_agent(settings, opened.session, approve=approver, mode=approval_mode,
                            model=model_name, interactive=approver.interactive, extensions=manager)
        output: _TextOutput | _StreamJsonOutput | _JsonOutput
        if output_format == "json":
            output = _JsonOutput(stdout)
        elif output_format == "stream-json":
            output = _StreamJsonOutput(stdout)
        else:
            output = _TextOutput(stdout, stderr)
        note = auto_compaction_off(settings, model_name)
        if note:
            stderr.write(terminal_safe(f"goosectx: note: {note}\n"))
        output.start({"type": "session_started", "session_id": opened.session.id,
                      "session_name": opened.session.name, "resumed": opened.resumed,
                      "model": model_name, "approval_mode": approval_mode,
                      "working_dir": str(opened.session.working_dir)})
        cancel = threading.Event()
        finished = _drive(agent.reply(task, cancel=cancel), cancel, opened, output,
                          agent.context.take_fresh_token_counts)
        status, error = finished.status, finished.error
        output.finish(_summary(opened.session.id, opened.session.name, finished))
        if status == "error":
            stderr.write(f"goosectx: error: {terminal_safe(error or '')}\n")
        elif status == "cancelled":
            stderr.write("goosectx: cancelled\n")
        elif status == "max_turns" and output_format != "text":
            # text output already printed the agent's one "stopped after" notice
            stderr.write(f"goosectx: stopped after {plural(settings.max_turns, 'model call')} "
                         "(the per-turn limit, --max-turns / GOOSE_MAX_TURNS)\n")
        stderr.write(terminal_safe(
            f"goosectx: session {opened.session.display_name} saved · resume with: "
            f"{resume_command(opened.session.name or opened.session.id, command='run')}\n"))
        stderr.flush()
        return _EXIT_CODES[status]
    finally:
        servers.stop()
        opened.close()


class _Finished:
    """What the turn produced, gathered from its events."""

    def __init__(self) -> None:
        self.status: str = "cancelled"
        self.error: str | None = None
        self.messages: list[Message] = []
        self.usage = Usage()
        """Every model call of the run, compaction and tool-pair summary calls included."""
        self.last_usage: UsageUpdated | None = None
        self.compactions = 0


def _drive(events: Iterator[Event], cancel: threading.Event, opened: OpenSession,
           output: _TextOutput | _StreamJsonOutput | _JsonOutput,
           fresh_token_counts: Callable[[], Mapping[str, TokenCount]] | None = None) -> _Finished:
    """Record and print every event until the turn ends.

    A Ctrl-C that lands here rather than inside the agent sets ``cancel`` and keeps
    iterating, so the agent still closes the turn out (partial text kept, open tool calls
    answered). A Ctrl-C that escapes the agent itself ends the turn as cancelled.
    """
    recorder = SessionRecorder(opened.store, opened.session)
    recorder.fresh_token_counts = fresh_token_counts
    finished = _Finished()
    while True:
        try:
            event = next(events)
        except StopIteration:
            return finished
        except KeyboardInterrupt:
            finished.status = "cancelled"
            return finished
        try:
            recorder.record(event)
            if isinstance(event, MessageCompleted):
                finished.messages.append(event.message)
            elif isinstance(event, UsageUpdated):
                finished.usage = finished.usage + event.call.usage
                finished.last_usage = event
            elif isinstance(event, HistoryReplaced | ToolPairsSummarized):
                if event.call is not None:
                    finished.usage = finished.usage + event.call.usage
                if isinstance(event, HistoryReplaced) and event.trigger != "clear":
                    finished.compactions += 1
            elif isinstance(event, TurnFinished):
                finished.status, finished.error = event.status, event.error
            output.on_event(event)
        except KeyboardInterrupt:
            cancel.set()


def _summary(session_id: str, name: str | None, finished: _Finished) -> dict[str, Any]:
    last = finished.last_usage
    usage = {
        **finished.usage.to_dict(),
        "current_tokens": last.current_tokens if last else None,
        "context_limit_tokens": last.context_limit_tokens if last else None,
    }
    answer = next((m.text for m in reversed(finished.messages)
                   if m.role == "assistant" and m.text), "")
    return {
        "session_id": session_id,
        "session_name": name,
        "status": finished.status,
        "exit_code": _EXIT_CODES[finished.status],
        "error": finished.error,
        "answer": answer,
        "messages": [m.to_dict() for m in finished.messages],
        "usage": usage,
        "cost_usd": finished.usage.cost_usd,
        "compactions": finished.compactions,
    }


RESULT_FIELDS = ("session_id", "status", "exit_code", "error", "usage", "cost_usd",
                 "compactions")
"""The fields of stream-json's last line (``{"type": "result", ...}``); ``json`` has them too."""


def result_fields(summary: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` event's fields, taken from the ``json`` summary (docs/architecture.md §3).

    ``cost_usd`` is ``null`` when unknown (a model without prices), never 0; ``usage`` counts
    every model call of the run, compaction calls included; ``compactions`` counts them.
    """
    return {key: summary.get(key) for key in RESULT_FIELDS}


def auto_compaction_off(settings: Settings, model: str | None) -> str | None:
    """Why auto-compaction will not run in this ``run``, or ``None`` when it will."""
    if settings.model_config(model).manages_own_context:
        return "auto-compaction is off: the model manages its own context"
    if not settings.auto_compaction_enabled:
        return (f"auto-compaction is off (threshold {settings.threshold_ratio:g} from "
                f"{settings.source('threshold_ratio')} is outside (0, 1)); a long task may "
                "overflow the context window")
    return None
