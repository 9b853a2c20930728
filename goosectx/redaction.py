"""Secrets: which variables hold one, and redaction of their values in any listed encoding.

A variable is secret when its name matches :data:`SECRET_NAME` (``*_API_KEY``, ``*_TOKEN``,
``*SECRET*``, ``*PASSWORD*``, ``*_ACCESS_KEY_ID``, ``*_PAT``, …) or its value is a URL with
a password (``postgres://user:pw@host/db``). Secret variables never reach a child process
(``tools/builtin.py``) and their values are redacted from tool output and the debug log.

Redaction is a backstop, not a guarantee (README, "Security"): :class:`Redactor` replaces
each value (8+ characters) written literally, base64 at all three alignments, base64url,
hex (either case) or reversed, each of these with any of its characters percent-encoded
(``%2D`` or ``%2d`` for ``-``, as in a URL's query) and each split by whitespace or
newlines (``base64`` wraps at 76 columns, ``fold`` anywhere). A program that encrypts,
compresses or otherwise transforms a secret gets it past any redactor.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping

SECRET_NAME = re.compile(
    r"(_API_KEY|APIKEY|_ACCESS_KEY|_PRIVATE_KEY|_KEY$|_TOKEN|^TOKEN$|SECRET|PASSWORD|PASSWD"
    r"|PASSPHRASE|CREDENTIAL|_PAT$|_PAT_|^PAT$)",
    re.IGNORECASE)
"""Names of variables whose value is a secret (case-insensitive search)."""
URL_WITH_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s/@]+)@", re.IGNORECASE)
"""A URL with a password in it; group 1 is the password."""
MIN_SECRET_CHARS = 8
"""Shorter values are not redacted (they would shred ordinary output)."""
REDACTED = "[REDACTED]"
_WHITESPACE = re.compile(r"\s+")
_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters ``str.split`` (and ``\\s`` of ``re``) take for whitespace."""
_TO_SPACE = bytes.maketrans(_ASCII_SPACE, b" " * len(_ASCII_SPACE))
_BATCH_CHARS = 1 << 18
""":meth:`Redactor.changes_none` checks texts 256k characters at a time: each copy made of
them stays in the CPU's cache, and the memory freed is taken again (the 20 MB of a 10k-message
import: 0.17 s of CPU and 19k page faults joined whole, 0.105 s and 0.4k so; 16k to 1M alike)."""
_WIDE_SPACE = ("\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
               "\u200a\u2028\u2029\u202f\u205f\u3000")
"""The others (a test checks the two against ``str.isspace``)."""
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")


def is_secret(name: str, value: str) -> bool:
    """True when the variable ``name=value`` holds a secret (by its name or a URL password)."""
    return bool(SECRET_NAME.search(name) or URL_WITH_PASSWORD.search(value))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Secret values in ``environ`` (8+ characters), longest first.

    For a URL with a password both the whole URL and the password are listed.
    """
    env = os.environ if environ is None else environ
    values: set[str] = set()
    for name, value in env.items():
        if SECRET_NAME.search(name):
            values.add(value)
        for match in URL_WITH_PASSWORD.finditer(value):
            values.add(value)
            values.add(urllib.parse.unquote(match.group(1)))
            values.add(match.group(1))
    return sorted((v for v in values if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True)


def _base64_cores(data: bytes, alphabet: bytes | None) -> list[str]:
    """For each alignment 0, 1, 2: the part of base64(prefix + data) that only ``data`` decides.

    Whatever bytes surround the secret in a longer stream, its base64 form contains one of
    these three strings (the groups that mix in neighbouring bytes are left out).
    """
    cores = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data, altchars=alphabet).decode("ascii")
        start = 4 if shift else 0
        whole_groups = (shift + len(data)) // 3
        cores.append(encoded[start : whole_groups * 4])
    return cores


def _base64_forms(secret: str) -> list[str]:
    """The base64 and base64url cores of ``secret`` (see :func:`_base64_cores`)."""
    data = secret.encode("utf-8", "surrogateescape")
    return _base64_cores(data, None) + _base64_cores(data, b"-_")


def _base64_run(text: str, start: int, end: int, floor: int) -> tuple[int, int]:
    """``start:end`` widened to the whole run of base64 characters around it (padding after).

    A core leaves out the groups the secret shares with its neighbours; those groups still
    carry bits of the secret (``printf "$KEY" | base64`` ends in ``MjM=``), so the run goes.
    """
    while start > floor and text[start - 1] in _BASE64_CHARS:
        start -= 1
    while end < len(text) and text[end] in _BASE64_CHARS:
        end += 1
    while end < len(text) and text[end] == "=":
        end += 1
    return start, end


def encodings(secret: str) -> list[str]:
    """The listed encodings of ``secret`` (itself included), each at least 8 characters."""
    data = secret.encode("utf-8", "surrogateescape")
    forms = [secret, secret[::-1], data.hex(), data.hex().upper(),  # (bytes: a value not
             urllib.parse.quote(data, safe=""), urllib.parse.quote_plus(data)]  # UTF-8 too)
    forms += _base64_forms(secret)
    unique = dict.fromkeys(f for f in forms if len(f) >= MIN_SECRET_CHARS)
    return sorted(unique, key=len, reverse=True)


def _char(ch: str, encodable: bool) -> tuple[str, ...]:
    """Regexes for ``ch``: plain and, if ``encodable``, percent-encoded (UTF-8, any hex case)."""
    if not encodable:
        return (re.escape(ch),)
    digits = "".join(f"%{byte:02x}" for byte in ch.encode("utf-8", "surrogateescape"))
    encoded = r"\s*".join(f"[{d}{d.upper()}]" if d.isalpha() else re.escape(d) for d in digits)
    return re.escape(ch), encoded


def _spaced(form: str, secret: bool) -> str:
    """A regex for ``form``: whitespace allowed between characters, some percent-encoded.

    Any character of a ``secret`` itself may be percent-encoded; of its other forms, those a
    URL encoder escapes (not letters or digits: ``+``, ``/`` of base64).

    One branch per way of writing the first character: each branch starts with a literal
    character, which lets ``re`` skip to the places a match can start (fast on 10 MB outputs).
    The other forms' letters and digits stay plain: the pattern stays small to compile.
    """
    def alternatives(ch: str) -> tuple[str, ...]:
        return _char(ch, secret or not ch.isalnum())

    rest = "".join(r"\s*(?:{})".format("|".join(alternatives(ch))) for ch in form[1:])
    return "|".join(first + rest for first in alternatives(form[0]))


def _decoded(squeezed: str) -> str:
    """``squeezed`` (no whitespace in it) with its percent-escapes decoded, hex in any case.

    Decoded as quoted-printable (``=XX``, by :func:`binascii.a2b_qp` in C: several times
    faster than :func:`urllib.parse.unquote` on a 10 MB output full of escapes), the text's
    own ``=`` written ``=3D`` first.
    """
    if "%" not in squeezed:
        return squeezed
    return _unquoted(squeezed.encode("utf-8", "surrogatepass")).decode("utf-8", "surrogateescape")


def _unquoted(squeezed: bytes) -> bytes:
    """:func:`_decoded` in bytes: each ``%XX`` decoded, any other ``%`` written ``=``.

    A ``%`` followed by another ``%`` (or an ``=``) starts no escape: it is written ``=3D``,
    as ``a2b_qp`` would read the pair ``==`` as one ``=`` and so skip an escape after it
    (``100%%41…`` kept the secret ``A…``). At most two passes: the first leaves single ``==``
    pairs between its ``=3D=`` pieces.
    """
    quoted = squeezed.replace(b"=", b"=3D").replace(b"%", b"=")
    while b"==" in quoted:
        quoted = quoted.replace(b"==", b"=3D=")
    return binascii.a2b_qp(quoted)


class Redactor:
    """Replaces secret values, in every form :func:`encodings` lists, with ``[REDACTED]``.

    Attributes:
        secrets: The values redacted, longest first (values under 8 characters skipped).
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS},
                              key=len, reverse=True)
        forms = sorted({f for s in self.secrets for f in encodings(s)}, key=len, reverse=True)
        self._forms = [_WHITESPACE.sub("", f) for f in forms]  # as the quick check sees text
        self._form_bytes = [f.encode("utf-8", "surrogatepass") for f in self._forms]
        self._decoded_bytes = [b for f in self._forms if (b := _escaped_bytes(f)) is not None]
        self._ascii = all(f.isascii() for f in self._forms)
        self._base64 = {f for s in self.secrets for f in _base64_forms(s)}
        secrets_ = set(self.secrets)
        self._pattern = (re.compile("|".join(_spaced(f, f in secrets_) for f in forms))
                         if forms else None)

    def __call__(self, text: str) -> str:
        """``text`` with every listed encoding of every secret replaced.

        A quick check first (each form searched in the text with its whitespace removed and
        its percent-escapes decoded, in C) keeps the common case — no secret in the text —
        linear and fast.
        """
        if self._pattern is None or not text:
            return text
        squeezed = "".join(text.split())  # (\s+ removed: str.split's whitespace is re's, 4x faster)
        if not any(form in squeezed for form in self._forms):
            decoded = _decoded(squeezed)
            if decoded is squeezed or not any(form in decoded for form in self._forms):
                if self._none_apart(text):
                    return text
        pieces: list[str] = []
        pos = 0
        for match in self._pattern.finditer(text):
            start, end = max(match.start(), pos), match.end()
            if _decoded(_WHITESPACE.sub("", match.group())) in self._base64:
                start, end = _base64_run(text, start, end, pos)
            if start >= end:
                continue
            pieces += [text[pos:start], REDACTED + "\n" * text[start:end].count("\n")]
            pos = end
        return "".join(pieces) + text[pos:]

    def changes_none(self, texts: Iterable[str]) -> bool:
        """True when redacting each of ``texts`` would give it back as it is.

        One quick check of them all (:meth:`__call__`'s, on the texts joined by NUL, in bytes:
        a 10k-message import's 20 MB in ~0.1 s of CPU with its walk, where a call for each
        string took ~0.22 s). A string whose quick check finds a form finds it in the joined
        text too: with its whitespace squeezed out each string is a piece of the whole, and a
        percent-escape never runs over the NUL that ends it. ``False`` says only that one of
        them may hold a secret: redact each.
        """
        if self._pattern is None:
            return True
        batch: list[str] = []
        size = 0
        for text in texts:
            batch.append(text)
            size += len(text)
            if size >= _BATCH_CHARS:
                if not self._none_in(batch):
                    return False
                batch, size = [], 0
        return self._none_in(batch)

    def _none_in(self, texts: list[str]) -> bool:
        """:meth:`changes_none` of a batch of ``texts``."""
        joined = "\0".join(texts)
        squeezed = self._squeezed(joined)
        if any(form in squeezed for form in self._form_bytes):
            return False
        if b"%" not in squeezed:
            return True
        decoded = _unquoted(squeezed)
        if any(form in decoded for form in self._decoded_bytes):
            return False
        return self._none_apart(joined)

    def _none_apart(self, text: str) -> bool:
        """The quick check's other reading of ``text``: a ``%`` before whitespace is no escape.

        Squeezed, ``upload 100% ab%2F…`` reads ``%ab``, an escape that hides the secret
        ``ab/…`` after it; an escape folded after its ``%2`` needs the squeezed reading.
        Here each ``%`` then whitespace is written NUL (nothing decodes across it), the other
        whitespace removed, and the escapes decoded.
        """
        if not text.isascii():
            for space in _WIDE_SPACE:
                if space in text:
                    text = text.replace(space, " ")
        spaced = _encoded(text, latin1=self._ascii).translate(_TO_SPACE)
        if b"% " not in spaced:
            return True
        apart = _unquoted(spaced.replace(b"% ", b"\0").translate(None, b" "))
        return not any(form in apart for form in self._decoded_bytes)

    def _squeezed(self, text: str) -> bytes:
        """``text`` encoded (:func:`_encoded`) with all its whitespace removed."""
        if not text.isascii():
            for space in _WIDE_SPACE:  # (a search for one character is a memchr: fast)
                if space in text:
                    text = text.replace(space, "")
        return _encoded(text, latin1=self._ascii).translate(None, _ASCII_SPACE)


def _encoded(text: str, *, latin1: bool) -> bytes:
    """``text`` in UTF-8 (as :func:`_decoded` encodes it), or in Latin-1 if ``latin1`` and it fits.

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
    """``form`` as :func:`_decoded` text is encoded (``None``: no decoded text can hold it)."""
    try:
        return form.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate outside U+DC80..U+DCFF
        return None


def redact_cut_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each start of a secret (its first 8+ characters) replaced by ``[REDACTED]``.

    For a line that quotes a value cut short (an import error shows a token count's first 20
    characters): a whole secret is redacted by :class:`Redactor`, but the piece a cut leaves of
    one is not. The longest start of each secret found goes first.
    """
    for secret in secrets:
        for end in range(len(secret), MIN_SECRET_CHARS - 1, -1):
            if secret[:end] in text:
                text = text.replace(secret[:end], REDACTED)
    return text


def redact(text: str, secrets: list[str]) -> str:
    """``text`` with each value of ``secrets`` (in every listed encoding) redacted."""
    return Redactor(secrets)(text)


_known: set[str] = set()
_cached: tuple[tuple[str, ...], Redactor] | None = None


def remember_secret(value: str) -> None:
    """Count ``value`` among the secrets the process knows.

    For an API key read from a variable whose name does not look secret
    (``api_key_env = "LLM_AUTH"``).
    """
    if len(value) >= MIN_SECRET_CHARS:
        _known.add(value)


def redact_known(text: str) -> str:
    """``text`` with every secret the process knows redacted.

    Those are the values of secret-looking environment variables now, and those given to
    :func:`remember_secret`.

    This is what text from a provider (its error bodies) and the debug log pass through.
    """
    global _cached
    values = tuple(sorted(set(secret_values()) | _known))
    if _cached is None or _cached[0] != values:
        _cached = (values, Redactor(values))
    return _cached[1](text)


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>`]+", re.IGNORECASE)
_KEY_LIKE_PARAM = re.compile(
    r"(?:.*[_.-])?(?:api_?key|key|token|secret|password|passwd|pass|pwd|sig|signature"
    r"|credentials?|authorization|auth_?token|access_?token|code)", re.IGNORECASE)
"""Query parameter names whose value is taken for a secret: the name is, or ends in a part
(after ``_``, ``-`` or ``.``) that is, such a word (``key``, ``api_key``, ``x-goog-api-key``,
``access_token``, ``sig``). Only whole words: ``max_tokens``, ``keyword``, ``monkey``,
``tokenizer``, ``passive`` and ``auth=basic`` are left as they are."""


def _redact_params(text: str) -> str:
    """``a=1&key=…``: the values of key-like names redacted (a query or a fragment)."""
    params = []
    for param in text.split("&"):
        name, eq, value = param.partition("=")
        params.append(f"{name}={REDACTED}" if eq and value and _KEY_LIKE_PARAM.fullmatch(name)
                      else param)
    return "&".join(params)


def _redact_url(url: str) -> str:
    end = len(url.rstrip(".,;:)]}"))
    url, tail = url[:end], url[end:]
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    head, rest = url[:cut], url[cut:]
    scheme, _, after = head.partition("://")
    netloc, slash, path = after.partition("/")
    userinfo, at, host = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc = f"{userinfo.split(':', 1)[0]}:{REDACTED}@{host}"
    query, hash_, fragment = rest.partition("#")
    if query.startswith("?"):
        query = "?" + _redact_params(query[1:])
    fragment = _redact_params(fragment)  # ``#access_token=…`` (an OAuth redirect)
    return f"{scheme}://{netloc}{slash}{path}{query}{hash_}{fragment}{tail}"


def redact_urls(text: str) -> str:
    """``text`` with each URL's password and key-like query values (``?key=``) redacted.

    Whether or not they are a known secret: what goosectx prints of a URL (``api_base`` in an
    error) never shows a credential. The host, path and other parameters stay.
    """
    if "://" not in text:
        return text
    return _URL.sub(lambda m: _redact_url(m.group()), text)
