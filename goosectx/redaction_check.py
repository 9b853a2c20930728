"""The quick check of :class:`goosectx.redaction.Redactor`: a proof that a text holds no secret.

The redactor's regex (every listed form, whitespace allowed between characters, characters
percent-encoded) is exact but slow on megabytes of tool output. The check runs first (its
passes over the text in C): the text with its whitespace squeezed out and its percent-escapes
decoded (one reading, :func:`unquoted`) is searched for a *needle* of each form
(:func:`needles`). When it finds none, the regex could match no form either, and the text is
given back as it is.

Why a needle and not the form: however the regex matched a form — any character written as
it is or percent-encoded, whitespace anywhere — the reading gives back each of its characters
but a few: whitespace, a ``%`` of the form and the two characters after it (written as they
are, ``%41`` decodes), and its first two characters when they are hex digits (a ``%`` just
before the form, ``100%ab…``, eats them). Its longest run without those, the needle, is in
the reading of every text the regex changes. tests/test_redaction_check.py compares the
check with the regex on random texts; docs/architecture.md §8 (the import's scrub).
"""

from __future__ import annotations

import binascii
import bisect
import codecs
from collections.abc import Iterable, Iterator
from itertools import accumulate

from goosectx.lazy_pattern import LazyPattern

ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters ``str.split`` (and ``\\s`` of ``re``) take for whitespace."""
WIDE_SPACE = ("\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
              "\u200a\u2028\u2029\u202f\u205f\u3000")
"""The others (a test checks the two against ``str.isspace``)."""
BATCH_CHARS = 1 << 18
""":meth:`QuickCheck.none_in` checks texts 256k characters at a time: each copy made of them
stays in the CPU's cache, and the memory freed is taken again (the 20 MB of a 10k-message
import: 0.17 s of CPU and 19k page faults joined whole, 0.105 s and 0.4k so; 16k to 1M alike)."""
MIN_NEEDLE_BYTES = 4
"""A form whose longest run is shorter is looked for by its longest runs together
(:func:`needles`): each must be in the reading."""
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {f"{a}{b}".encode(): bytes([int(a + b, 16)]) for a in _HEX for b in _HEX}
"""The byte each two hex digits (any case) after a ``%`` decode to."""
_ERRORS = "goosectx-redaction"
TERMINAL_ESCAPE = LazyPattern(r"\x1b(?:\[[ -?]*[@-~]|\][^\x00\x07\x1b]*(?:\x07|\x1b\\))")
"""A terminal's CSI (``ESC [0m``: colour, cursor) or OSC (``ESC ]0;title BEL``) sequence."""


def without_escapes(text: str) -> str:
    """``text`` without its :data:`TERMINAL_ESCAPE` sequences (itself when it has no ESC)."""
    return TERMINAL_ESCAPE.sub("", text) if "\x1b" in text else text


def spans_with_escapes(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (in order) of :func:`without_escapes` of ``text`` as spans of ``text``.

    A span runs from its first character to its last: the sequences between them go with
    it, those before or after it stay. The sequences past the last span are not looked at.
    """
    plain_starts: list[int] = []  # each piece of ``text`` between two sequences:
    starts: list[int] = []  # where it starts there and in ``text``
    plain = pos = 0
    last = spans[-1][1] if spans else 0
    for match in TERMINAL_ESCAPE.finditer(text):
        if match.start() > pos:
            plain_starts.append(plain)
            starts.append(pos)
            plain += match.start() - pos
        pos = match.end()
        if plain >= last:
            break
    plain_starts.append(plain)
    starts.append(pos)

    def where(index: int) -> int:
        k = bisect.bisect_right(plain_starts, index) - 1
        return starts[k] + index - plain_starts[k]

    return [(where(start), where(end - 1) + 1) for start, end in spans]


def _lone_surrogate(error: UnicodeError) -> tuple[bytes, int]:
    """Encode a lone surrogate as a decoded escape gives it: U+DC80..U+DCFF as its one byte."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    piece = error.object[error.start:error.end]
    out = bytearray()
    for ch in piece:
        if "\udc80" <= ch <= "\udcff":
            out.append(ord(ch) - 0xDC00)
        else:
            out += ch.encode("utf-8", "surrogatepass")
    return bytes(out), error.end


codecs.register_error(_ERRORS, _lone_surrogate)


def decoded(squeezed: str) -> str:
    """``squeezed`` (no whitespace in it) with its percent-escapes decoded, hex in any case."""
    if "%" not in squeezed:
        return squeezed
    return unquoted(squeezed.encode("utf-8", _ERRORS)).decode("utf-8", "surrogateescape")


def unquoted(squeezed: bytes) -> bytes:
    """``squeezed`` with each ``%XX`` decoded and any other ``%`` written ``=``.

    A text with few ``%`` (one in 64 bytes or fewer) is split at them and each piece's first
    two bytes looked up (a 10k-message import's 19 MB: 8 ms of CPU where ``a2b_qp`` below
    took 24). A denser one is decoded as quoted-printable (``=XX``, by
    :func:`binascii.a2b_qp` in C: several times faster than :func:`urllib.parse.unquote` on a
    10 MB output full of escapes), the text's own ``=`` written ``=3D`` first. There a ``%``
    followed by another ``%`` (or an ``=``) starts no escape: it is written ``=3D``, as
    ``a2b_qp`` would read the pair ``==`` as one ``=`` and so skip an escape after it
    (``100%%41…`` kept the secret ``A…``); at most two passes, the first leaves single ``==``
    pairs between its ``=3D=`` pieces. A ``%`` at the end is written ``=3D`` too (``a2b_qp``
    drops an ``=`` there). Both ways give the same bytes.

    Read left to right, each byte out comes from one ``%XX`` or one byte in; a ``%`` is never
    an escape's hex digit, so after a ``%`` and the two bytes after it the reading is back in
    step with the text's characters.
    """
    pieces = squeezed.split(b"%")
    if len(pieces) == 1:
        return squeezed
    if len(pieces) <= len(squeezed) >> 6:
        out = [pieces[0]]
        escape = _ESCAPES.get
        for piece in pieces[1:]:
            byte = escape(piece[:2])
            out += (b"=", piece) if byte is None else (byte, piece[2:])
        return b"".join(out)
    quoted = squeezed.replace(b"=", b"=3D").replace(b"%", b"=")
    while b"==" in quoted:
        quoted = quoted.replace(b"==", b"=3D=")
    if quoted.endswith(b"="):
        quoted += b"3D"
    return binascii.a2b_qp(quoted)


def needles(form: str) -> tuple[bytes, ...]:
    """Runs of ``form`` that the reading of any text the regex matches it in holds, each.

    Its longest run, or when that is under :data:`MIN_NEEDLE_BYTES` (a password of many
    signs, whose URL-encoded form is ``%`` after ``%``) its three longest of 2 bytes or more;
    none at all when it has none (the check then never says none). Left out of the runs:
    whitespace (squeezed, or decoded from ``%20``), each ``%`` and the two characters (not
    whitespace) after it, and the first two characters when hex digits. Encoded as the
    reading encodes text (UTF-8, a lone surrogate U+DC80..U+DCFF as its byte).
    """
    chars = list(form)
    out = [not ch.isspace() for ch in chars]
    solid = [i for i, ch in enumerate(chars) if out[i]]
    for i in solid[:2]:
        if chars[i] not in _HEX:
            break
        out[i] = False
    for k, i in enumerate(solid):
        if chars[i] == "%":
            for j in solid[k:k + 3]:
                out[j] = False
    runs: list[str] = []  # (not split at a marker: a wide form holds every character, NUL too)
    run: list[str] = []
    for ch, keep in zip(chars, out, strict=True):
        if keep:
            run.append(ch)
        else:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    found = sorted((run.encode("utf-8", _ERRORS) for run in runs), key=len, reverse=True)
    if len(found[0]) >= MIN_NEEDLE_BYTES:
        return (found[0],)
    return tuple(run for run in found[:3] if len(run) >= 2)


class QuickCheck:
    """The quick check for a redactor's forms (as listed: whitespace and all)."""

    def __init__(self, forms: Iterable[str]) -> None:
        found = {needles(form) for form in forms}
        self._always = () in found
        single = {group[0] for group in found if len(group) == 1}
        # a needle holding another is found only where that one is: look for that one alone
        self._needles = sorted(n for n in single if not any(m != n and m in n for m in single))
        self._groups = [group for group in found if len(group) > 1]
        self._ascii = all(n.isascii() for group in found for n in group)

    def none_in_text(self, text: str) -> bool:
        """True when no form can be in ``text`` (False: it may be; the regex decides)."""
        return self._none_in_batch(text)

    def none_in(self, texts: Iterable[str]) -> bool:
        """True when no form can be in any of ``texts``: one check of them all.

        :meth:`none_in_text`'s check, on the texts joined by NUL, in bytes (a 10k-message
        import's 19 MB in ~0.06 s of CPU), a batch at a time (:func:`joined_batches`). A form
        the regex finds in one string leaves its needle in the reading of the whole: squeezed,
        each string is a piece of it, and a ``%`` never eats the NUL that ends a string.
        ``False`` says only that one of them may hold a form.
        """
        return not self._always and all(
            self._none_in_batch(batch) for batch in joined_batches(texts, "\0"))

    def _none_in_batch(self, text: str) -> bool:
        """:meth:`none_in_text` of ``text`` (a batch of texts joined by NUL)."""
        if self._always:
            return False
        squeezed = _encoded(_spaced(text), latin1=self._ascii).translate(None, ASCII_SPACE)
        read = unquoted(squeezed)
        return not (any(n in read for n in self._needles)
                    or any(all(n in read for n in group) for group in self._groups))


def joined_batches(texts: Iterable[str], joiner: str) -> Iterator[str]:
    """``texts`` joined by ``joiner``, whole texts of :data:`BATCH_CHARS` or so at a time.

    Each batch ends with the text that brings it to :data:`BATCH_CHARS` (found by bisection
    of the running lengths, in C: a 100k-message import's 486k strings 0.04 s, not 0.08).
    """
    texts = list(texts)
    ends = list(accumulate(map(len, texts)))
    first = 0
    while first < len(texts):
        done = ends[first - 1] if first else 0
        last = min(bisect.bisect_left(ends, done + BATCH_CHARS, first), len(texts) - 1)
        yield joiner.join(texts[first:last + 1])
        first = last + 1


def _spaced(text: str) -> str:
    """``text`` with each whitespace character outside ASCII written as a space."""
    if not text.isascii():
        for space in WIDE_SPACE:  # (a search for one character is a memchr: fast)
            if space in text:
                text = text.replace(space, " ")
    return text


def _encoded(text: str, *, latin1: bool) -> bytes:
    """``text`` as :func:`needles` encodes; in Latin-1 if ``latin1`` (needles all ASCII) and fits.

    Latin-1 is a copy where UTF-8 is a conversion (-0.01 s on a 20 MB text); either encoding
    keeps each run of ASCII characters, and only those, as it is.
    """
    if latin1:
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError:
            pass
    return text.encode("utf-8", _ERRORS)


def apart(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` in order, those that overlap or touch made one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
