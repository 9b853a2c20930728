r"""A key in a hex or character dump (``hexdump -C``, ``xxd``, ``od -c``), read joined.

Part of the tool outputs' redaction (:class:`goosectx.redaction_fragments.WithPieces`;
docs/architecture.md §2, "Secrets"). A dump writes a file's bytes 8 to 32 a line, each line
after an offset (``00000010``, ``0000020``, ``00000010:``) and, in ``hexdump -C``, ``xxd`` and
``od -tx1z``, before the same bytes as text (``|oj-RIgP…|``): between two lines of a key's hex
there is more than whitespace, so no form of the key (:func:`goosectx.redaction.encodings`)
is in the text, and ``od -x`` or ``hexdump`` write each two bytes swapped (``6a6f`` for
``oj``). Here each run of a dump's lines of one format is decoded to its bytes (as Latin-1
characters), which the caller searches (:func:`dump_spans`: a form of a key, a run of 13+ of
its characters); what it finds there is redacted over the cells it was written in, from the
first to the last (the offsets and text columns between go with them, and the last line's
text column, which shows the key's end). Cells read:

* hex, a byte (``hexdump -C``, ``xxd -g1``, ``od -tx1``) or a group of 2, 4, 8… (``xxd``,
  ``xxd -g4``, ``xxd -g0``, ``od -x``, ``od -tx4``, ``hexdump``), either case: a group is read
  in both byte orders (``xxd`` writes the file's, ``od -x`` and ``hexdump`` a little-endian
  machine's) and redacted whole;
* characters, 4 columns each (``od -c``, ``od -ta``, ``hexdump -c``): ``   k``, ``  \n``, an
  octal byte `` 303`` (``od -b`` writes the same cells), a name (``sp``, ``nul``);
* bits (``xxd -b``: ``01110011``).

A line starts with an offset of 6–16 hex digits (the first a ``0``) or is indented
(``od -An``). NULs are dropped from the bytes (a UTF-16 file's ``6b 00 65 00``). With several
formats (``od -c -tx1``: a line of each after one offset) each line is read with those of its
format. Not read: decimal (``od -d``) and octal words (``od -o``), ``hexdump -e`` formats,
a piece of a key in ``xxd -p``'s plain hex (a whole key in it is one of its forms), a key
with a character outside ASCII (its UTF-8 bytes are read one a character).

Cost: a text is searched for a line that starts so (a regex starting with a newline: ``re``
skips to each, 1–2 ms a MB of text with no dump); such lines are parsed a regex each and a
run's bytes decoded and checked at once (its runs of 8+ printable characters only: a dump of
random bytes holds few); only a run that may hold a key is mapped back, ~0.1–0.25 s a MB of
dump (bench/redaction_dump.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
_HEX = "[0-9a-fA-F]"
_HEX_DIGITS = "0123456789abcdefABCDEF"
_HEAD = (rf"(?:0{_HEX}{{5,15}}:?[ \t]| {_HEX}{{2,32}}(?: {_HEX}{{2,32}}){{2}}"
         r"|   [^ \t\r\n\x07]   [^ \t\r\n\x07])")
"""The start of a dump's line: an offset (a ``0`` first), or cells indented as ``od -An``
writes them; a regex for each line start (a literal first: ``re`` skips to it)."""
_STARTS = [LazyPattern(first + _HEAD) for first in ("\n", "\x07")]
"""After a newline, or after the BEL that joins texts checked together
(:data:`goosectx.redaction_fragments.JOINER`)."""
_FIRST = LazyPattern(_HEAD)
_HEX_LINE = LazyPattern(rf"({_HEX}{{6,16}}:?)?((?:[ \t]+{_HEX}{{2,32}})+)"
                        r"(?:[ \t]*\r?|[ \t]{2,}\S.*)")
"""A line of hex cells: its offset, its cells, then nothing or its text column."""
_CHAR_LINE = LazyPattern(rf"({_HEX}{{6,16}})?((?:{_CHAR_CELL})+)[ \t]*\r?")
_HEX_CELL = LazyPattern(f"{_HEX}+")
_PRINTABLE = LazyPattern(r"[\t\n\r -~]{8,}")

Find = Callable[[str], list[tuple[int, int]]]


@dataclass(slots=True)
class _Line:
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
        each = self.width // 2 if self.kind == "hex" else 1
        return [m.span() for m in _HEX_CELL.finditer(text, start, end) for _ in range(each)]


def dump_spans(text: str, may_hold: Callable[[str], bool], find: Find) -> list[tuple[int, int]]:
    """Where ``find`` finds something in the bytes of ``text``'s dumps: spans of ``text``.

    Each run of lines of one format is decoded (groups of bytes in both orders, NULs
    dropped); where ``may_hold`` says it may hold what ``find`` looks for, ``find``'s spans of
    it are mapped to the cells they were written in, from the first to the last.
    """
    spans: list[tuple[int, int]] = []
    for chain, order, kept in _readings(text):
        if not may_hold(_printable(kept)):
            continue
        places = [i for i, ch in enumerate(order) if ch != "\0"] if kept is not order else []
        for start, end in find(kept):
            first, last = (places[start], places[end - 1]) if places else (start, end - 1)
            line, (_, end_at) = _cell(text, chain, last)
            if line.cells[1] < line.end:  # (its text column shows the key's end: it goes too)
                end_at = line.end - (text[line.end - 1] == "\r")
            spans.append((_cell(text, chain, first)[1][0], end_at))
    return spans


def dumps_may_hold(text: str, may_hold: Callable[[str], bool]) -> bool:
    """True when ``may_hold`` says so of the bytes of one of ``text``'s dumps (as read above)."""
    return any(may_hold(_printable(kept)) for _, _, kept in _readings(text))


def _printable(data: str) -> str:
    """The runs of 8+ printable ASCII characters and whitespace of ``data``, joined by NUL.

    Each form of an ASCII key is such a run (a dump of random bytes has few): the check is
    made on them alone, fast (a backslash or ``%`` in random bytes is no escape to read).
    """
    return "\0".join(_PRINTABLE.findall(data))


def _readings(text: str) -> Iterator[tuple[list[_Line], str, str]]:
    """Each run of lines of one format, its bytes in an order, and those without NULs."""
    for chain in _chains(text):
        data = "".join(line.data for line in chain)
        size = chain[0].width // 2 if chain[0].kind == "hex" else 1
        for order in ([data, _swapped(data, size)] if size > 1 else [data]):
            yield chain, order, order.replace("\0", "") if "\0" in order else order


def _cell(text: str, chain: list[_Line], index: int) -> tuple[_Line, tuple[int, int]]:
    """Where the byte at ``index`` of ``chain``'s bytes is written: its line, its group's cell."""
    for line in chain:
        if index < len(line.data):
            spans = line.cell_spans(text)
            return line, spans[min(index, len(spans) - 1)]
        index -= len(line.data)
    return chain[-1], chain[-1].cells


def _swapped(data: str, size: int) -> str:
    """``data`` (Latin-1) with each group of ``size`` characters reversed (a last short one too)."""
    whole = len(data) - len(data) % size
    source = data.encode("latin-1")
    out = bytearray(source)
    for j in range(size):
        out[j:whole:size] = source[size - 1 - j:whole:size]
    return out.decode("latin-1")[:whole] + data[whole:][::-1]


def _chains(text: str) -> Iterator[list[_Line]]:
    """Each run of ``text``'s dump lines of one format, in order (``od -c -tx1``: a run each)."""
    for block in _blocks(text):
        first = block[0]
        if all(line.offset == first.offset and line.kind == first.kind
               and line.width == first.width for line in block):
            yield block  # (the most: one format, each line after an offset or none)
            continue
        runs: dict[int, list[list[_Line]]] = {}  # by place after the offset's line
        phase, offsets = 0, any(line.offset for line in block)
        for line in block:
            phase = phase + 1 if offsets and not line.offset else 0
            chains = runs.setdefault(phase, [])
            if chains and (chains[-1][-1].kind, chains[-1][-1].width) == (line.kind, line.width):
                chains[-1].append(line)
            else:
                chains.append([line])
        yield from (chain for chains in runs.values() for chain in chains)


def _blocks(text: str) -> Iterator[list[_Line]]:
    """Each run of ``text``'s lines that are a dump's (:class:`_Line`), line after line."""
    pos, start = 0, 0 if _FIRST.match(text) else -1
    joined = "\x07" in text
    while True:
        if start < 0:
            found = [m.start() for gate in _STARTS if (m := gate.search(text, pos))]
            if not found:
                return
            start = min(found) + 1
        block = []
        while start < len(text):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if joined and (joiner := text.find("\x07", start, end)) >= 0:
                end = joiner
            line = _line(text, start, end)
            if line is None:
                break
            block.append(line)
            start = end + 1
        if block:
            yield block
        pos, start = start, -1


def _line(text: str, start: int, end: int) -> _Line | None:
    """The dump's line ``text[start:end]`` is, or ``None`` (a hex line first: most are)."""
    match = _HEX_LINE.fullmatch(text, start, end)
    if match is not None:
        cells = match.group(2)
        words = cells.split()
        width = len(words[0])
        if width in (2, 4, 16, 32) and len(set(map(len, words))) == 1 \
                and not _text_column(cells):  # (most lines)
            data = bytes.fromhex(cells).decode("latin-1")
            return _Line(start, end, match.group(1) is not None, "hex", width, match.span(2), data)
        if (line := _other_hex(text, match, words, width)) is not None:
            return line
    chars = _CHAR_LINE.fullmatch(text, start, end)
    if chars is None:
        return None
    cells = chars.group(2)
    data = "".join(_CELLS.get(cells[i:i + 4], cells[i + 3]) for i in range(0, len(cells), 4))
    return _Line(start, end, chars.group(1) is not None, "char", 4, chars.span(2), data)


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


def _other_hex(text: str, match: re.Match[str], words: list[str], width: int) -> _Line | None:
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
    elif width == 3 and all(w[0] in "0123" and set(w) <= set("01234567") for w in words[:kept]):
        return None  # (octal bytes: read as ``od -c``'s cells, as od -b writes them)
    elif width % 2 == 0:
        kind, data = "hex", bytes.fromhex("".join(words[:kept])).decode("latin-1")
    else:
        return None
    cells = match.span(2)
    if kept < len(words):
        cells = (cells[0], [m.end() for m in _HEX_CELL.finditer(text, *cells)][kept - 1])
    start, end = match.span()
    return _Line(start, end, match.group(1) is not None, kind, width, cells, data)
