"""The quick check of :class:`goosectx.redaction.Redactor`: a proof that a text holds no secret.

The redactor's regex (every listed form, whitespace allowed between characters, any of them
percent-encoded) is exact but slow on megabytes of tool output. The check below runs first,
in C: the text with its whitespace squeezed out is searched for each form, then read again
with its percent-escapes decoded (two readings of a ``%`` followed by whitespace, see
:meth:`QuickCheck._none_apart`). When it finds none, the regex could find none either, and the
text is given back as it is. It never says "none" of a text the regex would change
(tests/test_redaction_check.py compares the two on random texts; docs/architecture.md §8,
the import's scrub).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterable

ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters ``str.split`` (and ``\\s`` of ``re``) take for whitespace."""
WIDE_SPACE = ("\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
              "\u200a\u2028\u2029\u202f\u205f\u3000")
"""The others (a test checks the two against ``str.isspace``)."""
BATCH_CHARS = 1 << 18
""":meth:`QuickCheck.none_in` checks texts 256k characters at a time: each copy made of them
stays in the CPU's cache, and the memory freed is taken again (the 20 MB of a 10k-message
import: 0.17 s of CPU and 19k page faults joined whole, 0.105 s and 0.4k so; 16k to 1M alike)."""
_TO_SPACE = bytes.maketrans(ASCII_SPACE, b" " * len(ASCII_SPACE))
_SITE = re.compile(b"%[" + re.escape(ASCII_SPACE) + b"]")
"""A ``%`` followed by whitespace: where the two readings of :meth:`QuickCheck._none_apart`
differ."""


def decoded(squeezed: str) -> str:
    """``squeezed`` (no whitespace in it) with its percent-escapes decoded, hex in any case.

    Decoded as quoted-printable (``=XX``, by :func:`binascii.a2b_qp` in C: several times
    faster than :func:`urllib.parse.unquote` on a 10 MB output full of escapes), the text's
    own ``=`` written ``=3D`` first.
    """
    if "%" not in squeezed:
        return squeezed
    return unquoted(squeezed.encode("utf-8", "surrogatepass")).decode("utf-8", "surrogateescape")


def unquoted(squeezed: bytes) -> bytes:
    """:func:`decoded` in bytes: each ``%XX`` decoded, any other ``%`` written ``=``.

    A ``%`` followed by another ``%`` (or an ``=``) starts no escape: it is written ``=3D``,
    as ``a2b_qp`` would read the pair ``==`` as one ``=`` and so skip an escape after it
    (``100%%41…`` kept the secret ``A…``). At most two passes: the first leaves single ``==``
    pairs between its ``=3D=`` pieces. A ``%`` at the end is written ``=3D`` too (``a2b_qp``
    drops an ``=`` there).

    Each byte written comes from one ``%XX`` escape or one byte of ``squeezed``, read left to
    right; a ``%`` is never part of an escape's hex, so a reading started inside an escape is
    back in step with one started before it after at most two bytes.
    """
    quoted = squeezed.replace(b"=", b"=3D").replace(b"%", b"=")
    while b"==" in quoted:
        quoted = quoted.replace(b"==", b"=3D=")
    if quoted.endswith(b"="):
        quoted += b"3D"
    return binascii.a2b_qp(quoted)


class QuickCheck:
    """The quick check for a redactor's forms (each with its whitespace removed)."""

    def __init__(self, forms: Iterable[str]) -> None:
        self._forms = list(forms)
        self._form_bytes = [f.encode("utf-8", "surrogatepass") for f in self._forms]
        readable = [b for f in self._forms if (b := _escaped_bytes(f)) is not None]
        self._percent = any(b"%" in form for form in readable)
        self._decoded_bytes = [form.replace(b"%", b"=") for form in readable]
        """The forms as :meth:`_read` reads text: a ``%`` of a form (a secret of a URL,
        ``p%40ss``) written ``=``, as a ``%`` that starts no escape is, and so found whether
        the text writes it as it is or as ``%25``."""
        self._ascii = all(f.isascii() for f in self._forms)
        longest = max((len(b) for b in self._decoded_bytes), default=0)
        self._reach = 3 * longest + 8
        """Bytes of text (not whitespace) each side of a ``%`` and whitespace that a decoded
        form could span: each byte decoded comes from at most 3 (``%XX``), and a reading
        started cold is in step after 2 (:func:`unquoted`); a few more for good measure."""

    def none_in_text(self, text: str) -> bool:
        """True when no form can be in ``text`` (False: it may be; the regex decides)."""
        return self._none_in_batch([text])

    def none_in(self, texts: Iterable[str]) -> bool:
        """True when no form can be in any of ``texts``: one check of them all.

        :meth:`none_in_text`'s check, on the texts joined by NUL, in bytes (a 10k-message
        import's 20 MB in ~0.1 s of CPU with its walk, where a call for each string took
        ~0.22 s). A string whose check finds a form finds it in the joined text too: with its
        whitespace squeezed out each string is a piece of the whole, and a percent-escape never
        runs over the NUL that ends it. ``False`` says only that one of them may hold a form.
        """
        batch: list[str] = []
        size = 0
        for text in texts:
            batch.append(text)
            size += len(text)
            if size >= BATCH_CHARS:
                if not self._none_in_batch(batch):
                    return False
                batch, size = [], 0
        return self._none_in_batch(batch)

    def _none_in_batch(self, texts: list[str]) -> bool:
        """:meth:`none_in` of a batch of ``texts``."""
        encoded = _encoded(_spaced("\0".join(texts)), latin1=self._ascii)
        squeezed = encoded.translate(None, ASCII_SPACE)
        if any(form in squeezed for form in self._form_bytes):
            return False
        if b"%" not in squeezed:
            return True
        read = self._read(squeezed)
        if any(form in read for form in self._decoded_bytes):
            return False
        return self._none_apart(encoded)

    def _read(self, squeezed: bytes) -> bytes:
        """``squeezed`` decoded (:func:`unquoted`); a ``%`` in it written ``=`` if a form has one.

        So a secret's own ``%`` is found as the text writes it: as it is (which decodes to
        ``=`` when no escape follows) or as ``%25``.
        """
        read = unquoted(squeezed)
        return read.replace(b"%", b"=") if self._percent else read

    def _none_apart(self, encoded: bytes) -> bool:
        """The check's other reading of ``encoded``: a ``%`` before whitespace is no escape.

        Squeezed, ``upload 100% ab%2F…`` reads ``%ab``, an escape that hides the secret
        ``ab/…`` after it; an escape folded after its ``%2`` needs the squeezed reading. Here
        each ``%`` then whitespace is written ``=`` (as a ``%`` no escape follows reads;
        nothing decodes across it), the other whitespace removed, and the escapes decoded.

        The two readings differ only in what the ``%`` and the two bytes after it decode to,
        so a form that this reading holds and the squeezed one (already searched) does not
        overlaps such a place: only the text around each ``%`` and whitespace is read, as far
        as a form could reach (:func:`_site_windows`). Python source full of ``x % y`` is read
        a few hundred bytes a site, not whole.
        """
        pieces = _site_windows(encoded, self._reach)
        if not pieces:
            return True
        apart = b"\0".join(pieces).translate(_TO_SPACE).replace(b"% ", b"=")
        read = self._read(apart.translate(None, b" "))
        return not any(form in read for form in self._decoded_bytes)


def _site_windows(encoded: bytes, reach: int) -> list[bytes]:
    """The pieces of ``encoded`` around each ``%`` followed by whitespace (a site), in order.

    Each site is inside a piece with at least ``reach`` bytes that are not whitespace on each
    side of it (or the text's start or end). Sites close together share a piece; the pieces
    may overlap. Empty when there is no site; ``[encoded]`` itself when the pieces would come
    to more than the whole (sites every few hundred bytes).
    """
    pieces: list[bytes] = []
    size = 0
    first = last = -1
    near = 2 * reach  # sites closer than this share a piece (any choice is correct)
    for site in _SITE.finditer(encoded):
        at = site.start()
        if first >= 0 and at - last > near:
            pieces.append(encoded[_back(encoded, first, reach):_forward(encoded, last, reach)])
            size += len(pieces[-1])
            if size >= len(encoded):
                return [encoded]
            first = -1
        if first < 0:
            first = at
        last = at
    if first >= 0:
        pieces.append(encoded[_back(encoded, first, reach):_forward(encoded, last, reach)])
    return pieces


def _back(encoded: bytes, at: int, reach: int) -> int:
    """The start of a piece with ``reach`` bytes but whitespace before ``at`` (or 0)."""
    span = 2 * reach
    while True:
        start = max(0, at - span)
        if start == 0 or len(encoded[start:at].translate(None, ASCII_SPACE)) >= reach:
            return start
        span *= 2


def _forward(encoded: bytes, at: int, reach: int) -> int:
    """The end of a piece with ``reach`` bytes but whitespace after ``at`` (or the end)."""
    span = 2 * reach
    while True:
        end = min(len(encoded), at + 1 + span)
        if end == len(encoded) or len(encoded[at + 1:end].translate(None, ASCII_SPACE)) >= reach:
            return end
        span *= 2


def _spaced(text: str) -> str:
    """``text`` with each whitespace character outside ASCII written as a space."""
    if not text.isascii():
        for space in WIDE_SPACE:  # (a search for one character is a memchr: fast)
            if space in text:
                text = text.replace(space, " ")
    return text


def _encoded(text: str, *, latin1: bool) -> bytes:
    """``text`` in UTF-8 (as :func:`decoded` encodes it), or in Latin-1 if ``latin1`` and it fits.

    Latin-1 is a copy where UTF-8 is a conversion (-0.01 s on a 20 MB text); it is for forms
    all ASCII: either encoding keeps each run of ASCII characters, and only those, as it is.
    """
    if latin1:
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError:
            pass
    return text.encode("utf-8", "surrogatepass")


def _escaped_bytes(form: str) -> bytes | None:
    """``form`` as :func:`decoded` text is encoded (``None``: no decoded text can hold it)."""
    try:
        return form.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate outside U+DC80..U+DCFF
        return None
