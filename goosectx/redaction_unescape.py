r"""A key written as backslash escapes (``\u0073\u006b…``, ``\x73``, ``\163``), read decoded.

Part of :mod:`goosectx.redaction` (docs/architecture.md §2, "Secrets"): a model asked to put a
key in JSON or in a C/Python string may write each of its characters (or only some) as an
escape. A text with a backslash is read again with its escapes of ASCII characters decoded
(:class:`Unescaped`: JSON's ``\u0073``, ``\x73``, octal ``\163``, each one character; a
reading of ASCII text stays ASCII, fast to search); a form of a key found in that reading is
redacted over the escapes it was written with (:meth:`Unescaped.spans`), as a key split by
terminal escape sequences is (:func:`goosectx.redaction_check.spans_with_escapes`). The quick
check reads only the reading's pieces around its escapes (:meth:`Unescaped.windows`: a form
found there and not in the text holds one). A text with no backslash costs a ``memchr``; the
bench's 1 MB reply of source text (175 escapes) ~2 ms (bench/redaction_keys.py).
"""

from __future__ import annotations

import bisect
import functools
import re

BACKSLASH_ESCAPE = re.compile(
    r"\\(?:u00([0-7][0-9a-fA-F])|x([0-7][0-9a-fA-F])|(1[0-7]{2}|0[0-7]{2}|[0-7]{1,2}(?![0-7])))")
"""An escape of an ASCII character decoded: ``\\u0073`` (JSON, JavaScript, Python), ``\\x73``,
``\\163`` (octal). Only ASCII: a key's characters are, and a reading of ASCII text stays
one byte a character, which ``str`` searches several times faster (``\\u00e9`` is left)."""
PARTIAL_BACKSLASH = r"\\(?:u[0-9a-fA-F]{0,3}|x[0-9a-fA-F]?|[0-7]{1,2})?"
"""An escape still arriving at the end of a streamed text (a regex, for ``\\Z`` after it)."""
ESCAPE_MOST_CHARS = 6
"""The most characters an escape takes for one character (``\\uXXXX``)."""


def escaped_char(match: re.Match[str]) -> str:
    """The character a :data:`BACKSLASH_ESCAPE` match stands for."""
    code, byte, octal = match.groups()
    if code is not None:
        return chr(int(code, 16))
    if byte is not None:
        return chr(int(byte, 16))
    return chr(int(octal, 8) & 0xFF)


class Unescaped:
    """``text`` read with its backslash escapes decoded (:attr:`text`), and the way back.

    Attributes:
        text: The reading; ``text`` itself when it has no escape.
    """

    def __init__(self, text: str) -> None:
        self._at: list[int] = []  # index in the reading of each escape's character
        self._starts: list[int] = []  # where that escape starts and ends in ``text``
        self._ends: list[int] = []
        self.text = text
        self._reversed: str | None = None  # the reading backwards (:meth:`_back`)
        if "\\" not in text:
            return
        pieces: list[str] = []
        pos = size = 0
        for match in BACKSLASH_ESCAPE.finditer(text):
            size += match.start() - pos
            pieces += [text[pos:match.start()], escaped_char(match)]
            self._at.append(size)
            self._starts.append(match.start())
            self._ends.append(match.end())
            size += 1
            pos = match.end()
        if pieces:
            pieces.append(text[pos:])
            self.text = "".join(pieces)

    @property
    def changed(self) -> bool:
        """True when ``text`` held an escape (the reading differs)."""
        return bool(self._at)

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
        characters that are not whitespace either side of its escapes (neighbours merged).
        Each stretch of the reading between two escapes is read at most twice: O(its length).
        """
        text = self.text
        solid = _solid(margin)
        pieces: list[str] = []
        start = last = -1
        for at in self._at:
            if last >= 0 and (at - last <= 2 * margin + 1 or _solid(2 * margin + 1, exact=True)
                              .match(text, last + 1, at) is None):  # (the reaches meet)
                last = at
                continue
            if last >= 0:
                pieces.append(text[start:_reach(solid, text, last + 1)])
            start, last = self._back(at, margin), at
        if last >= 0:
            pieces.append(text[start:_reach(solid, text, last + 1)])
        return pieces

    def _back(self, at: int, margin: int) -> int:
        """Where the reading's ``margin`` solid characters before index ``at`` start."""
        if at <= margin:
            return 0
        if self._reversed is None:
            self._reversed = self.text[::-1]
        size = len(self.text)
        return size - _reach(_solid(margin), self._reversed, size - at)

    def spans(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``spans`` (in order, apart) of the reading as spans of ``text``, escapes and all."""
        return [(self._where(start)[0], self._where(end - 1)[1]) for start, end in spans]


@functools.lru_cache(maxsize=8)
def _solid(count: int, *, exact: bool = False) -> re.Pattern[str]:
    """Up to (``exact``: just) ``count`` characters that are not whitespace, and those between."""
    return re.compile(r"(?:\s*\S){" + ("" if exact else "0,") + f"{count}}}")


def _reach(solid: re.Pattern[str], text: str, pos: int) -> int:
    """Where :func:`_solid`'s characters read from ``pos`` on end."""
    match = solid.match(text, pos)
    assert match is not None  # (``{0,n}`` matches the empty text)
    return match.end()
