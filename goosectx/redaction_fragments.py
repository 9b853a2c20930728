"""A piece of a key (a run of its characters) in a model's reply, redacted.

A key split once between two texts of a reply is found joined (:mod:`goosectx.redaction_joined`);
one the model bounces between its reasoning and its answer (its start in one, its middle in
the other, its rest back in the first) leaves pieces that no join shows whole, each no form of
the key (:func:`goosectx.redaction.encodings`). So a reply — live and stored — also has each
run of 13+ of a known key's characters written literally replaced by ``[REDACTED]`` (a key
cut in three 14-character pieces, or wrapped over three lines, shows none of them). A random
key's 13 characters are never ordinary text. Its other forms (base64, hex…) are looked for
whole only.

Such a run holds one of the secret's 7-character blocks at a multiple of 7 (13 = 7 + 7 - 1):
one ``str.find`` per block over the text (in C), each hit widened both ways while it matches
the secret and kept when 13+ long; a listed secret inside another (a key's core) adds none.
A 1 MB reply and a 164-character key: 24 scans, a few ms (bench/redaction_keys.py).

The 13 are counted after a key's vendor prefix (:func:`vendor_prefix_chars`: ``sk-ant-api03-``
is 13 characters every Anthropic key starts with, ``sk-proj-`` 8): a test fixture, a format
check or a doc quoting the prefix and a few characters is not a piece of the user's key.

The same runs are redacted in a tool's output (:class:`WithPieces` around the tool context's
redactor), a provider's error text and the ``--debug`` log (:func:`redact_known_pieces`).
See docs/architecture.md §2 (redaction).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from goosectx.redaction import (
    KEY_CORE_MIN_CHARS,
    REDACTED,
    Redactor,
    known_redactor,
    replaced,
)
from goosectx.redaction_check import apart, joined_batches
from goosectx.redaction_dump import dump_spans, dumps_may_hold
from goosectx.redaction_joined import finder_of
from goosectx.redaction_separated import separated
from goosectx.redaction_unescape import Unescaped, escapes, may_hold_escape

FRAGMENT_MIN_CHARS = 13
"""The shortest run of a secret's characters redacted (and the shortest secret looked for)."""
KEY_LIKE = re.compile(r"[A-Za-z0-9_\-+/=]+")
"""A secret whose runs are looked for: a key's or a token's characters (base64's too)."""
_VENDOR_SEGMENT = re.compile(r"[a-z0-9]{1,12}[-_]")
_BLOCK = 7
"""The piece looked for: blocks start every this many characters, so each run of
:data:`FRAGMENT_MIN_CHARS` (7 + 7 - 1) holds one whole."""
JOINER = "\x07"
"""Between two texts checked together (:meth:`WithPieces.changes_none`): no whitespace, hex
digit, backslash, key's character, list's quote or separator; not a NUL (a UTF-16 text's:
:mod:`goosectx.redaction_spread`); it ends a terminal's OSC sequence (one left open in a text
is not read on into the next)."""


def vendor_prefix_chars(key: str, rest: int = KEY_CORE_MIN_CHARS) -> int:
    """How many of ``key``'s first characters are a vendor's prefix (``sk-ant-api03-``: 13).

    Runs of 1–12 lower-case letters or digits each ended by ``-`` or ``_``, in its first 24
    characters (as :func:`goosectx.redaction.key_cores` reads them, lower-case only: a
    random key's own ``Ab3dE-`` is not one), each followed by ``rest`` more characters.
    """
    pos = 0
    while pos < 24 and (match := _VENDOR_SEGMENT.match(key, pos)) \
            and len(key) - match.end() >= rest:
        pos = match.end()
    return pos


class Fragments:
    """Redacts each run of ``secrets``' characters that holds one of their blocks.

    Only key-like secrets (:data:`KEY_LIKE`) longer than a block (a shorter one is redacted
    whole or not at all), and not one inside another listed (its runs are that one's). A URL
    (``DATABASE_URL``, a webhook) starts as ordinary text does (``postgres://app:``,
    ``https://hooks.slack.com/``); its password or token is listed on its own.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        longer = sorted({s for s in secrets
                         if len(s) > FRAGMENT_MIN_CHARS and KEY_LIKE.fullmatch(s)},
                        key=len, reverse=True)
        values = [s for i, s in enumerate(longer) if not any(s in t for t in longer[:i])]
        self._prefix = {s: vendor_prefix_chars(s) for s in values}
        self._blocks = [(s, q) for s in values  # (and the last 7, for a run at its end)
                        for q in {*range(0, len(s) - _BLOCK + 1, _BLOCK), len(s) - _BLOCK}]
        self._block_texts = list(dict.fromkeys(t for s in values for t in _looked_for(
            s, self._prefix[s], [q for t, q in self._blocks if t == s])))
        """What :meth:`found_in` looks for: a run redacted has 13+ characters past the vendor
        prefix, so one block at a multiple of 7 there (``sk-proj`` is not looked for), or
        (of a short secret) one of its runs of 13 there."""
        self._chars = set("".join(values))

    def found_in(self, text: str, windows: Iterable[str] | None = None) -> bool:
        r"""True when ``text`` holds what :meth:`__call__` looks for (a block or a run of 13).

        Read as it is and, with a backslash in it, with its escapes decoded (``\u0073``):
        only the reading's ``windows`` around its escapes when given (each reaching 12+ solid
        characters, as a Redactor's of the same secrets do: a block or run found in the
        reading and not in ``text`` holds a decoded character, and lies in one).
        """
        blocks = self._block_texts
        if any(block in text for block in blocks):
            return True
        if windows is not None:
            return bool(blocks) and any(block in piece for piece in windows for block in blocks)
        if not blocks or not may_hold_escape(text):
            return False
        tokens = list(escapes(text))  # (one found only in their reading holds one of them)
        return any(char in self._chars for _, _, char in tokens) and any(
            block in Unescaped(text, tokens=tokens).text for block in blocks)

    def __call__(self, text: str) -> str:
        r"""``text`` with each run of a secret's characters holding a block ``[REDACTED]``.

        Its characters written as they are or as backslash escapes (``\x73``, some or all:
        :mod:`goosectx.redaction_unescape`).
        """
        if not self._blocks or len(text) < FRAGMENT_MIN_CHARS:
            return text
        spans = self._spans(text)
        if may_hold_escape(text) and (reading := Unescaped(text)).changed and any(
                secret[q:q + _BLOCK] in piece for piece in reading.windows(_BLOCK)
                for secret, q in self._blocks):  # (a block by an escape: the reading read)
            spans += reading.spans(sorted(self._spans(reading.text)))
        spans.sort()
        if not spans:
            return text
        pieces: list[str] = []
        pos = 0
        for start, end in spans:
            if end <= pos:
                continue
            if start >= pos:
                pieces += [text[pos:start], REDACTED]
            pos = end
        return "".join(pieces) + text[pos:]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where :meth:`__call__` redacts ``text`` read as it is (in order; they may overlap)."""
        return sorted(self._spans(text)) if self._blocks else []

    def _spans(self, text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        for secret, q in self._blocks:
            block = secret[q:q + _BLOCK]
            at = text.find(block)
            while at >= 0:
                start, i = at, q
                while start and i and text[start - 1] == secret[i - 1]:
                    start, i = start - 1, i - 1
                end, j = at + _BLOCK, q + _BLOCK
                while end < len(text) and j < len(secret) and text[end] == secret[j]:
                    end, j = end + 1, j + 1
                if j - max(i, self._prefix[secret]) >= FRAGMENT_MIN_CHARS:
                    found.append((start, end))
                at = text.find(block, end)
        return found


def _looked_for(secret: str, prefix: int, blocks: list[int]) -> list[str]:
    """What a text holding a run of ``secret`` (13+ past ``prefix``) holds: the fewer to find.

    Its blocks (at ``blocks``) past the prefix, or each of its runs of 13 there when that is
    cheaper: a search's cost falls with the length of what it looks for (a 14-character
    password: its 2 runs of 13, a 10k-message import's 19 MB in 8 ms, not 2 blocks in 17).
    """
    kept = [q for q in blocks if q >= prefix]
    runs = len(secret) - FRAGMENT_MIN_CHARS + 1 - prefix
    if runs * _BLOCK < len(kept) * FRAGMENT_MIN_CHARS:
        return [secret[i:i + FRAGMENT_MIN_CHARS] for i in range(prefix, prefix + runs)]
    return [secret[q:q + _BLOCK] for q in kept]


_last: tuple[tuple[str, ...], Fragments] | None = None


def fragments_of(redact: Callable[[str], str] | None) -> Fragments | None:
    """The :class:`Fragments` of ``redact``'s ``secrets``; ``None`` when it lists none."""
    global _last
    secrets = getattr(redact, "secrets", None)
    if secrets is None:
        return None
    key = tuple(secrets)
    if _last is None or _last[0] != key:
        _last = (key, Fragments(key))
    return _last[1]


class WithPieces:
    """``redact`` followed by the redaction of each run of 13+ of its secrets' characters.

    And between the two, of a key written as a list of its characters or bytes
    (:mod:`goosectx.redaction_separated`: tool outputs, replies and names get it so).

    Attributes:
        inner: ``redact`` itself.
    """

    def __init__(self, redact: Callable[[str], str]) -> None:
        self.inner = redact
        self._made: tuple[tuple[str, ...], Fragments] | None = None

    @property
    def secrets(self) -> list[str]:
        """The values ``inner`` redacts (when it lists them)."""
        return list(getattr(self.inner, "secrets", ()))

    def __call__(self, text: str) -> str:
        """``text`` redacted by ``inner``, of a key as a list or dumped, of each run of a key.

        Those runs read joined too: a list's, a dump's (:mod:`goosectx.redaction_dump`:
        ``hexdump -C -s 40 -n 30`` of a file holding a key shows a piece of it).
        """
        text = self.inner(text)
        finder, fragments = finder_of(self.inner), self._fragments()
        if finder is None or not finder.secrets:
            return fragments(text)
        spans = dump_spans(text, _may_hold(finder, fragments),
                           lambda data: finder.spans(data) + fragments.spans(data))
        if (reading := separated(text)) is not None:
            if not finder.changes_none(reading.windows(6 * len(finder.secrets[0]))):
                spans += reading.spans(finder.spans(reading.text))  # (6: "%XX" of hex)
            spans += reading.spans(fragments.spans(reading.text))
        return fragments(replaced(text, apart(spans)) if spans else text)

    def changes_none(self, texts: Iterable[str]) -> bool:
        """True when redacting each of ``texts`` would give it back as it is.

        ``texts`` joined by :data:`JOINER`, :data:`~goosectx.redaction_check.BATCH_CHARS` or so
        at a time (each copy stays in the CPU's cache; one join serves every reading): each
        batch gets ``inner``'s quick check (a form in one text is one in the batch: no form
        holds the joiner, no reading reads across it), then is looked at for a block of a
        secret and for a list. A :class:`~goosectx.redaction.Redactor` reads a batch's escapes
        once for all three (its windows, the blocks', the NUL separators'). ``False``: one
        may hold a secret.
        """
        texts = list(texts)
        inner = self.inner
        fragments = self._fragments()
        may_hold = _may_hold(finder_of(inner), fragments)  # (made once, not per dump)
        if isinstance(inner, Redactor):  # one reading of a batch's escapes serves all three
            for batch in joined_batches(texts, JOINER):
                reading = inner.reading(batch)
                windows = inner.escape_windows(reading) if reading.changed else []
                if not inner.none_in_batch(batch, windows) or fragments.found_in(
                        batch, windows) or separated(batch, reading) is not None \
                        or dumps_may_hold(batch, may_hold):
                    return False
            return True
        check = getattr(inner, "changes_none", None)
        if check is None:
            return all(self(t) == t for t in texts)
        return all(check([batch]) and not fragments.found_in(batch) and separated(batch) is None
                   and not dumps_may_hold(batch, may_hold)
                   for batch in joined_batches(texts, JOINER))

    def _fragments(self) -> Fragments:
        key = tuple(self.secrets)
        if self._made is None or self._made[0] != key:
            self._made = (key, Fragments(key))
        return self._made[1]


def _may_hold(finder: Redactor | None, fragments: Fragments) -> Callable[[str], bool]:
    """Whether a dump's bytes may hold a form of a key (``finder``'s) or a run of one."""
    def may_hold(data: str) -> bool:
        return finder is not None and not finder.changes_none([data]) \
            or fragments.found_in(data)
    return may_hold


def with_pieces(redact: Callable[[str], str]) -> WithPieces:
    """``redact`` as a :class:`WithPieces` (itself when it is one)."""
    return redact if isinstance(redact, WithPieces) else WithPieces(redact)


_known: WithPieces | None = None


def redact_known_pieces(text: str) -> str:
    """``text`` redacted as :func:`goosectx.redaction.redact_known` does, and more.

    Each run of 13+ of a known secret's characters too, and a key written as a list
    (:class:`WithPieces`): for a provider's error text, the debug log, and
    :func:`goosectx.env_secrets.tool_output_redactor` without settings.
    """
    return known_pieces()(text)


def known_pieces() -> WithPieces:
    """:func:`redact_known_pieces`' redactor now (made again when the known secrets change)."""
    global _known
    redactor = known_redactor()
    if _known is None or _known.inner is not redactor:
        _known = WithPieces(redactor)
    return _known
