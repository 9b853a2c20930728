"""How an edit's unified diff is drawn: coloured lines (rich) or prefixed lines (plain).

Pure functions returning what to print; the renderer and the approval question call them.
The diff holds file content (outside text), so every line passes the terminal cleaner first
(docs/architecture.md, "The print path").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from goosectx.cli.folding import clean_output
from goosectx.cli.sanitize import code_safe
from goosectx.conversation import ToolRequest
from goosectx.shown import LINE_MAX_CHARS
from goosectx.tools.definitions import TEXT_EDITOR_NAME
from goosectx.tools.editdiff import diff_counts, not_diffed, undo_note

if TYPE_CHECKING:
    from goosectx.cli.surface import Surface

DIFF_SHOW_LINES = 60
"""Diff lines drawn before the rest is folded (``/show N`` prints it whole)."""


def _style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("@@"):
        return "cyan"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return "dim"


def diff_summary(diff: str) -> str:
    """``+3 −1 lines``: what a diff adds and removes.

    A file too large to diff gives what the edit did instead (``1 replacement · diff not
    shown (file over 1 MB)``), never a misleading ``+0 −0``; an edit ``/undo`` cannot restore
    adds ``· /undo cannot restore it`` (the diff's last line says why).
    """
    added, removed = diff_counts(diff)
    summary = not_diffed(diff) or f"+{added} −{removed} lines"
    return summary + (" · /undo cannot restore it" if undo_note(diff) else "")


def diff_lines(diff: str, *, limit: int | None = DIFF_SHOW_LINES) -> tuple[list[str], int]:
    """The diff's lines made terminal-safe, and how many were left out past ``limit``.

    ``limit=None`` keeps every line whole (``/show``); otherwise long lines are cut too.
    """
    if not diff:
        return [], 0
    lines = clean_output(diff, tool=TEXT_EDITOR_NAME).rstrip("\n").split("\n")  # a file's text
    if limit is None:
        return lines, 0
    lines = [ln if len(ln) <= LINE_MAX_CHARS else ln[:LINE_MAX_CHARS] + "…" for ln in lines]
    if len(lines) <= limit:
        return lines, 0
    return lines[:limit], len(lines) - limit


def diff_shown_whole(diff: str) -> bool:
    """True when :func:`diff_text` / :func:`diff_plain` draw every line of ``diff`` uncut.

    No line held back, none cut at :data:`~goosectx.shown.LINE_MAX_CHARS` (an escape
    sequence in the file's text is drawn as a stand-in, ``␛[35m``, never removed): the user
    saw the whole change (an edit's approval then needs no ``v``).
    """
    if not diff:
        return False
    lines, hidden = diff_lines(diff)
    return hidden == 0 and lines == diff_lines(diff, limit=None)[0]


def diff_text(diff: str, *, indent: str = "  ", fold_note: str = "",
              limit: int | None = DIFF_SHOW_LINES) -> Text:
    """The diff as coloured rich ``Text`` (never markup): ``+`` green, ``-`` red, hunks cyan."""
    lines, hidden = diff_lines(diff, limit=limit)
    text = Text()
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        text.append(indent + line, style=_style(line))
    if hidden:
        text.append(f"\n{indent}… {hidden} more diff lines{fold_note} …", style="dim italic")
    return text


def diff_plain(diff: str, *, indent: str = "  ", fold_note: str = "",
               limit: int | None = DIFF_SHOW_LINES) -> list[str]:
    """The diff as plain lines (no colour): each line prefixed with ``indent``."""
    lines, hidden = diff_lines(diff, limit=limit)
    out = [indent + line for line in lines]
    if hidden:
        out.append(f"{indent}… {hidden} more diff lines{fold_note} …")
    return out


def draw_edit_preview(surface: Surface, request: ToolRequest, diff: str) -> None:
    """Draw the diff an edit would make (just before its approval question)."""
    path = request.arguments.get("path", "") if request.arguments else ""
    head = (f"{code_safe(request.name)} wants to change {clean_output(str(path))} · "
            f"{diff_summary(diff)}")
    if surface.plain:
        surface._plain(head)
        for line in diff_plain(diff):
            surface._plain(line)
        return
    surface.console.print(Text(head, style="bold yellow"))
    surface.console.print(diff_text(diff))
