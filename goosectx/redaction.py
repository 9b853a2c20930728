r"""Secrets: redaction of their values in any listed encoding.

Which variables hold one is :mod:`goosectx.secret_names` (:func:`secret_values`); their values
are redacted from tool output, replies and the debug log.

Redaction is a backstop, not a guarantee (README, "Security"): :class:`Redactor` replaces
each value (8+ characters) written literally, base64 at all three alignments, base64url,
hex (either case) or reversed — a value of 16+ characters also upper-cased and with its ``-``
and ``_`` dropped, one of 12–15 with a digit in it upper-cased; and as UTF-16: a NUL between
its characters, the hex and base64 of its UTF-16 bytes (:mod:`goosectx.redaction_forms`
lists them all) —, each of these with any of
its characters percent-encoded (``%2D`` or ``%2d`` for ``-``, as in a URL's query) and each
split by whitespace or newlines (``base64`` wraps at 76 columns, ``fold`` anywhere) or by
terminal escape sequences (``ESC [0m``, a colour reset: a text with an ESC is redacted again
read without them) or by backslash escapes (``\u0073\u006b…`` of JSON, ``\x73``, octal
``\163``: a text with a backslash is redacted again read decoded,
:mod:`goosectx.redaction_unescape`). A program that
encrypts, compresses or otherwise transforms a secret gets it past any redactor.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Container, Iterable

from goosectx.lazy_pattern import compile_long
from goosectx.redaction_base64 import base64_run
from goosectx.redaction_check import QuickCheck, decoded, spans_with_escapes, without_escapes
from goosectx.redaction_forms import (
    KEY_CORE_MIN_CHARS as KEY_CORE_MIN_CHARS,
)
from goosectx.redaction_forms import (
    Utf32Forms,
    base64_cores,
    dropped,
    encodings,
    key_cores,
    nul_forms,
    shared_hex,
    wide_hex,
)
from goosectx.redaction_unescape import Unescaped, may_hold_escape
from goosectx.secret_names import MIN_SECRET_CHARS, secret_values

REDACTED = "[REDACTED]"
_WHITESPACE = re.compile(r"\s+")
_ZEROS = re.compile(r"\s*(?:00|\x00|%\s*0\s*0)")


def _char(ch: str, encodable: bool) -> tuple[str, ...]:
    """Regexes for ``ch``: plain and, if ``encodable``, percent-encoded (UTF-8, any hex case)."""
    if not encodable:
        return (re.escape(ch),)
    digits = "".join(f"%{byte:02x}" for byte in ch.encode("utf-8", "surrogateescape"))
    encoded = r"\s*".join(f"[{d}{d.upper()}]" if d.isalpha() else re.escape(d) for d in digits)
    return re.escape(ch), encoded


def _branches(form: str, secret: bool) -> list[tuple[str, str]]:
    """Regexes for ``form``: whitespace allowed between characters, some percent-encoded.

    Any character of a ``secret`` itself may be percent-encoded; of its other forms, those a
    URL encoder escapes (not letters or digits: ``+``, ``/`` of base64). The other forms'
    letters and digits stay plain: the pattern stays small to compile.

    One ``(first, rest)`` per way of writing the first character (:func:`_pattern` joins them).
    """
    def alternatives(ch: str) -> tuple[str, ...]:
        return _char(ch, secret or not ch.isalnum())

    rest = "".join(r"\s*" + _either(alternatives(ch)) for ch in form[1:])
    return [(first, rest) for first in alternatives(form[0])]


def _either(regexes: tuple[str, ...]) -> str:
    """``regexes`` as one, grouped only when more than one.

    A group a character costs the compiler a parse of its own: without them a key of 164
    characters compiles in 3/4 of the time (bench/redaction_keys.py).
    """
    return regexes[0] if len(regexes) == 1 else "(?:{})".format("|".join(regexes))


def _spaced(form: str, secret: bool) -> str:
    """:func:`_branches` of ``form`` as one regex."""
    return "|".join(first + rest for first, rest in _branches(form, secret))


def _pattern(forms: list[str], secrets: set[str]) -> re.Pattern[str] | None:
    """One regex for ``forms`` (longest first), a branch per way of writing a first character.

    Each branch starts with a literal character, which lets ``re`` skip to the places a match
    can start (fast on 10 MB outputs), and holds every form that starts so, longest first:
    at a place where a character may start a match, ``re`` tries one branch per way of
    writing a first character rather than one per form (bench/redaction_keys.py).
    """
    groups: dict[str, list[str]] = {}
    for form in forms:
        for first, rest in _branches(form, form in secrets):
            groups.setdefault(first, []).append(rest)
    branches = (first + _either(tuple(rests)) for first, rests in groups.items())
    return compile_long("|".join(branches)) if groups else None


def written_most(forms: Iterable[str], encoded: Container[str]) -> int:
    """The most solid characters one of ``forms`` takes as the redactor matches it.

    Each character that may be percent-encoded so (``%XX`` a UTF-8 byte): all of a form in
    ``encoded`` (a secret itself), the others' but letters and digits. The quick check's
    escape windows and :mod:`goosectx.secret_tail`'s window reach this far.
    """
    return max((sum(1 if ch.isalnum() and form not in encoded
                    else 3 * len(ch.encode("utf-8", "surrogatepass")) for ch in form)
                for form in forms), default=0)


class _Prefixes:
    """The listed secrets a shorter listed one ends (a key and its cores), and their prefixes.

    ``sk-proj-Ab3d…`` is found by its core ``Ab3d…`` (each form of the key holds a form of
    the core: its text, hex, URL and retyped forms end in the core's, its reversed one starts
    with it, its base64 holds one of the core's three): the regex looks for the core's forms
    alone and a match is widened over the prefix (``sk-proj-``, its hex, upper-cased, without
    ``-``, reversed after it) written right beside it. Three times fewer forms for such a
    key (bench/redaction_keys.py).
    """

    def __init__(self, secrets: list[str]) -> None:
        listed = set(secrets)
        self.covered: set[str] = set()
        self.prefixes: set[str] = set()
        for secret in secrets:
            core = secret
            while shorter := [c for c in key_cores(core) if c in listed]:
                core = shorter[-1]
            if core != secret and len(dropped(core)) >= MIN_SECRET_CHARS:  # (each form kept)
                self.covered.add(secret)
                self.prefixes.add(secret[:len(secret) - len(core)])

    def patterns(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None, int]:
        """(a prefix's form ending at a match, a reversed prefix from a match on, window)."""
        if not self.prefixes:
            return None, None, 0
        ordered = sorted(self.prefixes, key=len, reverse=True)
        data = [p.encode("utf-8", "surrogateescape") for p in ordered]
        before = [_spaced(p, True) for p in ordered] + [_spaced(d.hex(), False) for d in data]
        before += [_spaced(d.hex().upper(), False) for d in data]
        before += [_spaced(f, False) for p in ordered for f in (p.upper(), dropped(p)) if f]
        before += [_spaced(w, True) for p in ordered for w in nul_forms(p)]  # UTF-16: s\0k\0-
        before += [_spaced(h, False) for h in wide_hex(ordered)]
        after = [_spaced(p[::-1], True) for p in ordered]
        window = 16 + 12 * max(len(d) for d in data)  # "%XX" a UTF-16 byte, whitespace beside
        return (re.compile(r"(?:{})\s*\Z".format("|".join(before))),
                re.compile(r"\s*(?:{})".format("|".join(after))), window)


class Redactor:
    """Replaces secret values, in every form :func:`encodings` lists, with ``[REDACTED]``.

    Attributes:
        secrets: The values redacted, longest first (values under 8 characters skipped).
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        values = {s for s in secrets if len(s) >= MIN_SECRET_CHARS}
        self.secrets = sorted(values | {c for s in values for c in key_cores(s)},
                              key=len, reverse=True)
        prefixes = _Prefixes(self.secrets)
        searched = [s for s in self.secrets if s not in prefixes.covered]
        forms = sorted({f for s in searched for f in encodings(s)}, key=len, reverse=True)
        self._utf32 = Utf32Forms(searched, prefixes.prefixes, _pattern)  # (a regex of its own)
        self._check = QuickCheck(forms + [f for s in searched for f in shared_hex(s)]
                                 + self._utf32.checked)
        self._base64 = {f for s in searched for f in base64_cores(s)}
        self._wide_ends = {decoded(_WHITESPACE.sub("", f))  # (as a match is read: a password's
                           for s in searched for f in wide_hex([s]) + nul_forms(s)}  # space)
        self._wide = not all(s.isascii() for s in searched)  # (escapes of others decoded)
        self._forms, self._prefixes = forms, prefixes
        self._searched = set(searched) | {f for s in searched for f in nul_forms(s)}  # %73%00…
        self._margin = written_most(forms, self._searched)

    @functools.cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        """The regex of every form: compiled at the first text the quick check cannot pass.

        Compiling takes tenths of a second for a long key (its hex forms, each character
        percent-encoded or not): a command that meets no secret (an import) never pays it.
        """
        return _pattern(self._forms, self._searched)

    @functools.cached_property
    def _around(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None, int]:
        """:meth:`_Prefixes.patterns`, compiled when first needed as :attr:`_pattern` is."""
        return self._prefixes.patterns()

    def __call__(self, text: str) -> str:
        """``text`` with every listed encoding of every secret replaced.

        A quick check first (:mod:`goosectx.redaction_check`: each form searched in the text
        with its whitespace removed and its percent-escapes decoded, in C) keeps the common
        case — no secret in the text — linear and fast.
        """
        if not self._forms or not text:
            return text
        if not self._check.none_in_text(text):
            text = replaced(text, self._spans(text))
        if "\x1b" in text:  # a key split by ``ESC [0m``: looked for again without them
            plain = without_escapes(text)  # (the check and the regex read the same text)
            if plain != text and not self._check.none_in_text(plain):
                text = replaced(text, spans_with_escapes(text, self._spans(plain)))
        if may_hold_escape(text):  # a key written as ``\\u0073…``: read again decoded
            reading = Unescaped(text, wide=self._wide)  # (checked around its escapes only)
            if reading.changed and not self._check.none_in(reading.windows(self._margin)):
                text = replaced(text, reading.spans(self._spans(reading.text)))
        return text

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where :meth:`__call__` would redact ``text``: its spans, in order, apart.

        Those found in it as it is; none found, those found read without its terminal
        escapes, or else read with its backslash escapes decoded (mapped back). For a text
        joined of two (:mod:`goosectx.redaction_joined`).
        """
        if not self._forms or not text:
            return []
        if not self._check.none_in_text(text) and (found := self._spans(text)):
            return found
        if "\x1b" in text:
            plain = without_escapes(text)
            if plain != text and not self._check.none_in_text(plain) and (
                    found := spans_with_escapes(text, self._spans(plain))):
                return found
        if may_hold_escape(text):
            reading = Unescaped(text, wide=self._wide)
            if reading.changed and not self._check.none_in(reading.windows(self._margin)):
                return reading.spans(self._spans(reading.text))
        return []

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds a form (its prefix, its base64 run around it), in order, apart."""
        assert self._pattern is not None
        before, after, window = self._around
        spans: list[tuple[int, int]] = []
        pos = 0
        for match in self._pattern.finditer(text):
            start, end = max(match.start(), pos), match.end()
            squeezed = decoded(_WHITESPACE.sub("", match.group()))
            if squeezed in self._base64:
                start, end = base64_run(text, start, end, pos)
            elif before is not None and after is not None:  # a key's prefix beside its core
                if found := before.search(text, max(pos, start - window), start):
                    start = found.start()
                if found := after.match(text, end, end + window):
                    end = found.end()
            if (zeros := _ZEROS.match(text, end)) and squeezed in self._wide_ends:
                end = zeros.end()  # (UTF-16-BE found in LE: the last character's NUL too)
            if start < end:
                spans.append((start, end))
                pos = end
        return self._utf32.with_spans(text, spans)

    def changes_none(self, texts: Iterable[str]) -> bool:
        """True when redacting each of ``texts`` would give it back as it is.

        One quick check of them all (:meth:`goosectx.redaction_check.QuickCheck.none_in`:
        the texts joined by NUL, 256k characters at a time; those with an ESC again without
        their terminal escapes, those with a backslash again read decoded). ``False`` says
        only that one of them may hold a secret: redact each.
        """
        if not self._forms:
            return True
        texts = list(texts)
        return self._check.none_in(texts) and self._check.none_in(
            without_escapes(t) for t in texts if "\x1b" in t) and self._check.none_in(
            w for t in texts if may_hold_escape(t) for w in self.escape_windows(self.reading(t))
        )  # (as :meth:`__call__` reads)

    def reading(self, text: str) -> Unescaped:
        """``text`` read with its escapes decoded, as :meth:`__call__` reads it."""
        return Unescaped(text, wide=self._wide)

    def escape_windows(self, reading: Unescaped) -> list[str]:
        """The pieces of ``reading`` the quick check reads (a form's reach of each escape)."""
        return reading.windows(self._margin)

    def none_in_batch(self, text: str, windows: Iterable[str]) -> bool:
        """:meth:`changes_none` of ``text`` whose :meth:`escape_windows` are ``windows``.

        For a caller that reads the escapes of ``text`` for itself too
        (:meth:`goosectx.redaction_fragments.WithPieces.changes_none`): one reading serves both.
        """
        return not self._forms or (
            self._check.none_in_text(text) and ("\x1b" not in text or self._check.none_in_text(
                without_escapes(text))) and self._check.none_in(windows))


def replaced(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (in order, apart) ``[REDACTED]``, its lines kept."""
    pieces: list[str] = []
    pos = 0
    for start, end in spans:
        pieces += [text[pos:start], REDACTED + "\n" * text[start:end].count("\n")]
        pos = end
    return "".join(pieces) + text[pos:]


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
    :func:`remember_secret` (a provider's error bodies and the debug log pass through it).
    """
    return known_redactor()(text)


def known_redactor() -> Redactor:
    """The :class:`Redactor` :func:`redact_known` uses now (made again when the values change)."""
    global _cached
    values = tuple(sorted(set(secret_values()) | _known))
    if _cached is None or _cached[0] != values:
        _cached = (values, Redactor(values))
    return _cached[1]


@functools.cache
def _url() -> re.Pattern[str]:
    """A URL, for :func:`redact_urls` (compiled at its first text with ``://`` in it)."""
    return re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>`]+", re.IGNORECASE)


@functools.cache
def key_like_param() -> re.Pattern[str]:
    """Query parameter names whose value is taken for a secret (compiled at the first use).

    The name is, or ends in a part (after ``_``, ``-`` or ``.``) that is, such a word
    (``key``, ``api_key``, ``x-goog-api-key``, ``access_token``, ``sig``). Only whole words:
    ``max_tokens``, ``keyword``, ``monkey``, ``tokenizer``, ``passive`` and ``auth=basic`` are
    left as they are.
    """
    return re.compile(
        r"(?:.*[_.-])?(?:api_?key|key|token|secret|password|passwd|pass|pwd|sig|signature"
        r"|credentials?|authorization|auth_?token|access_?token|code)", re.IGNORECASE)


def _redact_params(text: str) -> str:
    """``a=1&key=…``: the values of key-like names redacted (a query or a fragment)."""
    params = []
    for param in text.split("&"):
        name, eq, value = param.partition("=")
        params.append(f"{name}={REDACTED}" if eq and value and key_like_param().fullmatch(name)
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
    return _url().sub(lambda m: _redact_url(m.group()), text)
