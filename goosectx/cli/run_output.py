"""``goosectx run``'s front ends: the approval question on a terminal and the three output formats.

``text`` streams the answer to stdout and reports the rest on stderr; ``stream-json`` writes one
event object per line; ``json`` one object at the end (docs/architecture.md §6).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from goosectx.approval import RULE_BOUND_WAY_OUT, ApprovalDecision, ApprovalVerdict
from goosectx.cli.approval_view import VIEW_KEY, approval_question, plain_question
from goosectx.cli.ascii_output import json_text
from goosectx.cli.folding import plural, tool_result_label
from goosectx.cli.run_failed import result_written
from goosectx.cli.sanitize import (
    APPROVAL_MARKER,
    SafeStream,
    code_safe,
    one_line_safe,
    terminal_safe,
)
from goosectx.cli.stdin_text import lenient
from goosectx.compaction.tool_errors import exception_line
from goosectx.conversation import ToolRequest
from goosectx.events import (
    Event,
    HistoryReplaced,
    MessageCompleted,
    MessageDelta,
    Notification,
    ReasoningDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolPairsSummarized,
    event_to_json,
)
from goosectx.sensitive import hidden_target, read_paths
from goosectx.tools.editdiff import links_note

OUTPUT_MARKER_LINES = frozenset({"[stdout]", "[stderr]"})
REFUSED_SHOWN = 5
"""Calls refused alike in a row that ``run`` draws one by one; the rest are one count line."""
"""The shell tool's section headers: they say where a line came from, not what went wrong."""


def first_meaningful_line(output: str) -> str:
    r"""The first line of a tool's output that is neither blank nor a section header.

    Lines end at ``\n`` (``\r\n`` too) only, as the REPL draws them: a U+0085 or U+2028 in
    a message (``str.splitlines`` ends a line there) does not cut it short.
    """
    lines = (line.strip() for line in output.split("\n"))
    return next((line for line in lines if line and line not in OUTPUT_MARKER_LINES), "")


def error_line(output: str) -> str:
    """A traceback's last ``…Error: message`` line, else the first meaningful line.

    The exception line is the one a compaction's facts keep as the error, so the terminal and
    the model's summary name the same.
    """
    return exception_line(output) or first_meaningful_line(output)


def _clipped(text: str, width: int) -> str:
    """``text`` cut to about ``width`` characters at a word, ending in ``…`` when it was cut."""
    if len(text) <= width:
        return text
    cut = text[:width]
    at = cut.rfind(" ")
    return (cut[:at] if at > width // 2 else cut).rstrip() + " …"


def split_links(event: Event) -> str | None:
    """The note of a finished edit that split its file's hard links (``None``: no such note).

    The other names keep the old text: text output writes it under the call's line, json and
    stream-json as a notice.
    """
    if not isinstance(event, ToolCallFinished) or event.response.is_error:
        return None
    return links_note(event.response.diff or "")


def _asked_about(request: ToolRequest) -> str:
    """What the call a path made ask does to it, as ``run``'s warning words it.

    ``reading it`` (a ``text_editor view``, a ``tree``), ``editing it`` (another
    ``text_editor`` command: an edit of ``.env`` after ``a``), ``running the command`` (a
    shell command naming a sensitive file or a path outside the project).
    """
    if request.name == "shell":
        return "running the command"
    if read_paths(request.name, request.arguments or {}, Path("/")) is not None:
        return "reading it"
    return "editing it" if request.name == "text_editor" else "the call"


class Approver:
    """``run``'s approval callable: ask on a terminal, else deny and warn once per tool.

    Called only for a call whose verdict (:func:`goosectx.approval.decide`) is ``ask``.
    """

    def __init__(self, stdin: TextIO, stderr: TextIO, mode: str = "smart_approve",
                 working_dir: Path | None = None) -> None:
        self.working_dir = working_dir
        """The session's working dir: an edit a symlink leads outside it is named so."""
        self.interactive = stdin.isatty()
        # A byte that is not UTF-8 in an answer is U+FFFD: an answer that means nothing.
        self.stdin = lenient(stdin) if self.interactive else stdin
        self.stderr = stderr
        self.mode = mode
        self.warned: set[str] = set()
        self.pending: list[str] | None = None
        """Warnings kept for the output to write after the call's line (:meth:`defer`)."""
        self.notify: Callable[[str], None] | None = None
        """Also given each warning (without ``goosectx: warning:``): json's ``notices``."""
        self.verdict_of: Callable[[ToolRequest], ApprovalVerdict] | None = None
        """The decision on a call (``Agent.verdict_of``): a rule's ask is warned with why."""
        self.read_only: Callable[[ToolRequest], bool] = lambda _request: False
        """``a`` at this call allows only the tool's read-only calls, and says so
        (``Agent.always_reads_only``: a ``text_editor view``)."""

    def defer(self) -> list[str]:
        """Keep the "denied" warnings for the caller to write after the call they are about.

        Text output writes the ``> shell {…}`` line when the call is answered, after the
        approval was asked: the warning written at once came before the line it refers to.
        """
        self.pending = []
        return self.pending

    def __call__(self, request: ToolRequest) -> ApprovalDecision:
        """Ask about one call (deny without a terminal)."""
        target = (None if self.working_dir is None else
                  hidden_target(request.name, request.arguments or {}, self.working_dir))
        verdict = self.verdict_of(request) if self.verdict_of is not None else None
        read_why = None if verdict is None else verdict.read_why  # why read scoping asks
        if not self.interactive:
            bound = verdict is not None and verdict.rule_bound  # each reason said once
            key = verdict.reason if verdict is not None and bound else request.name
            if key not in self.warned or target is not None or read_why is not None:
                self.warned.add(key)
                fix = ("a permission rule asks about it: answer it in the REPL, or change "
                       "[permissions]" if self.mode == "auto" else
                       "use --mode auto to run tools without asking")
                if verdict is not None and bound:  # no --allow or mode can run it
                    fix = f"{verdict.reason}; {RULE_BOUND_WAY_OUT}"
                if read_why is not None:
                    fix = (f"{read_why}, so {_asked_about(request)} is asked about: answer it "
                           "in the REPL, or use --mode auto")
                if target is not None:
                    fix = (f"its path leads through a symlink to {target}, outside the "
                           "project, which is always asked about: answer it in the REPL")
                notice = (f"{request.name} needs approval and there is no terminal to ask, "
                          f"so it was denied; {fix}")
                warning = one_line_safe(f"goosectx: warning: {notice}")  # a path may hold \n
                if self.notify is not None:
                    self.notify(notice)
                if self.pending is not None:
                    self.pending.append(warning)
                else:
                    self.stderr.write(terminal_safe(warning) + "\n")
                    self.stderr.flush()
            return "deny"
        question = approval_question(request, shutil.get_terminal_size().columns,
                                     target=None if target is None else str(target),
                                     why=None if verdict is None else verdict.asked_why)
        self._draw(plain_question(question, whole=False))
        viewed = not question.long
        while True:
            always = "this tool's read-only calls" if self.read_only(request) else "this tool"
            keys = f"[y] once  [a] always ({always})  [n] deny  [c] cancel the task"
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


class TextOutput:
    """``--output-format text``: answer on stdout, progress on stderr.

    The model's reasoning is not written (stdout stays the answer, stderr the progress); it is
    saved with the session, and stream-json carries it as ``reasoning_delta`` events.
    """

    def __init__(self, stdout: TextIO, stderr: TextIO, after_call: list[str] | None = None
                 ) -> None:
        self.stdout, self.stderr = stdout, stderr
        self.after_call = after_call if after_call is not None else []
        """Lines to write after the next call's result line (:meth:`Approver.defer`)."""
        self.line_open = False
        self._answer = SafeStream()
        self._unstarted: dict[str, ToolRequest] = {}  # the reply's calls, by id, until started
        self._refused_label: str | None = None  # of the refused calls in a row (_folded)
        self._refused_in_row = 0

    def _folded(self, label: str) -> bool:
        """Whether a call refused with ``label`` (never started) is counted, not drawn.

        A reply of hundreds of calls refused alike (no terminal to ask) draws the first
        :data:`REFUSED_SHOWN` of them and then one count line, not two lines per call.
        """
        if label != self._refused_label:
            self._say_folded()
            self._refused_label, self._refused_in_row = label, 0
        self._refused_in_row += 1
        return self._refused_in_row > REFUSED_SHOWN

    def _say_folded(self) -> None:
        """The count line for the refused calls :meth:`_folded` kept back, if any."""
        more, label = self._refused_in_row - REFUSED_SHOWN, self._refused_label
        self._refused_label, self._refused_in_row = None, 0
        if more > 0:
            self._err(f"  … and {plural(more, 'more tool call')}, each {label}")
            self._write_after_call()

    def _err(self, line: str) -> None:
        """One progress line on stderr; outside text in it is made terminal-safe."""
        if self._refused_in_row > REFUSED_SHOWN:
            self._say_folded()
        if self.line_open:
            self.stdout.write("\n")
            self.stdout.flush()
            self.line_open = False
        self.stderr.write(terminal_safe(line) + "\n")
        self.stderr.flush()

    def _call_line(self, request: ToolRequest) -> None:
        """``> NAME ARGUMENTS`` (cut at 200 characters): which call this is."""
        self._unstarted.pop(request.id, None)
        args = request.arguments_json()
        self._err(code_safe(f"> {request.name} {args if len(args) <= 200 else args[:199] + '…'}"))

    def on_event(self, event: Event) -> None:
        """Show one event."""
        if not isinstance(event, ToolCallFinished) and self._refused_in_row:
            self._say_folded()  # the refused calls in a row ended
        if isinstance(event, MessageDelta):
            text = self._answer.feed(event.text)
            if not text:
                return
            self.stdout.write(text)
            self.stdout.flush()
            self.line_open = not text.endswith("\n")
        elif isinstance(event, MessageCompleted) and event.message.role == "assistant":
            self._unstarted = {r.id: r for r in event.message.tool_requests}
            if self.line_open:
                self.stdout.write("\n")
                self.stdout.flush()
                self.line_open = False
        elif isinstance(event, ToolCallStarted):
            self._call_line(event.request)
        elif isinstance(event, ToolCallFinished) and event.response.is_error:
            label, ran = tool_result_label(event.response)
            request = self._unstarted.pop(event.response.id, None)
            if request is not None and self._folded(label):
                return
            if request is not None:  # never started (denied, refused, not run): name it too
                self._call_line(request)
            first = error_line(event.response.output)
            said = not ran or label.startswith("stopped: ")  # the label already says the cause
            self._err(f"  {label}" if said else f"  {label}: {_clipped(first, 200)}")
            self._write_after_call()
        elif (note := split_links(event)) is not None:
            self._err(f"  {one_line_safe(note)}")  # the other names keep the old text
        elif isinstance(event, Notification) and event.kind == "inline":
            self._err(f"goosectx: {event.text}")
        elif isinstance(event, HistoryReplaced):
            self._err(f"goosectx: context compacted ({event.trigger}) · "
                      f"{event.tokens_before:,} → {event.tokens_after:,} tokens")
        elif isinstance(event, ToolPairsSummarized):
            self._err(f"goosectx: summarised {plural(event.count, 'old tool call')} "
                      f"(~{event.tokens_saved:,} tokens)")

    def start(self, started: dict[str, Any]) -> None:
        """The run started (``started``: session id, model...)."""
        return

    def _write_after_call(self) -> None:
        while self.after_call:
            self._err(self.after_call.pop(0))

    def finish(self, summary: dict[str, Any]) -> None:
        """The run ended (``summary``: status, usage, messages...)."""
        self._say_folded()
        if self.line_open:
            self.stdout.write("\n")
            self.stdout.flush()
        self._write_after_call()  # a call that ended the turn unanswered: still said


class StreamJsonOutput:
    """``--output-format stream-json``: one JSON object per line.

    First ``session_started`` (the session id), then one line per event, last one ``result``
    line (:func:`result_fields`). The model's reasoning streams as ``reasoning_delta`` lines
    unless ``reasoning`` is False (``show_reasoning = false``).
    """

    def __init__(self, stdout: TextIO, *, reasoning: bool = True) -> None:
        self.stdout = stdout
        self.reasoning = reasoning

    def _line(self, data: dict[str, Any]) -> None:
        self.stdout.write(json_text(data, self.stdout) + "\n")
        self.stdout.flush()

    def start(self, started: dict[str, Any]) -> None:
        """The run started (``started``: session id, model...)."""
        self._line(started)

    def notice(self, text: str) -> None:
        """A notice of ``run``'s own (a call denied for want of a terminal), as events have."""
        self._line(event_to_json(Notification("inline", text)))

    def on_event(self, event: Event) -> None:
        """Show one event."""
        if self.reasoning or not isinstance(event, ReasoningDelta):
            self._line(event_to_json(event))
        if (note := split_links(event)) is not None:
            self.notice(note)

    def finish(self, summary: dict[str, Any]) -> None:
        """The run ended (``summary``: status, usage, messages...)."""
        self._line({"type": "result", **result_fields(summary)})
        result_written()


class JsonOutput:
    """``--output-format json``: one object when the turn ends (inline notices on stderr too)."""

    def __init__(self, stdout: TextIO, stderr: TextIO | None = None) -> None:
        self.stdout, self.stderr = stdout, stderr
        self.notices: list[str] = []

    def start(self, started: dict[str, Any]) -> None:
        """The run started (``started``: session id, model...)."""
        return

    def notice(self, text: str) -> None:
        """Keep a notice of ``run``'s own (a call denied for want of a terminal)."""
        self.notices.append(text)

    def on_event(self, event: Event) -> None:
        """Keep the turn's inline notices and write each on stderr now, as text output does.

        An answer cut at the output limit, a server that could not start, an edit that split
        its file's hard links, …
        """
        if isinstance(event, Notification) and event.kind == "inline":
            self._keep(event.text, f"goosectx: {event.text}")
        elif (note := split_links(event)) is not None:  # a path in it may hold a newline
            self._keep(note, one_line_safe(f"goosectx: {note}"))

    def _keep(self, notice: str, line: str) -> None:
        self.notices.append(notice)
        if self.stderr is not None:
            self.stderr.write(terminal_safe(line) + "\n")
            self.stderr.flush()

    def finish(self, summary: dict[str, Any]) -> None:
        """The run ended (``summary``: status, usage, messages...), with ``notices``."""
        summary = {**summary, "notices": self.notices}
        self.stdout.write(json_text(summary, self.stdout, indent=2) + "\n")
        self.stdout.flush()
        result_written()


RESULT_FIELDS = ("session_id", "status", "exit_code", "error", "usage", "cost_usd",
                 "compactions", "denied_calls")
"""The fields of stream-json's last line (``{"type": "result", ...}``); ``json`` has them too."""


def result_fields(summary: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` event's fields, taken from the ``json`` summary (docs/architecture.md §3).

    ``cost_usd`` is ``null`` when unknown (a model without prices), never 0; ``usage`` counts
    every model call of the run, compaction calls included; ``compactions`` counts them;
    ``denied_calls`` lists the calls refused rather than run (:mod:`goosectx.cli.run_denials`).
    """
    return {key: summary.get(key) for key in RESULT_FIELDS}
