r"""The forms of a secret the redactor looks for (:func:`encodings`), its cores and retypings.

Part of :mod:`goosectx.redaction` (docs/architecture.md §2, "Secrets"): a value written
literally, reversed, hex (either case), percent-encoded, base64 at all three alignments and
base64url; a long one upper-cased and without its ``-`` and ``_`` (:func:`_retyped`); a key's
part past its vendor prefix on its own (:func:`key_cores`). And its wide forms
(:func:`wide_forms`): the same text as UTF-16, which Windows tools, PowerShell and
``iconv -t UTF-16`` write — its characters with a NUL between them (UTF-16 read as bytes,
``%73%00%6B%00…`` percent-encoded, ``\u0073\u0000…`` as JSON escapes of its bytes), the hex
of its UTF-16-LE and -BE bytes, and their base64. And as UTF-32 (:class:`Utf32Forms`:
``iconv -t UTF-32``, ``\u0073\u0000\u0000\u0000`` as JSON of its bytes), looked for by a
regex of their own, compiled and run only where the quick check finds one of them.
"""

from __future__ import annotations

import functools
import re
import urllib.parse
from collections.abc import Callable

from goosectx.redaction_base64 import base64_forms, base64_run, bytes_base64_forms
from goosectx.redaction_check import QuickCheck, apart, decoded
from goosectx.secret_names import MIN_SECRET_CHARS

KEY_CORE_MIN_CHARS = 16
"""A key's part after its vendor prefix is redacted on its own from this length."""
_PREFIX_SEGMENT = re.compile(r"[A-Za-z0-9]{1,12}[-_]")


def key_cores(secret: str) -> list[str]:
    """The parts of ``secret`` after each vendor-prefix boundary, 16+ characters long.

    ``sk-proj-Ab3d…`` gives ``proj-Ab3d…`` and ``Ab3d…``: a model that writes the key without
    its well-known prefix (``sk-proj-``, ``sk-ant-api03-``, ``ghp_``, ``github_pat_``, ``xoxb-``…)
    still writes the secret part. Boundaries are looked for in the first 24 characters only,
    after runs of 1–12 letters or digits ended by ``-`` or ``_``.
    """
    cores = []
    pos = 0
    while pos < 24 and (match := _PREFIX_SEGMENT.match(secret, pos)):
        pos = match.end()
        if len(secret) - pos < KEY_CORE_MIN_CHARS:
            break
        cores.append(secret[pos:])
    return cores


UPPER_MIN_CHARS = 12
"""A value with a digit in it is redacted upper-cased too from this length (16 without one)."""


def _retyped(secret: str) -> list[str]:
    """A key as a model may write it again: upper-cased, or with its ``-``/``_`` dropped.

    Both from 16 characters; upper-cased from :data:`UPPER_MIN_CHARS` (12) when it holds a
    digit (``TOKEN=abcdefghij1234`` echoed through ``tr a-z A-Z``). Not shorter (a password):
    ``pass-word-1`` would redact every ``password1``, 8–11 upper-cased characters are
    ordinary text too often (``PASSWORD``, ``AB12CD34``), and so are 12–15 letters alone
    (``ADMINISTRATOR`` in a log).
    """
    if len(secret) >= KEY_CORE_MIN_CHARS:
        return [secret.upper(), dropped(secret)]
    if len(secret) >= UPPER_MIN_CHARS and any(ch.isdigit() for ch in secret):
        return [secret.upper()]
    return []


def dropped(text: str) -> str:
    """``text`` without its ``-`` and ``_``."""
    return text.replace("-", "").replace("_", "")


def encodings(secret: str) -> list[str]:
    """The listed encodings of ``secret`` (itself included), each at least 8 characters."""
    data = secret.encode("utf-8", "surrogateescape")
    forms = [secret, secret[::-1], data.hex(), data.hex().upper(),  # (bytes: a value not
             urllib.parse.quote(data, safe=""), urllib.parse.quote_plus(data)]  # UTF-8 too)
    forms += base64_forms(secret)
    forms += _retyped(secret)
    forms += wide_forms(secret)
    unique = dict.fromkeys(f for f in forms if len(f) >= MIN_SECRET_CHARS)
    return sorted(unique, key=len, reverse=True)


def utf16(secret: str) -> tuple[bytes, bytes]:
    """``secret``'s UTF-16-LE and UTF-16-BE bytes (a lone surrogate as it stands)."""
    return (secret.encode("utf-16-le", "surrogatepass"),
            secret.encode("utf-16-be", "surrogatepass"))


def nul_spread(secret: str) -> str:
    r"""``secret`` as UTF-16 read one character a byte, without its outer NULs.

    ``s\0k\0-\0…`` (little-endian) and ``\0s\0k…`` (big-endian) both hold it; so do their
    percent-encodings, ``%73%00%6B%00…`` (the redactor lets each character of it be
    percent-encoded, as a secret's own) and their JSON, ``\u0073\u0000…`` (read decoded).
    """
    return utf16(secret)[0].decode("latin-1").strip("\x00")


def nul_forms(secret: str) -> list[str]:
    r""":func:`nul_spread` of ``secret``, and its UTF-16-LE bytes whole (its last NUL too).

    Read with any character percent-encoded (``%73%00…``), and before a key's core (its
    prefix). Not a big-endian key's first NUL: in a little-endian text that NUL is the
    character's before (``key=\0``), which stays whole.
    """
    return [nul_spread(secret), utf16(secret)[0].decode("latin-1")]


def wide_forms(secret: str) -> list[str]:
    """The UTF-16 forms of ``secret``: :func:`nul_spread`, hex and base64 of both byte orders.

    Base64 at three alignments each, which share their groups two by two (one needle of
    the quick check serves two, :mod:`goosectx.redaction_check`). A match of the first is
    widened over the NUL after it (:class:`goosectx.redaction.Redactor`), as one of a
    big-endian hex form found in a little-endian one is over its last ``00``.
    """
    forms = [nul_spread(secret)]
    for data in utf16(secret):
        forms += [data.hex(), data.hex().upper(), *bytes_base64_forms(data)]
    return forms


def shared_hex(secret: str) -> list[str]:
    """What the hex of both byte orders of a value under U+0100 (a key) holds: ``006b…0079``.

    Either case. Not a form the regex looks for (it would leave a character's hex out): the
    quick check looks for it alone, in place of the two it is in (one needle, not two).
    """
    little = utf16(secret)[0]
    if any(little[1::2]):  # (a character of two bytes)
        return []
    shared = little.hex()[2:-2]
    return [shared, shared.upper()]


def wide_hex(prefixes: list[str]) -> list[str]:
    """The hex of ``prefixes``' UTF-16 bytes: either case, either byte order, ends cut.

    Without its first or last ``00`` or its first character, as a shared form
    (:func:`wide_forms`) leaves them: what stands before a key's core written so, and what a
    match of one is widened over (:class:`goosectx.redaction.Redactor`).
    """
    hexes = [h[a:len(h) - b] for p in prefixes for data in utf16(p) for h in [data.hex()]
             for a in (0, 2, 4) for b in (0, 2)]
    return [h for h in dict.fromkeys(hexes + [h.upper() for h in hexes]) if h]


def base64_cores(secret: str) -> list[str]:
    """The base64 forms of ``secret``'s UTF-8 and UTF-16 bytes (a match is widened over its run)."""
    return base64_forms(secret) + [f for data in utf16(secret) for f in bytes_base64_forms(data)]


def utf32(secret: str) -> tuple[bytes, bytes]:
    """``secret``'s UTF-32-LE and UTF-32-BE bytes (a lone surrogate as it stands)."""
    return (secret.encode("utf-32-le", "surrogatepass"),
            secret.encode("utf-32-be", "surrogatepass"))


def utf32_forms(secret: str) -> list[str]:
    r"""``secret`` as UTF-32: its bytes read one a character, hex, base64.

    The bytes of UTF-32-LE without its outer NULs (``s\0\0\0k…``, also ``%73%00%00%00…``
    and ``\u0073\u0000…`` read decoded), the hex of both byte orders in either case, their
    base64 at three alignments (base64url too).
    """
    little, big = utf32(secret)
    forms = [little.decode("latin-1").strip("\x00")]
    for data in (little, big):
        forms += [data.hex(), data.hex().upper(), *bytes_base64_forms(data)]
    return [f for f in forms if len(f) >= MIN_SECRET_CHARS]


def _utf32_shared(secret: str) -> list[str]:
    """What the hex and base64 of both byte orders of a value under U+0100 (a key) hold.

    Its UTF-32-LE bytes but the last three NULs, which are the BE bytes but the first three:
    their hex (either case) and base64 cores are in both orders' forms, so the quick check
    looks for these 8 alone in place of those 16 (as :func:`shared_hex` for UTF-16).
    """
    little = utf32(secret)[0]
    if any(little[1::4]) or any(little[2::4]):  # (a character past U+00FF)
        return []
    shared = little[:-3]
    return [shared.hex(), shared.hex().upper(), *bytes_base64_forms(shared)]


_ZEROS = re.compile(r"(?:\s*(?:00|\x00|%\s*0\s*0)){0,3}")
"""Up to three NUL bytes, as a match's form writes them (hex, as they are, percent-encoded)."""
Compile = Callable[[list[str], set[str]], "re.Pattern[str] | None"]


class Utf32Forms:
    """The UTF-32 forms of secrets (:func:`utf32_forms`), found apart from the others.

    Their needles join the redactor's quick check (:attr:`checked`: a key's shared ones,
    8 for 16 forms); their regex (``compile``, the redactor's) is compiled at the first text
    that holds one of their needles and run on such texts only, so a key's other forms are
    compiled and searched as before (bench/redaction_keys.py).
    """

    def __init__(self, secrets: list[str], prefixes: set[str], compile_forms: Compile) -> None:
        self._prefixes = sorted(prefixes, key=len, reverse=True)  # (``sk-proj-``: its core's
        # forms are looked for, the prefix's written just before a match go with it)
        each = [utf32_forms(s) for s in secrets]
        self.forms = sorted({f for forms in each for f in forms}, key=len, reverse=True)
        self.checked = self.forms + [f for s in secrets for f in _utf32_shared(s)]
        self._check = QuickCheck(self.checked)
        self._base64 = {f for s in secrets for data in utf32(s) for f in bytes_base64_forms(data)}
        self._searched = {forms[0] for forms in each if forms}  # (%73%00%00%00…)
        self._compile = compile_forms

    @functools.cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        return self._compile(self.forms, self._searched)

    @functools.cached_property
    def _before(self) -> tuple[re.Pattern[str] | None, int]:
        """The prefixes' UTF-32 forms, longest first, and their reach.

        Also a little-endian one without its last NULs (a big-endian match in a little-endian
        text starts with them) and a big-endian one with the NULs of the character after it
        (a little-endian match in a big-endian text starts past them).
        """
        forms = sorted({f for p in self._prefixes for le, be in [utf32(p)]
                        for data in (le, le[:-3], be, be + bytes(3))
                        for f in (data.decode("latin-1"), data.hex(), data.hex().upper())},
                       key=len, reverse=True)
        nuls = {f for f in forms if "\x00" in f}
        return self._compile(forms, nuls), 4 * max(map(len, forms), default=0)

    def _prefix_start(self, text: str, start: int, floor: int) -> int:
        """Where a prefix's form ending at ``start`` (whitespace between) starts, or ``start``."""
        before, reach = self._before
        if before is None:
            return start
        for found in before.finditer(text, max(floor, start - reach), start):
            if not text[found.end():start].strip():
                return found.start()
        return start

    def with_spans(self, text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``spans`` (in order, apart) and :meth:`spans` of ``text``: in order, met ones joined."""
        found = self.spans(text)
        return apart(spans + found) if found else spans

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds one of the forms (a base64 one's run around it), in order, apart."""
        if not self.forms or self._check.none_in_text(text) or self._pattern is None:
            return []
        spans: list[tuple[int, int]] = []
        pos = 0
        for match in self._pattern.finditer(text):
            start, end = max(match.start(), pos), match.end()
            if decoded("".join(match.group().split())) in self._base64:
                start, end = base64_run(text, start, end, pos)
            else:  # (its last character's NULs: a big-endian match in a little-endian text)
                start = self._prefix_start(text, start, pos)
                end = zeros.end() if (zeros := _ZEROS.match(text, end)) else end
            if start < end:
                spans.append((start, end))
                pos = end
        return spans
