"""A table of safe cells fitted to the terminal's width: one line a row where that fits.

rich shares the room left by the fixed columns between wrapping columns by their widths, so
a long working dir squeezed ``sessions list``'s title into a dozen cells, one session over six
lines, and at 80 columns cropped the fixed columns with no ``…`` (tester, wave 24). Here the
widths are computed first (docs/architecture.md §6): fixed columns keep their natural width;
a column named in ``drop`` is left out, in that order, while the flexible ones would get less
than their fair share (a line under the table names the columns left out); the room left is
shared between the text columns (each its natural width up to an equal share of what is left,
the rest to the others) after the minimum of the path columns, which get what the text leaves.
A text column wraps in its width; a path column is cut from the left to one line
(``…/acme/project``), its end being what tells it apart; a ``cut`` column (a session's name)
gets its natural width up to :data:`CUT_FAIR_CELLS` from what the text and paths' minimums
leave, cut from the right with ``…``. A ``whole`` column (the id a user copies) is never cut:
the others are left out or squeezed first, and it wraps rather than lose its end (tester, wave
24: ``20261204…`` for every session of a day). Not a terminal: plain columns, whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console

from goosectx.cli.path_fit import left_cut, right_cut

GAP_CELLS = 2
"""Cells between two columns (rich's padding of one cell each side, no outer edge)."""
TEXT_FAIR_CELLS = 40
"""A text column's fair share (a title, a snippet): columns named in ``drop`` are left out until
it gets this (or its natural width, when narrower) beside the paths' minimum."""
PATH_MIN_CELLS = 16
"""The narrowest a path column is drawn before a column is dropped."""
CUT_MIN_CELLS = 12
"""The narrowest a ``cut`` column is counted at before a column is dropped."""
CUT_FAIR_CELLS = 24
"""The widest a ``cut`` column is drawn on a terminal (the whole name is in ``--json``)."""
FLOOR_CELLS = 8
"""The least a flexible column gets in a terminal too narrow for the fixed columns."""


@dataclass(frozen=True, slots=True)
class Fit:
    """How a table is drawn in a width.

    Attributes:
        shown: Indexes of the columns drawn, in order.
        widths: Each drawn column's width in cells (same order).
        dropped: Names of the columns left out for room.
    """

    shown: tuple[int, ...]
    widths: tuple[int, ...]
    dropped: tuple[str, ...]


def _natural(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], i: int) -> int:
    return max(cell_len(row[i]) for row in [header, *rows])


def _share(room: int, naturals: list[int]) -> list[int]:
    """``room`` shared out: each its natural width up to an equal share of what is left."""
    widths = [0] * len(naturals)
    open_ = list(range(len(naturals)))
    while open_ and (fitting := [i for i in open_ if naturals[i] * len(open_) <= room]):
        for i in fitting:
            widths[i] = naturals[i]
            room -= naturals[i]
        open_ = [i for i in open_ if i not in fitting]
    for n, i in enumerate(open_):  # the rounding's remainder to the first
        widths[i] = room // len(open_) + (1 if n < room % len(open_) else 0)
    return widths


def fit_columns(width: int, header: tuple[str, ...], rows: Sequence[tuple[str, ...]], *,
                wrap: tuple[str, ...] = (), paths: tuple[str, ...] = (),
                cut: tuple[str, ...] = (), drop: tuple[str, ...] = ()) -> Fit:
    """The columns drawn and their widths for a table of ``rows`` in ``width`` cells.

    Args:
        width: The terminal's width in cells.
        header: The column names.
        rows: The cells (already terminal-safe), one tuple a row.
        wrap: Text columns (wrapped in their width).
        paths: Path columns (cut from the left to one line).
        cut: Columns cut from the right to one line, at most :data:`CUT_FAIR_CELLS` wide.
        drop: Columns that may be left out for room, the first first.
    """
    naturals = [_natural(header, rows, i) for i in range(len(header))]
    flexible = [i for i, name in enumerate(header) if name in wrap or name in paths or name in cut]
    mins = {i: min(naturals[i], PATH_MIN_CELLS if header[i] in paths else
                   CUT_MIN_CELLS if header[i] in cut else TEXT_FAIR_CELLS) for i in flexible}
    shown = list(range(len(header)))
    dropped: list[str] = []

    def room() -> int:
        fixed = sum(naturals[i] for i in shown if i not in mins)
        return width - fixed - GAP_CELLS * (len(shown) - 1)

    for name in drop:
        if room() >= sum(mins[i] for i in shown if i in mins):
            break
        if name in header and header.index(name) in shown:
            shown.remove(header.index(name))
            dropped.append(name)
    names = [i for i in shown if i in mins and header[i] in cut]
    texts = [i for i in shown if i in mins and header[i] in wrap]
    paths_ = [i for i in shown if i in mins and header[i] in paths]
    left = max(room(), FLOOR_CELLS * len(texts + paths_ + names))
    fair = [min(naturals[i], CUT_FAIR_CELLS) for i in names]
    name_room = min(sum(fair), max(left - sum(mins[i] for i in texts + paths_),
                                   FLOOR_CELLS * len(names)))
    given = dict(zip(names, _share(name_room, fair), strict=True))
    left -= name_room
    text_room = max(left - sum(mins[i] for i in paths_), left // 2 if paths_ else left)
    given |= dict(zip(texts, _share(text_room, [naturals[i] for i in texts]), strict=True))
    left -= sum(given[i] for i in texts)
    given |= dict(zip(paths_, _share(left, [naturals[i] for i in paths_]), strict=True))
    spare = left - sum(given[i] for i in paths_)  # all else whole: a longer name fits too
    given |= dict(zip(names, _share(spare + name_room, [naturals[i] for i in names]),
                      strict=True)) if spare > 0 else {}
    return Fit(tuple(shown), tuple(given.get(i, naturals[i]) for i in shown), tuple(dropped))


def print_table(console: Console, header: tuple[str, ...], rows: Sequence[tuple[str, ...]],
                *, right: tuple[str, ...] = (), wrap: tuple[str, ...] = (),
                paths: tuple[str, ...] = (), cut: tuple[str, ...] = (),
                whole: tuple[str, ...] = (), drop: tuple[str, ...] = (),
                all_columns: str = "") -> None:
    """Rows of safe cells under ``header`` (plain columns when not a terminal).

    On a terminal the widths are :func:`fit_columns`'s; a column still too wide (a terminal
    narrower than the fixed columns) ends with ``…``, never cut bare, but a ``whole`` one wraps
    (an id). ``all_columns``: the command that shows every column, named under a table that
    left some out.
    """
    if not console.is_terminal:  # padded by display width: a CJK character takes two cells
        widths = [_natural(header, rows, i) for i in range(len(header))]
        for row in [header, *rows]:
            console.out("  ".join(cell + " " * (w - cell_len(cell))
                                  for cell, w in zip(row, widths, strict=True)).rstrip(),
                        highlight=False)
        return
    from rich.table import Table
    from rich.text import Text

    fit = fit_columns(console.width, header, rows, wrap=wrap, paths=paths, cut=cut, drop=drop)
    table = Table(box=None, header_style="bold", pad_edge=False, collapse_padding=False)
    cells = [[left_cut(row[i], width) if header[i] in paths else
              right_cut(row[i], width) if header[i] in cut else row[i]
              for i, width in zip(fit.shown, fit.widths, strict=True)] for row in rows]
    for n, (i, width) in enumerate(zip(fit.shown, fit.widths, strict=True)):
        name = header[i]
        if name in paths or name in cut:  # as wide as its cut cells, no blank tail
            width = max(cell_len(c) for c in [name, *(row[n] for row in cells)])
        table.add_column(name, justify="right" if name in right else "left", width=width,
                         no_wrap=name not in wrap and name not in whole,
                         overflow="fold" if name in wrap or name in whole else "ellipsis")
    for drawn in cells:
        table.add_row(*(Text(cell) for cell in drawn))  # Text: outside text is never markup
    console.print(table)
    if fit.dropped:
        notes = [f"(not shown: {', '.join(fit.dropped)}" + (f" · {all_columns})" if all_columns
                                                            else ")")]
        if all_columns and cell_len(notes[0]) > console.width:  # the command unbroken
            notes = [f"(not shown: {', '.join(fit.dropped)})", f"(every column: {all_columns})"]
        for note in notes:
            console.print(Text(note, style="dim"))
