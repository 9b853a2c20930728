"""How a tool result is drawn: folded past a dozen lines, numbered for ``/show N``, or a diff.

Pure drawing on a :class:`~goosectx.cli.surface.Surface`; the renderer decides *when*.
Output is outside text: every line passes the terminal cleaner first (docs/architecture.md,
"The print path").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment, Segments
from rich.style import Style
from rich.text import Text

from goosectx.cli.diffview import diff_plain, diff_summary, diff_text
from goosectx.cli.folding import (
    FOLD_HEAD_LINES,
    FOLD_TAIL_LINES,
    clean_output,
    fold_lines,
    plural,
)
from goosectx.conversation import ToolResponse
from goosectx.shown import has_long_line
from goosectx.tools.editdiff import undo_note
from goosectx.tools.output import CUT_MARKER

if TYPE_CHECKING:
    from rich.console import Console

    from goosectx.cli.surface import Surface

GUTTER = "  │ "
"""What every row of a tool result starts with (``  | `` in plain mode)."""


def draw_folded_result(surface: Surface, response: ToolResponse, title: str,
                       number: int, *, tool: str | None = None) -> None:
    """``✓ shell output · 41 lines · #3 (/show 3)``, then its head, a fold and its tail.

    The number is drawn only when lines are folded away or a line is cut (``/show N``
    prints them whole). An output the tool cut says so in the header (``· output cut``); its
    cut marker, naming the file with the whole output, is drawn under the fold line when the
    fold hides it. ``tool``: the tool's name, for :func:`~goosectx.cli.folding.clean_output`.
    """
    output = clean_output(response.output, tool=tool)
    lines, hidden = fold_lines(output)
    total = len(lines) + hidden
    mark = "✗" if response.is_error else "✓"
    count = plural(total, "line") if total else "no output"
    header = f"{mark} {title} · {count}"
    markers = _hidden_cut_markers(output, hidden)
    if markers is not None:
        header += " · output cut"
    if hidden or has_long_line(output):
        header += f" · #{number} (/show {number})"
    body = lines[:FOLD_HEAD_LINES] if hidden else lines
    tail = lines[FOLD_HEAD_LINES:] if hidden else []
    fold = f"… {hidden} lines hidden …" if hidden else None
    if surface.plain:
        surface._plain(f"  {header}")
        for line in body:
            surface._plain(f"  | {line}")
        if fold:
            surface._plain(f"  | {fold}")
        for line in markers or ():
            surface._plain(f"  | {line}")
        for line in tail:
            surface._plain(f"  | {line}")
        return
    style = "red" if response.is_error else "green"
    rows = [*((line, "") for line in body), *(((fold, "dim italic"),) if fold else ()),
            *((line, "dim italic") for line in markers or ()), *((line, "") for line in tail)]
    width = surface.console.width  # (a terminal's is asked of the OS at each read)
    if _prewrapped(header, width):
        surface.console.print(_result_lines(surface.console, header, style, rows, width))
        return
    text = Text("  " + header, style=style)
    for line, row_style in rows:
        _gutter_rows(text, surface, line, row_style, width=width)
    surface.console.print(text)


def _result_lines(console: Console, header: str, style: str, rows: list[tuple[str, str]],
                  width: int) -> Segments:
    """A result whose header fits, as the segments rich makes of its text, made directly.

    Every row is wrapped inside the gutter (:func:`indented_rows`); rich would then divide
    each line of the whole text again and keep it whole, at several times the cost of the
    rows. The styles are those rich gives each span: the result's own, the gutter's ``dim``
    and a row's (``dim italic``) on top of it.
    """
    base = console.get_style(style)
    gutter = Segment(GUTTER, base + console.get_style("dim"))
    row_styles: dict[str, Style] = {"": base}
    new_line = Segment("\n")
    segments = [Segment(Text("  " + header).plain, base), new_line]
    room = max(width - len(GUTTER), 8)
    for line, row_style in rows:
        look = row_styles.get(row_style)
        if look is None:
            look = row_styles[row_style] = base + console.get_style(row_style)
        for piece in _wrapped(console, line, room):
            segments.append(gutter)
            if piece:
                segments.append(Segment(piece, look))
            segments.append(new_line)
    return Segments(segments)


def _gutter_rows(text: Text, surface: Surface, line: str, style: str = "", *,
                 width: int | None = None) -> None:
    """Append ``line`` to ``text`` wrapped inside the gutter: every row starts with ``  │ ``.

    Printed as one line, a line wider than the terminal wrapped to column 0, where tool text
    reads as goosectx's own. ``width``: the console's, when the caller has read it.
    """
    indented_rows(text, surface.console, line, style, indent=Text(GUTTER, style="dim"),
                  width=width)


def indented_rows(text: Text, console: Console, line: str, style: str = "", *,
                  indent: Text, width: int | None = None) -> None:
    """Append ``line`` to ``text`` wrapped at the console width, every row after ``indent``.

    ``width``: the console's width, when the caller has read it for many lines.
    """
    room = max((console.width if width is None else width) - indent.cell_len, 8)
    for row in _wrapped(console, line, room):
        text.append("\n").append_text(indent).append(row, style)


def _wrapped(console: Console, line: str, room: int) -> list[str]:
    """``line``'s rows at ``room`` columns, as rich's wrap (``fold``) makes them.

    A line that :func:`_fits` is its one row, as the wrap would make it (a tenth of its cost).
    """
    if _fits(line, room):
        return [line]
    return [row.plain for row in Text(line).wrap(console, room, overflow="fold")]


def _prewrapped(header: str, width: int) -> bool:
    """True when rich's wrapping of a drawn result would change nothing (:func:`_result_lines`).

    Its rows are wrapped inside the gutter already; so is the whole result when its header
    line fits too. A console narrower than the gutter and its 8 columns has rows wider than
    itself, which rich wraps once more.
    """
    return (width >= len(GUTTER) + 8 and "\t" not in header and "\n" not in header
            and Text("  " + header).cell_len <= width)


def _fits(line: str, width: int) -> bool:
    """True when ``line`` is printable ASCII (one cell a character, no tab) of ``width`` or less."""
    return len(line) <= width and line.isascii() and line.isprintable()


def _hidden_cut_markers(output: str, hidden: int) -> list[str] | None:
    """``None`` when ``output`` holds no cut marker line; else those the fold hides."""
    if "[... " not in output:
        return None
    lines = output.rstrip("\n").split("\n")
    found = [(i, ln) for i, ln in enumerate(lines) if CUT_MARKER.fullmatch(ln)]
    if not found:
        return None
    end = len(lines) - FOLD_TAIL_LINES
    return [ln for i, ln in found if hidden and FOLD_HEAD_LINES <= i < end]


def draw_edit_result(surface: Surface, response: ToolResponse, name: str, number: int, *,
                     again: bool) -> None:
    """An edit's result: its first line and its coloured diff.

    With ``again`` (the same diff was just drawn before the approval question) only the
    counts are drawn.
    """
    diff = response.diff or ""
    first = clean_output(response.output).split("\n", 1)[0]
    header = f"✓ {name} · {diff_summary(diff)} · #{number}"
    note = f" · /show {number}"
    warning = undo_note(diff)  # drawn with the result line, not after the diff
    if warning is not None:
        diff = diff[:diff.rfind("\n" + warning) + 1]
        warning = clean_output(warning)
    if surface.plain:
        surface._plain(f"  {header}")
        if warning is not None:
            surface._plain(f"  | {warning}")
        surface._plain(f"  | {first}")
        if not again:
            for line in diff_plain(diff, indent="  | ", fold_note=note):
                surface._plain(line)
        return
    text = Text("  " + header, style="green")
    if warning is not None:
        _gutter_rows(text, surface, warning, "yellow")
    _gutter_rows(text, surface, first)
    surface.console.print(text)
    if not again:
        surface.console.print(diff_text(diff, indent="  │ ", fold_note=note))
