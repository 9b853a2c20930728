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
* bits (``xxd -b``: ``01110011``);
* decimal and octal words (``od -d``, ``-tu1``, ``-td4``, ``od -o``, ``-to4``, ``hexdump -d``,
  ``-o``), their size by their columns;
* hex groups alone, any separator between, no offset (``xxd -p``'s 60 digits a line, a
  ``hexdump -e '16/1 "%02X:"'`` format), 16+ digits a line.

:mod:`goosectx.dump_lines` reads a line. A line starts with an offset of 6–16 hex digits (the
first a ``0``), is indented (``od -An``) or is such a line of hex groups (a block of them
whose first "offsets" do not grow as a dump's do is read so whole: ``hexdump -e '4/4
"%08x "'``). A ``*`` line (repeated lines left out) ends a run. NULs are dropped from the
bytes (a UTF-16 file's ``6b 00 65 00``); a run holding a character of 2+ bytes in UTF-8 is
read so too (a key outside ASCII: the text column shows dots). With several formats (``od -c
-tx1``: a line of each after one offset) each line is read with those of its format. Not
read: indented numbers alone (``od -An -d``).

Cost: a text is searched for a line that starts so (a regex starting with a newline: ``re``
skips to each, 1–2 ms a MB of text with no dump); such lines are parsed a regex each and a
run's bytes decoded and checked at once (its runs of 8+ printable characters only: a dump of
random bytes holds few); only a run that may hold a key is mapped back, ~0.1–0.25 s a MB of
dump (bench/redaction_dump.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from goosectx.dump_lines import HEX, PLAIN, WORDS, Line, plain_line, read_line
from goosectx.lazy_pattern import LazyPattern

_HEAD = (rf"(?:0{HEX}{{5,15}}:?[ \t]| (?:{HEX}{{2,32}}(?: {HEX}{{2,32}}){{2}}"
         r"|  [^ \t\r\n\x07]   [^ \t\r\n\x07])"
         rf"|(?={HEX}{{2}})(?={PLAIN}(?:[\n\x07]|\Z))(?=(?:[^0-9a-fA-F\n]*+{HEX}){{16}}))")
"""The start of a dump's line: an offset (a ``0`` first), cells indented as ``od -An``
writes them (hex, characters; not numbers: each indented line of source code would cost a
try, +0.8 ms a MB), or hex groups alone (16+ digits); a regex for each line start (a
literal first: ``re`` skips to it)."""
_STARTS = [LazyPattern(first + _HEAD) for first in ("\n", "\x07")]
"""After a newline, or after the BEL that joins texts checked together
(:data:`goosectx.redaction_fragments.JOINER`)."""
_FIRST = LazyPattern(_HEAD)
_PRINTABLE = LazyPattern(r"[\t\n\r -~]{8,}")
_PRINTABLE_WIDE = LazyPattern(r"[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\udc80-\udcff]{8,}")
_NON_ASCII = LazyPattern(r"[^\x00-\x7f]")
_REACH = 256
"""How far a key holding a character outside ASCII reaches either side of it."""
_MULTIBYTE = LazyPattern(r"[\xc2-\xf4][\x80-\xbf]")
"""A character of 2-4 bytes in UTF-8 (its first two bytes)."""

Find = Callable[[str], list[tuple[int, int]]]


def dump_spans(text: str, may_hold: Callable[[str], bool], find: Find) -> list[tuple[int, int]]:
    """Where ``find`` finds something in the bytes of ``text``'s dumps: spans of ``text``.

    Each run of lines of one format is decoded (groups of bytes in both orders, NULs
    dropped); where ``may_hold`` says it may hold what ``find`` looks for, ``find``'s spans of
    it are mapped to the cells they were written in, from the first to the last.
    """
    spans: list[tuple[int, int]] = []
    for chain, order, kept in _readings(text):
        if may_hold(_printable(kept)):
            places = [i for i, ch in enumerate(order) if ch != "\0"] if kept is not order else []
            for start, end in find(kept):
                first, last = (places[start], places[end - 1]) if places else (start, end - 1)
                spans.append(_span(text, chain, first, last))
        if (wide := _utf8(order)) and may_hold(_wide_runs(wide)):  # (an ASCII find: the
            spans += [_span(text, chain, _byte(wide, start), _byte(wide, end) - 1)  # first
                      for start, end in find(wide) if not wide[start:end].isascii()]  # has it)
    return spans


def _byte(reading: str, index: int) -> int:
    """Where character ``index`` of a UTF-8 ``reading`` starts in its bytes."""
    return len(reading[:index].encode("utf-8", "surrogateescape"))


def _span(text: str, chain: list[Line], first: int, last: int) -> tuple[int, int]:
    """The cells of ``chain``'s bytes ``first`` to ``last``; its last line's text column too."""
    line, (_, end_at) = _cell(text, chain, last)
    if line.cells[1] < line.end:  # (its text column shows the key's end: it goes too)
        end_at = line.end - (text[line.end - 1] == "\r")
    return _cell(text, chain, first)[1][0], end_at


def _utf8(data: str) -> str:
    """``data`` (bytes as Latin-1) read as UTF-8 when it holds a character so written, or "".

    A key with a character outside ASCII (``pässwörd-Ω…``): a dump shows its UTF-8 bytes,
    each a dot in the text column. Not read without such a character (most dumps).
    """
    if _MULTIBYTE.search(data) is None:
        return ""
    return data.encode("latin-1").decode("utf-8", "surrogateescape")


def _wide_runs(reading: str) -> str:
    """The runs of 8+ printable characters of a UTF-8 ``reading`` around one outside ASCII.

    Only :data:`_REACH` characters either side of those: what the first reading reads the
    same (ASCII) is not read again (a dump of source code is one long printable run).
    """
    pieces = []
    for run in _PRINTABLE_WIDE.findall(reading):
        end = -1
        for match in _NON_ASCII.finditer(run):
            if match.start() - _REACH > end:
                pieces.append("\0")
            pieces.append(run[max(match.start() - _REACH, end + 1):match.start() + _REACH])
            end = match.start() + _REACH - 1
    return "".join(pieces)


def dumps_may_hold(text: str, may_hold: Callable[[str], bool]) -> bool:
    """True when ``may_hold`` says so of the bytes of one of ``text``'s dumps (as read above)."""
    return any(may_hold(_printable(kept)) or (wide := _utf8(order)) and may_hold(
        _wide_runs(wide)) for _, order, kept in _readings(text))


def _printable(data: str) -> str:
    """The runs of 8+ printable ASCII characters and whitespace of ``data``, joined by NUL.

    Each form of an ASCII key is such a run (a dump of random bytes has few): the check is
    made on them alone, fast (a backslash or ``%`` in random bytes is no escape to read).
    """
    return "\0".join(_PRINTABLE.findall(data))


def _readings(text: str) -> Iterator[tuple[list[Line], str, str]]:
    """Each run of lines of one format, its bytes in an order, and those without NULs."""
    for chain in _chains(text):
        data = "".join(line.data for line in chain)
        size = chain[0].width // 2 if chain[0].kind in WORDS and chain[0].width <= 16 else 1
        for order in ([data, _swapped(data, size)] if size > 1 else [data]):
            yield chain, order, order.replace("\0", "") if "\0" in order else order


def _cell(text: str, chain: list[Line], index: int) -> tuple[Line, tuple[int, int]]:
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


def _chains(text: str) -> Iterator[list[Line]]:
    """Each run of ``text``'s dump lines of one format, in order (``od -c -tx1``: a run each)."""
    for block in _blocks(text):
        first = block[0]
        if all(line.offset == first.offset and line.kind == first.kind
               and line.width == first.width for line in block):
            yield block  # (the most: one format, each line after an offset or none)
            continue
        runs: dict[int, list[list[Line]]] = {}  # by place after the offset's line
        phase, offsets = 0, any(line.offset for line in block)
        for line in block:
            phase = phase + 1 if offsets and not line.offset else 0
            chains = runs.setdefault(phase, [])
            if chains and (chains[-1][-1].kind, chains[-1][-1].width) == (line.kind, line.width):
                chains[-1].append(line)
            else:
                chains.append([line])
        yield from (chain for chains in runs.values() for chain in chains)


def _blocks(text: str) -> Iterator[list[Line]]:
    """Each run of ``text``'s lines that are a dump's (:class:`Line`), line after line."""
    pos, start = 0, 0 if _FIRST.match(text) else -1
    joined = "\x07" in text
    gates = _STARTS if joined else _STARTS[:1]
    found: list[int | None] = [-1] * len(gates)  # (each gate's last line start; None: no more)
    while True:
        if start < 0:
            for k, gate in enumerate(gates):  # (each searched again only once passed: a
                at = found[k]  # text with few is searched to its end once, not each time)
                if at is not None and at < pos:
                    found[k] = m.start() if (m := gate.search(text, pos)) else None
            left = [at for at in found if at is not None]
            if not left:
                return
            start = min(left) + 1
        block = []
        while start < len(text):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if joined and (joiner := text.find("\x07", start, end)) >= 0:
                end = joiner
            line = read_line(text, start, end)
            if line is None:
                break
            block.append(line)
            start = end + 1
        if any(line.kind == "plain" for line in block) or block and _no_offset(text, block):
            yield from _as_plain(text, block)
        elif block:
            yield block
        pos, start = start, -1


def _no_offset(text: str, block: list[Line]) -> bool:
    """True when ``block``'s "offsets" are hex groups, not a dump's.

    A dump's start with ``0`` (one line) or grow by the same step (the first three, read as
    hex, octal or decimal numbers). ``hexdump -e '4/4 "%08x "'`` writes ``45445542 2047203d
    …``: read as an offset and its cells, each line's first group would be left out.
    """
    heads = [text[line.start:line.cells[0]].strip() for line in block[:3] if line.offset]
    if not heads or heads[0].endswith(":"):
        return False
    if len(heads) == 1:
        return heads[0][0] != "0"
    for base in (16, 8, 10):
        try:
            at = [int(head, base) for head in heads]
        except ValueError:
            continue
        if at[0] < at[1] and (len(at) == 2 or at[2] - at[1] == at[1] - at[0]):
            return False
    return True


def _as_plain(text: str, block: list[Line]) -> Iterator[list[Line]]:
    """The runs of ``block``'s plain lines, each line that reads as one of them read so.

    A plain line's first group may look like an offset (``00000000 702d6b73 …`` of
    ``hexdump -e '4/4 "%08x "'``): among plain lines of its width it is one of them. Other
    lines (a last one, ``0000000a``, taken for an offset and blank cells) end a run.
    """
    widths = {line.width for line in block if line.kind == "plain"} or {
        line.width for line in [plain_line(text, block[0].start, block[0].end)] if line}
    run: list[Line] = []
    for line in block:
        if line.kind != "plain":
            plain = plain_line(text, line.start, line.end)
            line = plain if plain is not None and plain.width in widths else line
        if line.kind == "plain":
            run.append(line)
            continue
        if run:
            yield run
        run = []
        yield [line]
    if run:
        yield run
