"""File paths drawn in the width rich gives them: cut in the middle, start and name kept.

A table cell cuts what does not fit at its end (``/home/alice/src/acme/pa…``), losing the one
part that says which file it is. :class:`PathNote` draws a note and its paths on one line
where they fit, else the note and then one path a line, each cut to the cell's width as
``/home/al…/acme/packages/CLAUDE.md``: the start (where it lives) and as many of its last
components as fit beside it. ``/context`` names the instruction files read this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, get_character_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from goosectx.cli.sanitize import one_line_safe, terminal_safe

ELLIPSIS = "…"
MIN_CELLS = 24
"""The narrowest a cell of paths is drawn in (room for ``/ho…/AGENTS.md``-like names)."""


def _start(text: str, cells: int) -> str:
    """The longest start of ``text`` at most ``cells`` wide."""
    used = 0
    for i, char in enumerate(text):
        used += get_character_cell_size(char)
        if used > cells:
            return text[:i]
    return text


def _end(text: str, cells: int) -> str:
    """The longest end of ``text`` at most ``cells`` wide."""
    used = 0
    for i in range(len(text) - 1, -1, -1):
        used += get_character_cell_size(text[i])
        if used > cells:
            return text[i + 1:]
    return text


def middle_cut(path: str, cells: int) -> str:
    """``path`` in at most ``cells`` cells: whole when it fits, else cut in the middle.

    Kept: its start (at least a quarter of the width) and its file name with as many of the
    directories just above it as fit beside that (the nearest say most about which file it
    is), joined by ``…``: ``/home/al…/acme/packages/CLAUDE.md``. A file name wider than the
    cells alone keeps its end (``…ENTS.md``).
    """
    if cell_len(path) <= cells:
        return path
    parts = path.split("/")
    tail = parts[-1]
    if len(parts) == 1 or cell_len(tail) + 2 >= cells:  # no room for a start beside it
        return ELLIPSIS + _end(path, cells - 1)
    head_min = max(1, cells // 4)
    for part in reversed(parts[1:-1]):
        longer = f"{part}/{tail}"
        if cell_len(longer) + 2 + head_min > cells:
            break
        tail = longer
    return f"{_start(path, cells - 2 - cell_len(tail))}{ELLIPSIS}/{tail}"


class PathNote:
    """A table cell: ``note`` then ``paths``, the paths cut in the middle to the cell's width.

    On one line (``note path, path``) when that fits the width rich gives the cell; else the
    note, then one path a line. Paths are outside text: made one-line terminal-safe here,
    before they are measured.

    Args:
        note: Text before the paths (goosectx's own words; may be empty).
        paths: The paths, in order.
    """

    def __init__(self, note: str, paths: Sequence[str]) -> None:
        self.note = terminal_safe(note)
        self.paths = [one_line_safe(p) for p in paths]

    def _line(self) -> str:
        joined = ", ".join(self.paths)
        return f"{self.note} {joined}" if self.note else joined

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """As wide as its one line; as narrow as :data:`MIN_CELLS` (paths are cut to fit)."""
        whole = cell_len(self._line())
        return Measurement(min(whole, MIN_CELLS), whole).clamp(max_width=options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The one line, or the note and one cut path a line, in ``options.max_width``."""
        width = options.max_width
        line = self._line()
        if cell_len(line) <= width:
            yield Text(line)
            return
        if self.note:
            yield Text(self.note)
        for path in self.paths:
            yield Text(middle_cut(path, width), no_wrap=True, overflow="crop")


def left_cut(path: str, cells: int) -> str:
    """``path`` in at most ``cells`` cells: whole when it fits, else its end after ``…``.

    The end tells a working dir apart (``…/another-long-one/project``): as many of its last
    components as fit, else the end of the last one (``…ject-name``).
    """
    if cell_len(path) <= cells:
        return path
    parts = path.split("/")
    tail = ""
    for part in reversed(parts[1:]):
        longer = f"/{part}{tail}"
        if cell_len(longer) + 1 > cells:
            break
        tail = longer
    return ELLIPSIS + (tail or _end(path, cells - 1))


def right_cut(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` cells: whole when it fits, else its start and ``…``.

    For a name (``sessions list``): its start tells it apart; a wide character is never split.
    """
    if cell_len(text) <= cells:
        return text
    return _start(text, max(cells - 1, 0)) + ELLIPSIS
