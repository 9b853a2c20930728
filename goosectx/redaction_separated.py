"""A key written as a list of its characters or bytes, read joined (docs/architecture.md §2).

Part of the tool outputs' redaction (:class:`goosectx.redaction_fragments.WithPieces`): a
program (or a model asked for one) that prints a key one character at a time gets none of
its forms (:func:`goosectx.redaction.encodings`) past a plain read. Read joined here:

* a list of quoted single characters, ``['s', 'k', '-', …]`` (Python's ``list(key)``) or
  ``["s","k",…]`` (JSON, JavaScript);
* hex bytes with separators, ``73:6b:2d:…`` (``bytes.hex(':')``, a fingerprint's style),
  ``73-6b-2d-…``, and ``0x73, 0x6b, …`` (a C or Python byte array, commas or spaces).

Each such character or byte is one token of an :class:`~goosectx.redaction_unescape.Unescaped`
reading (its separator goes with it), which the redactor searches as it does a text whose
escapes are decoded; a form found there is redacted over the tokens it was written with.
Lists and hex runs count from :data:`~goosectx.secret_names.MIN_SECRET_CHARS` items, the
shortest secret (a MAC address, ``00:1a:2b:3c:4d:5e``, is read as it is). Bytes written with
spaces only (``73 6b``) and characters with spaces (``s k -``) need no reading: the redactor
allows whitespace between any two characters. Not read: decimal byte lists (``[115, 107,
…]``: lists of numbers are everywhere, each would be read) and characters joined by other
punctuation (``s-k---p``). A key with a NUL between its characters (a UTF-16 file) or in
look-alike characters (fullwidth, zero-width marks) is read here too
(:mod:`goosectx.redaction_spread`).

Cost: a text is searched for where a run can start (regexes that start with a literal:
``re`` skips to them), ~30 ms for 10 MB with none; a reading is checked around its runs
only (:meth:`~goosectx.redaction_unescape.Unescaped.windows`, bench/redaction_pieces.py).
"""

from __future__ import annotations

import re

from goosectx.redaction_spread import look_alike_tokens, nul_tokens
from goosectx.redaction_unescape import Unescaped
from goosectx.secret_names import MIN_SECRET_CHARS

_HEX = "[0-9a-fA-F]{2}"
_PAIR_RUNS = {sep: (re.compile(f"{sep}{_HEX}{sep}{_HEX}{sep}{_HEX}{sep}"),
                    re.compile(f"{_HEX}(?:{sep}{_HEX})+")) for sep in (":", "-")}
"""By separator: (three bytes with one each side: where a run may be, the run itself)."""
_ZERO_X = re.compile(rf"0[xX]{_HEX}\s*,?\s*0[xX]{_HEX}")
_ZERO_X_RUN = re.compile(rf"0[xX]{_HEX}(?:\s*,?\s*0[xX]{_HEX})*")
_ZERO_X_BYTE = re.compile(rf"0[xX]({_HEX})")
_CHAR = r"[^\s'\"\\,]"
_QUOTED = {q: re.compile(f"{q},(?<={q}{_CHAR}{q},)\\s*{q}(?={_CHAR}{q})") for q in "'\""}
"""By quote: a comma between two quoted characters (``'s', 'k'``; a literal first)."""


def separated(text: str, escaped: Unescaped | None = None) -> Unescaped | None:
    r"""``text`` read with its lists of characters and hex bytes joined; ``None``: it has none.

    And with a NUL between characters dropped (UTF-16 read as bytes), look-alike characters
    read as their plain ones (:mod:`goosectx.redaction_spread`). ``escaped``: ``text`` read
    with its escapes decoded, when the caller has it (a NUL written ``\0`` is one of them).
    """
    tokens = _quoted(text) + _pairs(text) + _zero_x(text) + nul_tokens(text, escaped) \
        + look_alike_tokens(text)
    if not tokens:
        return None
    tokens.sort()
    apart = [tokens[0]]
    for token in tokens[1:]:
        if token[0] >= apart[-1][1]:
            apart.append(token)
    return Unescaped(text, tokens=apart)


def _quoted(text: str) -> list[tuple[int, int, str]]:
    """Each quoted character of a list of 8+ in a row, with the comma after it."""
    tokens: list[tuple[int, int, str]] = []
    for comma in _QUOTED.values():  # (no search for ``',`` first: the regex's own is faster)
        follows: dict[int, int] = {}  # an opening quote: the next character's
        for match in comma.finditer(text):
            follows[match.start() - 2] = match.end() - 1
        for first in sorted(follows.keys() - follows.values()):  # (each list's first)
            run = [first]
            while (at := run[-1]) in follows:
                run.append(follows[at])
            if len(run) >= MIN_SECRET_CHARS:
                tokens += [(at, follows.get(at, at + 3), text[at + 1]) for at in run]
    return tokens


def _pairs(text: str) -> list[tuple[int, int, str]]:
    """Each byte of a run of 8+ hex bytes joined by ``:`` or ``-``, with the separator after."""
    tokens: list[tuple[int, int, str]] = []
    for sep, (lead, run) in _PAIR_RUNS.items():
        if sep not in text:
            continue
        pos = 0
        while found := lead.search(text, pos):
            start = found.start() - 2 if _is_hex(text[max(0, found.start() - 2):found.start()]) \
                else found.start() + 1
            match = run.match(text, start)
            assert match is not None  # (the lead holds a run)
            pos = match.end()
            if (pos - start + 1) // 3 >= MIN_SECRET_CHARS:
                tokens += [(at, min(at + 3, pos), chr(int(text[at:at + 2], 16)))
                           for at in range(start, pos, 3)]
    return tokens


def _zero_x(text: str) -> list[tuple[int, int, str]]:
    """Each byte of a run of 8+ ``0x``-written bytes, with what separates it from the next."""
    tokens: list[tuple[int, int, str]] = []
    pos = 0
    while found := _ZERO_X.search(text, pos):
        match = _ZERO_X_RUN.match(text, found.start())
        assert match is not None
        pos = match.end()
        starts = [(m.start(), m.group(1)) for m in _ZERO_X_BYTE.finditer(text, found.start(), pos)]
        if len(starts) >= MIN_SECRET_CHARS:
            ends = [s for s, _ in starts[1:]] + [pos]
            tokens += [(at, end, chr(int(digits, 16)))
                       for (at, digits), end in zip(starts, ends, strict=True)]
    return tokens


def _is_hex(pair: str) -> bool:
    return len(pair) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in pair)
