r"""A key spread out: a NUL between its characters (UTF-16), or look-alike characters.

Part of the tool outputs' redaction (:class:`goosectx.redaction_fragments.WithPieces`, through
:func:`goosectx.redaction_separated.separated`; docs/architecture.md §2, "Secrets"). Two
readings of a text, each a list of tokens of an
:class:`~goosectx.redaction_unescape.Unescaped` reading (a token is read as one character):

* :func:`nul_tokens` — a file in UTF-16 (``key=…`` saved by a Windows editor) read as bytes
  has a NUL beside each ASCII character: ``cat`` gives ``k\0e\0y\0…`` (a terminal or a decoder
  may show each NUL as U+FFFD), ``cat -v`` ``k^@e^@y^@…``, Python's ``repr`` ``k\x00e\x00…``,
  ``od -c`` ``k  \0   e  \0 …``. A run of 7+ characters each followed by one such separator
  (whitespace beside it allowed) is read with its separators dropped; both byte orders (a
  run's first separator before its first character stays outside it).
* :func:`look_alike_tokens` — a key retyped in look-alike characters: fullwidth
  (``ｓｋ－ｔｅｓｔ…``), mathematical letters and digits (NFKC gives them back), with
  zero-width characters (U+200B/C/D, U+2060, U+FEFF) or combining marks after any character.
  Each such character (with the marks after it) is read as its NFKC form, marks dropped.

Cost: a text with no NUL, U+FFFD, ``^@`` or backslash is not searched for runs (a ``memchr``
each); an ASCII text is not searched for look-alikes (``str.isascii``, in C).
"""

from __future__ import annotations

import re
import unicodedata

_RUN_CHARS = 7
"""The fewest characters a spread run has (a key is 8+: its last may have no separator after)."""
_SEPARATOR = r"\s*(?:\x00|\ufffd|\^@|\\x00|\\u0000|\\0(?![0-7]))\s*"
_SPREAD = re.compile(rf"(?:[^\s\x00\ufffd\\^]{_SEPARATOR}){{{_RUN_CHARS},}}")
_EACH = re.compile(rf"([^\s\x00\ufffd\\^]){_SEPARATOR}")
_MARKS = "\u200b\u200c\u200d\u2060\ufeff\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff" \
    "\ufe20-\ufe2f"
"""Zero-width characters and combining marks: dropped from the reading."""
_LOOK_ALIKE = re.compile(
    f"[\uff01-\uff5e\U0001d400-\U0001d7ff][{_MARKS}]*|[^\\s{_MARKS}][{_MARKS}]+")
"""A fullwidth or mathematical character (marks after it allowed), or any with marks after."""


def nul_tokens(text: str) -> list[tuple[int, int, str]]:
    """Each character of a run spread by NULs (or their renderings), with its separator."""
    if not ("\x00" in text or "\ufffd" in text or "^@" in text or "\\" in text):
        return []
    tokens: list[tuple[int, int, str]] = []
    for run in _SPREAD.finditer(text):
        tokens += [(m.start(), m.end(), m.group(1))
                   for m in _EACH.finditer(text, run.start(), run.end())]
    return tokens


def look_alike_tokens(text: str) -> list[tuple[int, int, str]]:
    """Each look-alike character (its marks with it) whose reading is another character."""
    if text.isascii():
        return []
    tokens: list[tuple[int, int, str]] = []
    for match in _LOOK_ALIKE.finditer(text):
        plain = unicodedata.normalize("NFKC", match.group()[0])
        if len(plain) == 1:
            tokens.append((match.start(), match.end(), plain))
    return tokens
