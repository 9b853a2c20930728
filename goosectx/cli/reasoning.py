"""The model's reasoning as it streams: a ``thinking`` header, its first lines, a fold line.

Reasoning (``ReasoningDelta`` events, docs/architecture.md §6) is drawn dimmed under a
``thinking`` header and folded to its first :data:`HEAD_ROWS` screen rows; the rest is only
counted, and a fold line says how many lines were left out and how to print them whole.
Each chunk costs O(its length): complete lines are drawn once while the head has room, after
that only newlines are counted (nothing is re-rendered, nothing grows with the reasoning).
All text passes the one sanitiser (:mod:`goosectx.cli.sanitize`) first.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from goosectx.cli.folding import plural
from goosectx.cli.result_view import indented_rows
from goosectx.cli.sanitize import SafeStream

HEAD_ROWS = 4
"""Screen rows of reasoning drawn before the rest is folded."""
STYLE = "dim italic"


class ReasoningStream:
    """One reply's reasoning being streamed.

    Args:
        console: Where it is drawn.
        plain: Plain look (``thinking`` then ``  | line`` rows, no styles).
        number: Its ``/show`` number (``#N`` in the header, named in the fold line).
    """

    def __init__(self, console: Console, *, plain: bool, number: int | None = None) -> None:
        self.console = console
        self.plain = plain
        self.number = number
        self.width = max(20, console.width - 4)
        self.rows_left = HEAD_ROWS
        self.hidden_lines = 0
        self._line: list[str] = []
        self._line_chars = 0
        self._folding = False
        self._safe = SafeStream()
        self._draw_header()

    def feed(self, chunk: str) -> None:
        """Add streamed reasoning text."""
        chunk = self._safe.feed(chunk)
        if not chunk:
            return
        if self._folding:  # past the head: count lines only
            self._count(chunk)
            return
        pieces = chunk.split("\n")
        for i, piece in enumerate(pieces):
            room = self.rows_left * self.width - self._line_chars
            if room > 0:
                self._line.append(piece[:room])
            self._line_chars += len(piece)
            if i == len(pieces) - 1:
                return
            self._end_line()
            if self._folding:
                self._count("\n".join(pieces[i + 1:]))
                return

    def _count(self, text: str) -> None:
        """Past the head: each newline ends one more hidden line."""
        newlines = text.count("\n")
        if newlines:
            self.hidden_lines += newlines
            self._line_chars = len(text) - text.rfind("\n") - 1
        else:
            self._line_chars += len(text)

    def close(self) -> int:
        """The reasoning ended: draw what is left and the fold line; returns lines hidden."""
        held = self._safe.flush()
        if held:
            self.feed(held)
        if self._folding:
            if self._line_chars:
                self.hidden_lines += 1
        elif self._line_chars:
            self._end_line()
        if self.hidden_lines:
            show = f" · /show {self.number}" if self.number is not None else ""
            self._row(f"… {plural(self.hidden_lines, 'more line')} of thinking{show}", fold=True)
        return self.hidden_lines

    # -- drawing -------------------------------------------------------------------------
    def _end_line(self) -> None:
        """A complete line: drawn while the head has room, else counted as hidden."""
        text = "".join(self._line)
        chars, self._line, self._line_chars = self._line_chars, [], 0
        if self._folding or self.rows_left <= 0:
            self._folding = True
            self.hidden_lines += 1
            return
        rows = max(1, -(-chars // self.width))
        if rows > self.rows_left:  # a long paragraph: cut to the rows left
            text = text[: self.rows_left * self.width - 1].rstrip() + "…"
            rows = self.rows_left
        if text.strip() or self.rows_left < HEAD_ROWS:
            self.rows_left -= rows
            self._row(text)
        if self.rows_left <= 0:
            self._folding = True

    def _draw_header(self) -> None:
        mark = f" · #{self.number}" if self.number is not None else ""
        if self.plain:
            self._print(f"thinking{mark}")
            return
        self.console.print(Text(f"✻ thinking{mark}", style="dim bold"))

    def _row(self, text: str, *, fold: bool = False) -> None:
        if self.plain:
            self._print(f"  | {text}")
            return
        # wrapped inside the gutter: a row at column 0 would read as goosectx's own text
        rows = Text()
        indented_rows(rows, self.console, text, "dim" if fold else STYLE,
                      indent=Text("  │ ", style="dim"))
        self.console.print(rows[1:])  # (the first row's leading newline dropped)

    def _print(self, line: str) -> None:
        self.console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)
