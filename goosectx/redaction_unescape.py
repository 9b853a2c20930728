r"""A key written as escapes (``\u0073\u006b…``, ``\x73``, ``\163``, ``&#x73;``), read decoded.

Part of :mod:`goosectx.redaction` (docs/architecture.md §2, "Secrets"): a model asked to put a
key in JSON, a C/Python/JavaScript/Rust string or HTML may write each of its characters (or
only some) as an escape, and a tool's JSON writes a password's non-ASCII characters so. A
text with a backslash or ``&#`` is read again with its escapes decoded (:class:`Unescaped`:
JSON's ``\u0073`` and its surrogate pairs, ``\\u0073`` of JSON in a JSON string,
``\U00000073``, ``\u{73}``, ``\x73``, octal ``\163``, ``&#x73;``, ``&#115;``, each one
character; of ASCII characters only unless a secret holds another, so that a reading of
ASCII text stays ASCII, fast to search); a form of a key found in that reading is redacted
over the escapes it was written with (:meth:`Unescaped.spans`), as a key split by terminal
escape sequences is (:func:`goosectx.redaction_check.spans_with_escapes`). The quick check
reads only the reading's pieces around its escapes (:meth:`Unescaped.windows`: a form found
there and not in the text holds one; they reach a form's length in characters that are not
whitespace). A text with neither costs two ``memchr``; each escape O(1), each stretch
between them O(its length) (bench/redaction_escapes.py: 1 MB and 2 MB of escapes, linear).
"""

from __future__ import annotations

import bisect
import functools
import heapq
import re
from collections.abc import Iterable, Iterator

_SLASH = r"\\\\?"  # (a JSON string inside a JSON string doubles each backslash)


def _slashed(pair: str, code: str, wide: str, braced: str) -> str:
    """The regex of a backslash escape (named groups: :func:`escaped_char`); a literal first."""
    return (_SLASH + f"(?=[uUx0-7])(?:{pair}|u(?P<code>{code})|U(?P<wide>{wide})"
            f"|u\\{{0{{0,2}}(?P<braced>{braced})\\}}|x(?P<byte>[0-7][0-9a-fA-F])"
            r"|(?P<octal>1[0-7]{2}|0[0-7]{2}|[0-7]{1,2}(?![0-7])))")


def _entity(hexa: str, decimal: str) -> str:
    """The regex of an HTML numeric character reference (``&#x73;``, ``&#115;``)."""
    return f"&#(?:[xX]0{{0,2}}(?P<hexa>{hexa})|0{{0,2}}(?P<decimal>{decimal}));"


_PAIR = (r"u(?P<high>[dD][89abAB][0-9a-fA-F]{2})" + _SLASH
         + r"u(?P<low>[dD][c-fC-F][0-9a-fA-F]{2})")
_WIDE_SLASHED = _slashed(_PAIR, "[0-9a-fA-F]{4}", "000[0-9a-fA-F]{5}|0010[0-9a-fA-F]{4}",
                         "[0-9a-fA-F]{1,5}")
_WIDE_ENTITY = _entity("[0-9a-fA-F]{1,5}", "[0-9]{1,7}")
BACKSLASH_ESCAPE = _WIDE_SLASHED + "|" + _WIDE_ENTITY
"""The regex of an escape of one character decoded (:func:`backslash_escape` compiles it):
JSON's, JavaScript's and Python's ``\\u0073`` (any character; a surrogate pair one),
``\\U00000073`` (Python, C), ``\\u{73}`` (JavaScript, Rust, Swift), each with its backslash
doubled too (``\\\\u0073``: JSON in a JSON string); ``\\x73`` and octal ``\\163`` of an ASCII
character (a C byte above is not one); HTML's ``&#x73;`` and ``&#115;``. A text with none (no
backslash, no ``&#``) is read as it is."""


@functools.cache
def backslash_escape() -> re.Pattern[str]:
    """:data:`BACKSLASH_ESCAPE` compiled, at its first use (as :func:`_reading`'s patterns).

    A process that redacts only texts without an escape (``compact --dry-run`` naming its
    session) compiles none of them: at import they took ~1.5 ms of CPU.
    """
    return re.compile(BACKSLASH_ESCAPE)


@functools.cache
def _reading(wide: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    r"""What :class:`Unescaped` decodes, backslash escapes and HTML's apart (compiled once).

    Each regex starts with a literal: ``re`` skips to where one can start. Of any character,
    or (``wide`` false) of ASCII characters only: when no secret holds another (JSON of French
    text, ``\u00e9`` everywhere, is read as it is, and the reading of ASCII text stays ASCII:
    faster to search).
    """
    if wide:
        return re.compile(_WIDE_SLASHED), re.compile(_WIDE_ENTITY)
    return (re.compile(_slashed("(?!)(?P<high>)(?P<low>)", "00[0-7][0-9a-fA-F]",
                                "000000[0-7][0-9a-fA-F]", "0{0,2}[0-7]?[0-9a-fA-F]")),
            re.compile(_entity("0{0,2}[0-7]?[0-9a-fA-F]",
                               "0{0,3}(?:1[01][0-9]|12[0-7]|[0-9]{1,2})")))


PARTIAL_BACKSLASH = (
    _SLASH + r"(?:u(?:[0-9a-fA-F]{0,3}|[dD][89abAB][0-9a-fA-F]{2}(?:" + _SLASH
    + r"u?[0-9a-fA-F]{0,3})?|\{[0-9a-fA-F]{0,7})|U[0-9a-fA-F]{0,7}|x[0-9a-fA-F]?|[0-7]{1,2})?"
    r"|\\|&(?:#(?:[xX][0-9a-fA-F]{0,7}|[0-9]{0,9}))?")
"""An escape still arriving at the end of a streamed text (a regex, for ``\\Z`` after it);
a surrogate pair's first half too."""
ESCAPE_MOST_CHARS = 12
"""The most characters an escape takes for a character of the BMP (``\\\\u{0000073}``)."""
PAIR_MOST_CHARS = 16
"""... and for one outside it (a surrogate pair, ``\\\\ud83d\\\\udd11``)."""


def may_hold_escape(text: str) -> bool:
    """True when ``text`` may hold a :data:`BACKSLASH_ESCAPE` (a ``memchr`` or two)."""
    return "\\" in text or "&" in text and "&#" in text  # (one character: a memchr)


def escape_most_chars(text: str) -> int:
    """The most characters ``text`` takes written as escapes, each of its characters one."""
    return sum(ESCAPE_MOST_CHARS if ord(ch) < 0x10000 else PAIR_MOST_CHARS for ch in text)


def escaped_char(match: re.Match[str]) -> str:
    """The character a :data:`BACKSLASH_ESCAPE` match (or one of :func:`_reading`'s) stands for."""
    name = match.lastgroup  # (the one group that matched; of a surrogate pair, its second)
    assert name is not None
    digits = match.group(name)
    if name == "low":
        return chr(0x10000 + ((int(match.group("high"), 16) - 0xD800) << 10)
                   + int(digits, 16) - 0xDC00)
    if name == "octal":
        return chr(int(digits, 8) & 0xFF)
    value = int(digits, 10 if name == "decimal" else 16)
    return chr(value) if value <= 0x10FFFF else "\ufffd"


def search_from(pattern: re.Pattern[str], text: str, first: str,
                tries: int = 64) -> re.Match[str] | None:
    """``pattern.search(text)`` for a ``pattern`` whose every match starts with ``first``.

    Tried at each ``first`` :meth:`str.find` gives (a ``memchr``, ~20 times faster than
    ``re``'s own scan to a literal), ``re``'s scan from the place after ``tries`` of them.
    (A 10k-message import's 19 MB: 1,314 ``&``, 3,256 ``^``; 0.7 and 1.2 ms, not 5.4 and 5.2.)
    """
    at = text.find(first)
    for _ in range(tries):
        if at < 0:
            return None
        if (match := pattern.match(text, at)) is not None:
            return match
        at = text.find(first, at + 1)
    return pattern.search(text, at) if at >= 0 else None


def escapes(text: str, wide: bool = False) -> Iterator[tuple[int, int, str]]:
    """Each backslash escape and HTML reference of ``text``: (start, end, its character)."""
    slashed, entity = _reading(wide)
    found = [slashed.finditer(text)] if "\\" in text else []
    if "&" in text and (reference := search_from(entity, text, "&")) is not None:
        found.append(entity.finditer(text, reference.start()))  # (none before the first)
    matches = found[0] if len(found) == 1 else heapq.merge(*found, key=lambda m: m.start())
    for match in matches:  # (in order: the two kinds never overlap)
        yield match.start(), match.end(), escaped_char(match)


class Unescaped:
    """``text`` read with its backslash escapes decoded (:attr:`text`), and the way back.

    Or with ``tokens`` read so instead: each (start, end, character), in order and apart
    (:mod:`goosectx.redaction_separated`: a key written as a list of its characters).

    The reading is joined only when :attr:`text` is first read: the quick check reads only
    :meth:`windows`, made from ``text`` and the tokens (a 10k-message import's 19 MB: its
    256k batches were each copied whole to read ~1,700 escapes' windows).
    """

    def __init__(self, text: str, *, wide: bool = False,
                 tokens: Iterable[tuple[int, int, str]] | None = None) -> None:
        self._source = text
        self._at: list[int] = []  # index in the reading of each escape's character
        self._starts: list[int] = []  # where that escape starts and ends in ``text``
        self._ends: list[int] = []
        self._chars: list[str] = []  # the character it is read as
        if tokens is None:
            if not may_hold_escape(text):
                return
            tokens = escapes(text, wide)
        shift = 0  # (the reading's index of a place in ``text`` after an escape: less by it)
        for start, end, char in tokens:  # (in order, apart; each read as one character)
            self._at.append(start - shift)
            self._starts.append(start)
            self._ends.append(end)
            self._chars.append(char)
            shift += end - start - 1

    @functools.cached_property
    def text(self) -> str:
        """The reading; ``text`` itself when it has no escape."""
        if not self._at:
            return self._source
        source, pieces, pos = self._source, [], 0
        for start, end, char in zip(self._starts, self._ends, self._chars, strict=True):
            pieces += [source[pos:start], char]
            pos = end
        pieces.append(source[pos:])
        return "".join(pieces)

    @property
    def changed(self) -> bool:
        """True when ``text`` held an escape (the reading differs)."""
        return bool(self._at)

    def tokens(self) -> Iterator[tuple[int, int, str]]:
        """Each escape (each token): (start, end, the character it is read as), in order."""
        return zip(self._starts, self._ends, self._chars, strict=True)

    def _where(self, index: int) -> tuple[int, int]:
        """Where the reading's character at ``index`` is written in ``text``: (start, end)."""
        k = bisect.bisect_right(self._at, index) - 1
        if k < 0:
            return index, index + 1
        if self._at[k] == index:
            return self._starts[k], self._ends[k]
        at = self._ends[k] + index - self._at[k] - 1
        return at, at + 1

    def windows(self, margin: int) -> list[str]:
        """The pieces of the reading within ``margin`` solid characters of a decoded escape.

        A form found in the reading and not in ``text`` holds a decoded character; one at
        most ``margin`` characters long, with any whitespace inside (the regex allows it
        between any two characters), lies in one of these pieces: each reaches ``margin``
        characters that are not whitespace either side of its escapes (neighbours merged:
        the stretch between them has fewer than ``2 * margin + 1``). Made from ``text`` (the
        reading's stretches between escapes are its own): each stretch is read at most
        twice, O(its length), and the reading is never joined whole.
        """
        source, starts, ends, chars = self._source, self._starts, self._ends, self._chars
        solid, apart = _solid(margin), _solid(2 * margin + 1, exact=True)
        pieces: list[str] = []
        first = 0
        while first < len(starts):
            last = first  # the escapes whose reaches meet: first..last
            while last + 1 < len(starts) and (
                    starts[last + 1] - ends[last] <= 2 * margin
                    or apart.match(source, ends[last], starts[last + 1]) is None):
                last += 1
            begin = 0 if self._at[first] <= margin else _back(source, starts[first], margin)
            out = [source[begin:starts[first]]]
            for k in range(first, last):
                out += [chars[k], source[ends[k]:starts[k + 1]]]
            out += [chars[last], source[ends[last]:_reach(solid, source, ends[last])]]
            pieces.append("".join(out))
            first = last + 1
        return pieces

    def spans(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``spans`` (in order, apart) of the reading as spans of ``text``, escapes and all."""
        return [(self._where(start)[0], self._where(end - 1)[1]) for start, end in spans]


def _back(text: str, pos: int, margin: int) -> int:
    """Where ``margin`` solid characters of ``text`` before ``pos`` start (whitespace between).

    Read backwards in slices growing fourfold from ``4 * margin`` characters (a copy of the
    slice reversed), not of the whole text: a window's start costs O(what it reaches).
    """
    exact = _solid(margin, exact=True)
    size = 4 * margin + 4
    while True:
        low = max(0, pos - size)
        behind = text[low:pos][::-1]
        if (match := exact.match(behind)) is not None:
            return pos - match.end()
        if low == 0:
            return pos - _reach(_solid(margin), behind, 0)
        size *= 4


@functools.lru_cache(maxsize=8)
def _solid(count: int, *, exact: bool = False) -> re.Pattern[str]:
    """Up to (``exact``: just) ``count`` characters that are not whitespace, and those between."""
    return re.compile(r"(?:\s*\S){" + ("" if exact else "0,") + f"{count}}}")


def _reach(solid: re.Pattern[str], text: str, pos: int) -> int:
    """Where :func:`_solid`'s characters read from ``pos`` on end."""
    match = solid.match(text, pos)
    assert match is not None  # (``{0,n}`` matches the empty text)
    return match.end()
