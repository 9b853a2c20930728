"""The approval question as goosectx draws it: marked, whole, and impossible to forge.

A model can write text that looks like an approval question and so hide the real one behind
it (issue 15). Three things keep the real question recognisable:

* it is drawn only after the model's text is finished (the REPL settles the stream first);
* every line of it starts with :data:`~goosectx.cli.sanitize.APPROVAL_MARKER` (``⚑``), which
  :func:`~goosectx.cli.sanitize.terminal_safe` turns into ``<U+2691>`` in all outside text,
  so no model, tool or transcript text can show it — in the plain look too. In the rich look
  the marker is drawn in goosectx's own style (:data:`~goosectx.cli.safe_console.OWN_STYLE`);
* the call is shown whole — the full command, every argument, with bidirectional overrides
  and zero-width characters made visible. A call longer than :data:`LONG_CALL_LINES` screen
  lines is shown folded first; ``v`` shows it whole, and only then do ``y`` and ``a`` count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rich.cells import cell_len, get_character_cell_size
from rich.text import Text

from goosectx.cli.safe_console import OWN_STYLE
from goosectx.cli.sanitize import APPROVAL_MARKER, code_safe, one_line_safe
from goosectx.conversation import ToolRequest

LONG_CALL_LINES = 12
"""A call taking more screen lines than this is folded until ``v`` shows it whole."""
FOLDED_HEAD_LINES = 8
"""Lines of a long call shown before the ``v`` hint."""
VIEW_KEY = "v"


@dataclass(frozen=True, slots=True)
class ApprovalQuestion:
    """One approval question, made terminal-safe.

    Attributes:
        tool: The tool's name (sanitised).
        lines: The whole call, as screen lines (long lines wrapped): for ``shell`` the
            command, else ``key: value`` lines with every value in full (sanitised).
        long: True when the call is folded until ``v``.
        in_diff: True when the diff drawn above it showed the whole change (every line,
            none cut): then ``y``/``a`` count without ``v``.
        why: Why goosectx asks, as screen lines (``asked because /x/notes.txt is outside the
            project``), drawn under the title and never folded; ``()``: the mode asks.
    """

    tool: str
    lines: tuple[str, ...]
    long: bool
    in_diff: bool = False
    why: tuple[str, ...] = ()

    @property
    def must_view(self) -> bool:
        """True when ``y``/``a`` count only after ``v`` showed the whole call."""
        return self.long and not self.in_diff

    def shown(self, *, whole: bool) -> tuple[list[str], int]:
        """The lines to draw and how many are held back (0 when shown whole)."""
        if whole or not self.long:
            return list(self.lines), 0
        head = list(self.lines[:FOLDED_HEAD_LINES])
        return head, len(self.lines) - len(head)


def _call_lines(request: ToolRequest, target: str | None) -> list[str]:
    if request.arguments is None:
        raw = request.raw_arguments or ""
        return [f"({request.parse_error or 'arguments are not valid JSON'})",
                *raw.split("\n")]
    arguments = dict(request.arguments)
    lines: list[str] = []
    command = arguments.get("command")
    if request.name == "shell" and isinstance(command, str):
        del arguments["command"]
        lines += command.split("\n")
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts = text.split("\n")
        if key == "path" and target is not None:
            parts[0] += f" → {target}, outside the project"
        lines.append(f"{key}: {parts[0]}")
        lines += ["  " + part for part in parts[1:]]
    return lines or ["(no arguments)"]


def approval_question(request: ToolRequest, width: int, *, in_diff: bool = False,
                      target: str | None = None, why: str | None = None) -> ApprovalQuestion:
    """The question for ``request`` on a screen ``width`` columns wide.

    ``target``: where an edit really writes when a symlink leads it outside the project
    (:func:`~goosectx.sensitive.hidden_target`); the ``path`` line names it. Each line of
    the call is wrapped to the screen by screen cells (a wide CJK character takes two: so every
    screen line carries the marker)
    and counted; more than :data:`LONG_CALL_LINES` makes the call long. ``in_diff``: the
    edit's whole diff was drawn just before (``diffview.diff_shown_whole``). ``why``: the
    reason the decision asks, when it is the call's own (``ApprovalVerdict.asked_why``: read
    scoping's, or a permission rule's).
    """
    usable = max(20, width - 5)
    lines: list[str] = []
    for line in _call_lines(request, target):
        lines += _cut_to_cells(code_safe(line), usable)
    said = ([] if why is None else  # a path in it may hold a newline: shown as ␊
            _wrap_words(code_safe(one_line_safe(f"asked because {why}")), usable))
    return ApprovalQuestion(code_safe(request.name), tuple(lines),
                            len(lines) > LONG_CALL_LINES, in_diff, tuple(said))


def _held_back(question: ApprovalQuestion, hidden: int) -> str:
    more = f"… {hidden} more line{'s' if hidden != 1 else ''}"
    if not question.must_view:
        return f"{more} — the diff above shows the whole change"
    return f"{more} — press {VIEW_KEY} to see the whole call; y and a count only after that"


def plain_question(question: ApprovalQuestion, *, whole: bool) -> list[str]:
    """The question as plain lines, each starting with the marker (no keys line)."""
    shown, hidden = question.shown(whole=whole)
    out = [f"{APPROVAL_MARKER} goosectx asks: run {question.tool}?"]
    out += [f"{APPROVAL_MARKER}   {line}" for line in (*question.why, *shown)]
    if hidden:
        out.append(f"{APPROVAL_MARKER}   {_held_back(question, hidden)}")
    return out


def rich_question(question: ApprovalQuestion, *, whole: bool) -> Text:
    """The question for the rich look: marker in goosectx's own style, call in full."""
    shown, hidden = question.shown(whole=whole)
    text = Text()
    text.append(f"{APPROVAL_MARKER} ", style=OWN_STYLE)
    text.append(f"goosectx asks: run {question.tool}?", style="bold yellow")
    for line in question.why:
        text.append(f"\n{APPROVAL_MARKER} ", style=OWN_STYLE)
        text.append(f"  {line}", style="yellow")
    for line in shown:
        text.append(f"\n{APPROVAL_MARKER} ", style=OWN_STYLE)
        text.append(f"  {line}")
    if hidden:
        text.append(f"\n{APPROVAL_MARKER} ", style=OWN_STYLE)
        text.append(f"  {_held_back(question, hidden)}", style="bold yellow")
    return text


def _wrap_words(text: str, cells: int) -> list[str]:
    """``text`` wrapped at spaces to ``cells`` screen cells a line (a longer word is cut)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and cell_len(lines[-1]) + 1 + cell_len(word) <= cells:
            lines[-1] += " " + word
        else:
            lines += _cut_to_cells(word, cells)
    return lines


def _cut_to_cells(text: str, cells: int) -> list[str]:
    """``text`` as pieces of at most ``cells`` screen cells each (``[""]`` for no text)."""
    if text.isascii():  # one cell a character (code_safe leaves no control character)
        return [text[i : i + cells] for i in range(0, len(text), cells)] or [""]
    pieces: list[str] = []
    start, used = 0, 0
    for at, char in enumerate(text):
        width = get_character_cell_size(char)
        if used + width > cells and at > start:
            pieces.append(text[start:at])
            start, used = at, 0
        used += width
    pieces.append(text[start:])
    return pieces
