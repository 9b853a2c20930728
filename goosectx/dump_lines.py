r"""A line of a hex, character or number dump, read: where its cells are, what bytes they write.

Part of :mod:`goosectx.redaction_dump` (docs/architecture.md §2, "Secrets"), which finds a
dump's lines in a text and reads their runs joined; here one line is read (:func:`read_line`):
hex cells (a byte or a group), ``od -c``'s character cells, ``xxd -b``'s bits, decimal and
octal words (``od -d``, ``od -o``, ``hexdump -d``), or hex groups alone with any separator
(``xxd -p``, a ``hexdump -e`` format: :func:`plain_line`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from goosectx.lazy_pattern import LazyPattern

if TYPE_CHECKING:
    import re

_NAMES = {name: chr(code) for code, name in enumerate(
    "nul soh stx etx eot enq ack bel bs ht nl vt ff cr so si dle dc1 dc2 dc3 dc4 nak syn etb "
    "can em sub esc fs gs rs us sp".split())} | {"del": "\x7f"}
"""``od -ta``'s names of the ASCII control characters, space and DEL."""
_ESCAPED = {"0": "\0", "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v", "\\": "\\"}
_CELLS = {f"{name:>4}": char for name, char in _NAMES.items()} \
    | {f"  \\{e}": char for e, char in _ESCAPED.items()} \
    | {f" {code:03o}": chr(code) for code in range(256)} \
    | {f"   {chr(code)}": chr(code) for code in range(0x21, 0x7f)} | {"    ": " ", "  **": ""}
"""What each 4-column cell of ``od -c``/``od -ta``/``hexdump -c`` writes (``**``: nothing, the
rest of a character before it)."""
_CHAR_CELL = (r"(?: {3}[^ \t\r\n\x07]| {2}\\[0abfnrtv\\]| [0-3][0-7]{2}| {4}| {2}\*\*"
              + "".join(f"|{name:>4}" for name in _NAMES) + ")")
HEX = "[0-9a-fA-F]"
_HEX_DIGITS = "0123456789abcdefABCDEF"
_SEP = r"[ \t:,;.|-]{1,3}+"
PLAIN = rf"{HEX}{{2,64}}+(?:{_SEP}{HEX}{{2,64}}+)*+[ \t:,;.|-]*+\r?"
"""A line of hex groups alone, any separator between (``xxd -p``, a ``hexdump -e`` format)."""
_HEX_LINE = LazyPattern(rf"({HEX}{{6,16}}:?)?((?:[ \t]+{HEX}{{2,32}})+)"
                        r"(?:[ \t]*\r?|[ \t]{2,}\S.*)")
"""A line of hex cells: its offset, its cells, then nothing or its text column."""
_CHAR_LINE = LazyPattern(rf"({HEX}{{6,16}})?((?:{_CHAR_CELL})+)[ \t]*\r?")
_NUMBER_LINE = LazyPattern(rf"({HEX}{{6,16}})?((?:[ \t]+-?[0-9]{{1,22}})+)[ \t]*\r?")
"""A line of numbers: decimal (``od -d``, ``-tu1``, ``-td4``, ``hexdump -d``) or octal words
(``od -o``, ``-to4``, ``hexdump -o``)."""
_NUMBER_CELL = LazyPattern("-?[0-9]+")
_HEX_LETTER = LazyPattern("[a-fA-F]")
_PLAIN_LINE = LazyPattern(PLAIN)
_HEX_CELL = LazyPattern(f"{HEX}+")
_OCTAL = frozenset("01234567")
WORDS = ("hex", "number", "plain")
"""Kinds of line whose cells are words of ``width // 2`` bytes (read in both byte orders)."""


@dataclass(slots=True)
class Line:
    """A dump's line: where its cells are, what they write (bytes as characters)."""

    start: int
    end: int
    offset: bool
    kind: str
    width: int
    """Characters a cell (4 for ``od -c``'s; a group's hex digits)."""
    cells: tuple[int, int]
    data: str

    def cell_spans(self, text: str) -> list[tuple[int, int]]:
        """Each byte's cell in ``text`` (a group's for each of its bytes), in order."""
        start, end = self.cells
        if self.kind == "char":
            return [(at, at + 4) for at in range(start, end, 4)]
        if self.kind == "plain" and self.width > 16:  # (``xxd -p``: a byte each 2 digits)
            return [(at, at + 2) for m in _HEX_CELL.finditer(text, start, end)
                    for at in range(m.start(), m.end() - 1, 2)]
        each = self.width // 2 if self.kind in WORDS else 1
        cell = _NUMBER_CELL if self.kind == "number" else _HEX_CELL
        return [m.span() for m in cell.finditer(text, start, end) for _ in range(each)]


def read_line(text: str, start: int, end: int) -> Line | None:
    """The dump's line ``text[start:end]`` is, or ``None`` (a hex line first: most are)."""
    match = _HEX_LINE.fullmatch(text, start, end)
    if match is not None and not _decimal(match.group(2)):
        cells = match.group(2)
        words = cells.split()
        width = len(words[0])
        if width in (2, 4, 16, 32) and len(set(map(len, words))) == 1 \
                and not _text_column(cells):  # (most lines)
            data = bytes.fromhex(cells).decode("latin-1")
            return Line(start, end, match.group(1) is not None, "hex", width, match.span(2), data)
        if (line := _other_hex(text, match, words, width)) is not None:
            return line
    chars = _CHAR_LINE.fullmatch(text, start, end)
    if chars is None:
        return _number_line(text, start, end) or plain_line(text, start, end)
    cells = chars.group(2)
    data = "".join(_CELLS.get(cells[i:i + 4], cells[i + 3]) for i in range(0, len(cells), 4))
    return Line(start, end, chars.group(1) is not None, "char", 4, chars.span(2), data)


def _decimal(cells: str) -> bool:
    """True when ``cells`` (words of hex digits) are decimal numbers (``od -tu1``, ``-tu4``).

    Digits alone, and of different lengths (but a last hex group cut short), or of a length
    no hex cell has, or right-aligned 2+ columns apart (a hex dump's are 1 apart, but
    ``hexdump -x``'s 4 digits in 8 columns).
    """
    if _HEX_LETTER.search(cells) is not None:  # (a hex dump's line: most, found fast)
        return False
    words = cells.split()
    width = len(words[0])
    if any(len(w) != width for w in words[:-1]) or len(words[-1]) > width:
        return True
    pitch = _pitch(cells, words)
    return width not in (2, 4, 8, 16, 32) or pitch >= width + 2 and (width, pitch) != (4, 8)


def _pitch(cells: str, words: list[str]) -> float:
    """The columns a cell of ``cells`` takes (its padding and its space before it)."""
    return len(cells.rstrip()) / len(words)


def _text_column(cells: str) -> bool:
    """True when the last of ``cells``' words is its text column, not a cell.

    Further from the word before than that one is from its own (``xxd -g8``'s text column
    of 16 hex digits after 2 spaces, its cells 1 apart).
    """
    before = cells.rstrip().rstrip(_HEX_DIGITS)
    gap = len(before) - len(before := before.rstrip())
    if gap < 2:
        return False
    earlier = before.rstrip(_HEX_DIGITS)
    return gap > len(earlier) - len(earlier.rstrip()) > 0


def _other_hex(text: str, match: re.Match[str], words: list[str], width: int) -> Line | None:
    """A line of cells of another width, or of words of its text column taken for cells."""
    kept = 1
    while kept < len(words) and len(words[kept]) == width:
        kept += 1
    if kept == len(words) and _text_column(match.group(2)):
        kept -= 1
    if kept + 1 == len(words) and len(words[kept]) < width and len(words[kept]) % 2 == 0:
        kept += 1  # (a last group cut short)
    if width == 8 and all(set(w) <= {"0", "1"} for w in words[:kept]):
        kind, data = "bits", "".join(chr(int(w, 2)) for w in words[:kept])
    elif width == 3 and all(w[0] in "0123" and set(w) <= _OCTAL for w in words[:kept]):
        return None  # (octal bytes: read as ``od -c``'s cells, as od -b writes them)
    elif width in (6, 11) and all(set(w) <= _OCTAL for w in words):
        return None  # (octal words, ``od -o``: :func:`_number_line`)
    elif width % 2 == 0:
        kind, data = "hex", bytes.fromhex("".join(words[:kept])).decode("latin-1")
    else:
        return None
    cells = match.span(2)
    if kept < len(words):
        cells = (cells[0], [m.end() for m in _HEX_CELL.finditer(text, *cells)][kept - 1])
    start, end = match.span()
    return Line(start, end, match.group(1) is not None, kind, width, cells, data)


def _number_line(text: str, start: int, end: int) -> Line | None:
    """A line of decimal or octal words: ``od -d``/``-tu1``/``-td4``, ``od -o``/``-to4``.

    Octal when each word has 6 or 11 digits 0-7 (``od -o``'s and ``hexdump -o``'s 2 bytes,
    ``-to4``'s 4, zero-padded); else decimal, its size by the cells' pitch (each right-aligned
    in a column as wide as its largest value and a space: 4-5 a byte, 6-8 two, 11-12 four,
    21-22 eight; ``hexdump -d``'s ``%05u`` in 8).
    """
    match = _NUMBER_LINE.fullmatch(text, start, end)
    if match is None:
        return None
    words = match.group(2).split()
    lengths = set(map(len, words))
    if lengths in ({6}, {11}) and all(set(w) <= _OCTAL for w in words):
        size, base = (2 if lengths == {6} else 4), 8
    else:
        pitch = _pitch(match.group(2), words)
        size = next((n for n, most in ((1, 5), (2, 8), (4, 12), (8, 22)) if pitch <= most), 0)
        base = 10
    if size == 0:
        return None
    try:  # (a negative value as its two's complement; one past its size: no such dump)
        data = b"".join((int(w, base) + (1 << 8 * size) * w.startswith("-")).to_bytes(size, "big")
                        for w in words)
    except (ValueError, OverflowError):
        return None
    return Line(start, end, match.group(1) is not None, "number", 2 * size, match.span(2),
                 data.decode("latin-1"))


def plain_line(text: str, start: int, end: int) -> Line | None:
    """A line of hex groups alone, any separator between (``xxd -p``, ``hexdump -e``).

    Each group as wide as the first (a last one narrower), 16 hex digits or more in all;
    a group over 16 digits (``xxd -p``'s 60) is bytes in a row.
    """
    match = _PLAIN_LINE.fullmatch(text, start, end)
    if match is None:
        return None
    groups = _HEX_CELL.findall(text, start, end)
    width = len(groups[0])
    if sum(map(len, groups)) < 16 or any(len(g) % 2 for g in groups) \
            or any(len(g) != width for g in groups[:-1]) or len(groups[-1]) > width:
        return None
    data = bytes.fromhex("".join(groups)).decode("latin-1")
    cells = (start, start + len(text[start:end].rstrip(" \t:,;.|-\r")))
    return Line(start, end, False, "plain", width, cells, data)
