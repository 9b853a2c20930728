r"""The forms of a secret the redactor looks for (:func:`encodings`), its cores and retypings.

Part of :mod:`goosectx.redaction` (docs/architecture.md §2, "Secrets"): a value written
literally, reversed, hex (either case), percent-encoded, base64 at all three alignments and
base64url; a long one upper-cased and without its ``-`` and ``_`` (:func:`_retyped`); a key's
part past its vendor prefix on its own (:func:`key_cores`). And its wide forms
(:func:`wide_forms`): the same text as UTF-16, which Windows tools, PowerShell and
``iconv -t UTF-16`` write — its characters with a NUL between them (UTF-16 read as bytes,
``%73%00%6B%00…`` percent-encoded, ``\u0073\u0000…`` as JSON escapes of its bytes), the hex
of its UTF-16-LE and -BE bytes, and their base64.
"""

from __future__ import annotations

import re
import urllib.parse

from goosectx.redaction_base64 import base64_forms, bytes_base64_forms
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
