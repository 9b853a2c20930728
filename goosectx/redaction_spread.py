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

Cost: a text with no NUL, U+FFFD, ``^`` or backslash is not searched for runs (a ``memchr``
each); one with a backslash is searched once for the three backslash separators (a 10k-message
import's 19 MB: 12 ms for them all, 22 ms a search each); a text of characters under U+0100
is not searched for look-alikes (its Latin-1 copy, in C); another one costs ~10 ms a MB
(bench/redaction_pieces.py).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from goosectx.redaction_unescape import search_from

if TYPE_CHECKING:
    from goosectx.redaction_unescape import Unescaped

_RUN_CHARS = 7
"""The fewest characters a spread run has (a key is 8+: its last may have no separator after)."""
_SEPARATORS = ("\x00", "\ufffd", "^@", "\\x00", "\\u0000", "\\0")
_SEPARATOR = r"\s*(?:\x00|\ufffd|\^@|\\x00|\\u0000|\\0(?![0-7]))\s*"
_CHAR = r"[^\s\x00\ufffd\\^]"
_LEADS = {sep: re.compile(re.escape(sep) + rf"(?:\s*{_CHAR}{_SEPARATOR}){{{_RUN_CHARS - 1},}}")
          for sep in _SEPARATORS}
"""By separator: a run's separators and the characters between (a literal first: ``re``
skips to where one can start, faster than ``str.find`` of a literal of 2+ characters)."""
_GATES = {first: re.compile("|".join(lead.pattern for sep, lead in _LEADS.items()
                                     if sep[0] == first))
          for first in dict.fromkeys(sep[0] for sep in _SEPARATORS)}
"""By first character: a match where any of the separators starting so has a lead (one
search of a text for the three backslash ones; when it has that character, a ``memchr``)."""
_SPREAD = re.compile(rf"(?:{_CHAR}{_SEPARATOR}){{{_RUN_CHARS - 1},}}")
_EACH = re.compile(rf"({_CHAR}){_SEPARATOR}")
_MARKS = "\u200b\u200c\u200d\u2060\ufeff\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff" \
    "\ufe20-\ufe2f"
"""Zero-width characters and combining marks: dropped from the reading."""
_LOOK_ALIKE = re.compile(f"[\uff01-\uff5e\U0001d400-\U0001d7ff{_MARKS}][{_MARKS}]*")
"""A fullwidth or mathematical character, or marks (after the character they go with)."""


def nul_tokens(text: str, escaped: Unescaped | None = None) -> list[tuple[int, int, str]]:
    r"""Each character of a run spread by NULs (or their renderings), with its separator.

    ``escaped``: ``text`` read with its escapes decoded, when the caller has it: a backslash
    separator (``\0``, ``\x00``, ``\u0000``) is one of its escapes read as a NUL, and a
    run starting with one is looked for at those alone (:func:`_escaped_lead`).
    """
    tokens: list[tuple[int, int, str]] = []
    gates = [first for first, gate in _GATES.items() if first in text and (
        _escaped_lead(text, escaped) if first == "\\" and escaped is not None
        else search_from(gate, text, first))]
    for sep, lead in _LEADS.items():
        if sep[0] not in gates:
            continue
        pos = end = 0
        while found := lead.search(text, pos):
            begin = found.start()
            while begin > 0 and text[begin - 1].isspace():
                begin -= 1
            run = _SPREAD.match(text, max(begin - 1, end))  # (the character before it)
            if run is None or run.start() < end:
                run = _SPREAD.match(text, found.start() + len(sep))
            pos = found.end()
            if run is None or run.start() < end:
                continue
            tokens += [(m.start(), m.end(), m.group(1))
                       for m in _EACH.finditer(text, run.start(), run.end())]
            end = pos = max(pos, run.end())
    return sorted(tokens)


def _escaped_lead(text: str, escaped: Unescaped) -> bool:
    """Whether a run of ``text`` starts with a backslash separator (the gate's answer).

    Such a separator is one of ``escaped``'s escapes read as a NUL (its backslash doubled
    too: then a character in): the gate is tried at those places only, not searched for
    over the text (a 10k-message import's 19 MB: 1,000 such escapes, ~6 ms less).
    """
    gate = _GATES["\\"]
    return any(gate.match(text, start) or text.startswith("\\\\", start)
               and gate.match(text, start + 1) for start, _, char in escaped.tokens()
               if char == "\x00")


def look_alike_tokens(text: str) -> list[tuple[int, int, str]]:
    """Each look-alike character (its marks with it) whose reading is another character."""
    try:  # (all under U+0100, a one-byte string: a copy in C, ~0.1 ms a MB)
        text.encode("latin-1")
        return []
    except UnicodeEncodeError:
        pass
    tokens: list[tuple[int, int, str]] = []
    last = 0
    for match in _LOOK_ALIKE.finditer(text):
        start = match.start()
        if unicodedata.category(text[start]) in ("Mn", "Me", "Cf"):  # marks: on the one before
            start -= 1
            if start < last or text[start].isspace():
                continue
        plain = unicodedata.normalize("NFKC", text[start])
        if len(plain) == 1:
            tokens.append((start, match.end(), plain))
            last = match.end()
    return tokens
