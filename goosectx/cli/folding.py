"""How long texts are shortened in the transcript: tool output, arguments, thinking.

Pure functions: the renderer decides where the results go. Nothing is cut from the stored
session — only what is drawn. :func:`plural` counts things in the CLI's messages.
"""

from __future__ import annotations

import json

from goosectx.approval import (
    ASKED_CANCELLED_TEXT,
    CANCELLED_TEXT,
    CHAT_MODE_TEXT,
    DENIED_TEXT,
    INPUT_ENDED_TEXT,
    NON_INTERACTIVE_DENIED_TEXT,
    STOPPED_PREFIX,
    STOPPED_RUNNING,
)
from goosectx.cli.sanitize import one_line_safe, strip_csi, terminal_safe
from goosectx.cli.words import plural as plural
from goosectx.conversation import ToolRequest, ToolResponse
from goosectx.shown import LINE_MAX_CHARS
from goosectx.tools.definitions import TEXT_EDITOR_NAME, TREE_NAME
from goosectx.turn import (
    CANCELLED_NOT_STARTED_TEXT,
    ERROR_NOT_STARTED_PREFIX,
    INTERRUPTED_TEXT,
    NO_RESULT_TEXT,
    NOT_STARTED_TEXT,
    UNRECORDED_TEXT,
)

FOLD_LINES = 12
"""A tool result longer than this many lines is folded."""
FOLD_HEAD_LINES = 6
FOLD_TAIL_LINES = 4
ARGUMENT_LINES = 8
"""A tool-call argument longer than this many lines is folded."""



FILE_TOOLS = frozenset({TEXT_EDITOR_NAME, TREE_NAME})
"""goosectx's own tools whose output is a file's text or names: no program coloured it, so an
escape sequence in it is the file's own and is shown (``␛[35m``), never dropped."""


def clean_output(text: str, *, tool: str | None = None) -> str:
    """Tool output made safe for a terminal.

    Complete CSI sequences (colours, cursor moves: programs print them as a matter of
    course, ``ls --color``, pytest, a progress bar) are removed; everything else that could
    drive the terminal or hide text is shown as a visible stand-in
    (:func:`~goosectx.cli.sanitize.terminal_safe`: ``␛]0;title␇``, ``<U+009B>``,
    ``<U+202E>``); tabs and newlines are kept and CR LF becomes LF. The output of one of
    :data:`FILE_TOOLS` (``tool``) keeps its CSI sequences as stand-ins too: a file that holds
    ``ESC [35m`` or is named with one shows it, as the model reads it.
    """
    return terminal_safe(text if tool in FILE_TOOLS else strip_csi(text))


def fold_lines(text: str, *, limit: int = FOLD_LINES, head: int = FOLD_HEAD_LINES,
               tail: int = FOLD_TAIL_LINES) -> tuple[list[str], int]:
    """Fold a long text.

    Returns:
        ``(lines, hidden)``: when the text has more than ``limit`` lines, its first ``head``
        and last ``tail`` lines and the number of lines left out (a marker goes where they
        were, at index ``head``); otherwise every line and ``0``.
        Lines longer than :data:`LINE_MAX_CHARS` are cut with ``…``.
    """
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    lines = [ln if len(ln) <= LINE_MAX_CHARS else ln[:LINE_MAX_CHARS] + "…" for ln in lines]
    if len(lines) <= limit:
        return lines, 0
    hidden = len(lines) - head - tail
    return lines[:head] + lines[len(lines) - tail:], hidden


def argument_lines(request: ToolRequest) -> list[str]:
    """A tool call's arguments as ``key: value`` lines, long values folded.

    Malformed arguments come first with the parse error, then the raw text. The model wrote
    them, so escape sequences show as stand-ins (``␛[2J``), never removed: the rule of
    :mod:`goosectx.cli.sanitize` (only tool output loses its CSI sequences).
    """
    if request.arguments is None:
        raw = request.raw_arguments or ""
        return [f"({request.parse_error or 'arguments are not valid JSON'})",
                *raw.splitlines()[:ARGUMENT_LINES]]
    out: list[str] = []
    for key, value in request.arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines, hidden = fold_lines(terminal_safe(text), limit=ARGUMENT_LINES, head=5, tail=2)
        if len(lines) <= 1 and not hidden:
            out.append(f"{key}: {lines[0] if lines else ''}")
            continue
        out.append(f"{key}:")
        out += ["  " + ln for ln in lines[:5 if hidden else len(lines)]]
        if hidden:
            out.append(f"  … {hidden} more lines …")
            out += ["  " + ln for ln in lines[5:]]
    return out


_NOT_RUN_LABELS = (
    (DENIED_TEXT.split(".")[0], "denied by you"),
    (NON_INTERACTIVE_DENIED_TEXT.split(",")[0], "denied: no terminal to ask"),
    (CHAT_MODE_TEXT.split(":")[0], "not run: chat mode"),
    (STOPPED_PREFIX, "not run: goosectx was asked to stop"),
    (NOT_STARTED_TEXT.split(";")[0], "not run: goosectx exited before it started"),
    (INPUT_ENDED_TEXT.split(",")[0], "input ended at the approval question: the call was not run"),
    (ASKED_CANCELLED_TEXT, "not run: cancelled by you"),
    (CANCELLED_NOT_STARTED_TEXT, "not run: cancelled by you"),
)
"""First words of the tool response goosectx writes for a call it did not run → its label."""
INPUT_ENDED_LABEL = _NOT_RUN_LABELS[5][1]
CANCELLED_LABEL = "cancelled by you"
"""A call the user's Ctrl-C stopped as it ran (or met as it started): it may have run."""
UNRUN_BY_CANCEL = {CANCELLED_LABEL: "cancelled by you",
                   _NOT_RUN_LABELS[-1][1]: "cancelled by you",
                   _NOT_RUN_LABELS[3][1]: "goosectx was asked to stop",
                   INPUT_ENDED_LABEL: "input ended at the approval question"}
"""The labels of the answers a cancelled turn gives the calls it leaves unrun → the reason the
one line standing for the rest of them says (``✗ 199 more tool calls not run: …``): the call
a Ctrl-C stopped and those after it share one. (An error's: :func:`unrun_reason`.)"""
ERROR_NOT_RUN = "not run: "
"""Starts the label of a call an error's end of the turn came before: ``not run: the turn
ended on an error (the spending cap was reached)``."""


def unrun_reason(label: str) -> str | None:
    """Why the calls labelled ``label`` were left unrun by the end of their turn, or ``None``.

    The calls of one reply a cancel (or an error) came before share the reason, and all but
    the first are drawn as one line saying it (``cli/render.py``).
    """
    if label in UNRUN_BY_CANCEL:
        return UNRUN_BY_CANCEL[label]
    error = ERROR_NOT_STARTED_PREFIX.removeprefix("[not run: ")
    return label.removeprefix(ERROR_NOT_RUN) if label.startswith(ERROR_NOT_RUN + error) else None


def _error_label(output: str) -> str:
    """``not run: the turn ended on an error (KIND)`` of a ``turn.error_not_started_text``."""
    said = output.removeprefix("[not run: ").partition(" before this call started")[0]
    return one_line_safe(ERROR_NOT_RUN + said[:200])  # (an imported text may hold anything)
INTERRUPTED_LABEL = "interrupted"
"""A call goosectx died during (its answer stored on resume, ``turn.INTERRUPTED_TEXT``)."""
UNRECORDED_LABEL = "no result in the import"
"""A call an imported transcript ends with, or never answers (``turn.UNRECORDED_TEXT``,
``turn.NO_RESULT_TEXT``)."""


def tool_result_label(response: ToolResponse) -> tuple[str, bool]:
    """How a tool result reads: (``output`` / ``error`` / ``denied by you`` / …, ran).

    ``ran`` is False for a call goosectx did not run (denied, chat mode, cancelled before it
    started, never reached as an error ended the turn): its response text is written for the
    model and is not drawn. A denial is not a tool error.
    """
    if response.is_error:
        head = response.output.partition("\n")[0]
        if head.startswith(STOPPED_PREFIX) and STOPPED_RUNNING in head:  # "… (SIGTERM) while"
            return f"stopped: {head.partition(f' {STOPPED_RUNNING}')[0]}", True
        for prefix, label in _NOT_RUN_LABELS:
            if response.output.startswith(prefix):
                return label, False
        if response.output.startswith(ERROR_NOT_STARTED_PREFIX):
            return _error_label(response.output), False
        if response.output.startswith(CANCELLED_TEXT):
            return CANCELLED_LABEL, True
        if response.output.startswith(INTERRUPTED_TEXT):
            return INTERRUPTED_LABEL, True
        if response.output.startswith((UNRECORDED_TEXT, NO_RESULT_TEXT)):
            return UNRECORDED_LABEL, True
        return "error", True
    return "output", True
