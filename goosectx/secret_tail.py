r"""Where streamed text must be held back: the tail that could still become a secret.

A streamed answer is shown and saved as it arrives, redacted (docs/architecture.md §2); a
piece passed on is redacted alone, so a secret must never be cut between two pieces. The
:class:`~goosectx.redaction.Redactor` matches each secret's forms (:func:`encodings`) with
any whitespace inside and any character percent-encoded; so the text is held back from the
first character of its longest tail that, squeezed of whitespace (and decoded: ``%XX``,
``\u0073``, ``\x73``; or a list of characters or bytes read joined, ``['s', 'k', …`` and
``0x73, 0x6b, …``, as :mod:`goosectx.redaction_separated` reads a finished one), is a start
of one of those forms. Ordinary text has no such tail, or one of a character or two: it
appears word by word, as before. Nor is text passed on up to a whitespace inside a whole
form (:meth:`SecretTail.straddled`: a key broken over lines, its base64 wrapped by
``base64 -w20``, padding and all, a key's list of characters): redacted alone, its pieces
would show. A chunk costs O(its length + the longest form): only the last
:attr:`SecretTail.window` characters are looked at (a secret spread over more whitespace
than that can show its start; the stored answer is still redacted whole).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable

from goosectx.redaction import REDACTED, written_most
from goosectx.redaction_base64 import padded_base64
from goosectx.redaction_check import TERMINAL_ESCAPE
from goosectx.redaction_forms import encodings, utf16
from goosectx.redaction_unescape import (
    BACKSLASH_ESCAPE,
    PARTIAL_BACKSLASH,
    backslash_escape,
    escape_most_chars,
    escaped_char,
)
from goosectx.secret_names import MIN_SECRET_CHARS

WORD_LIMIT = 256
"""A word (no whitespace) longer than this is passed on as it streams, all but its tail
that could still become a secret; a shorter one waits for the whitespace after it."""
CUT_CHARS = 12
"""A secret's start this long at the end of a stream cut short is redacted (of a shorter
form, all but its last two characters): shorter ones say too little to be taken for it."""
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})|" + BACKSLASH_ESCAPE)
"""A ``%XX`` or a backslash escape (``\\u0073``, ``\\x73``, ``\\163``): one character read."""
_PARTIAL_ESCAPE = re.compile(r"(?:%[0-9A-Fa-f]?|" + PARTIAL_BACKSLASH + r")\Z")
_PARTIAL_PERCENT = re.compile(r"%[0-9A-Fa-f]?\Z")
"""... once whitespace followed: ``%`` and its digits may be spread (the redactor allows it),
a backslash escape or ``&#x73;`` may not (``Tom & `` is not held for an escape)."""
_PARTIAL_SEQUENCE = re.compile(r"\x1b(?:\[[ -?]*|\][^\x00\x07\x1b]*\x1b?)?\Z")
_LISTED = re.compile(r"'([^\s'\\,])',?|\"([^\s\"\\,])\",?|0[xX]([0-9a-fA-F]{2}),?")
"""An item of a key written as a list (squeezed): ``'s',``, ``"s",``, ``0x73,``
(:mod:`goosectx.redaction_separated`, whose lists are these with whitespace between)."""
_LISTED_END = re.compile(r"(?:'[^\s'\\,]',?|\"[^\s\"\\,]\",?|0[xX][0-9a-fA-F]{2},?)"
                         r"(?:['\"][^\s'\"\\,]?|0[xX]?[0-9a-fA-F]?)?\Z")
"""A squeezed text ending in such an item, and maybe the start of the next (``'s','``)."""
_LISTED_RUN = re.compile(r"(?:(?:'[^\s'\\,]'|\"[^\s\"\\,]\"|0[xX][0-9a-fA-F]{2})\s*,?\s*){2,}")
"""Such a list as written, whitespace and all."""
_LISTED_OPEN = re.compile(r"['\"][^\s'\"\\,]?|0[xX]?[0-9a-fA-F]?")
"""The start of a next item (``'``, ``'s``, ``0x7``)."""


class SecretTail:
    """The starts of the forms of ``secrets`` (values under 8 characters skipped, as redacted)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        values = {s for s in secrets if len(s) >= MIN_SECRET_CHARS}
        plain = {"".join(s.split()) for s in values}
        forms = {"".join(f.split()) for s in values
                 for f in encodings(s) + padded_base64(s)} - {""}
        self._by_first: dict[str, list[str]] = {}
        for form in sorted(forms, key=len, reverse=True):
            self._by_first.setdefault(form[0], []).append(form)
        # where a form may start: its first two characters, or its first at the very end
        # (zero-width: every place is found, overlapping ones too)
        pairs = "|".join(sorted({re.escape(f[:2]) for f in forms}))
        firsts = "".join(sorted(re.escape(c) for c in self._by_first))
        self._starts = (re.compile(f"(?=(?:{pairs})|[{firsts}]\\Z)") if forms else None)
        self._longest_form = max((len(f) for f in forms), default=0)
        self._forms = forms
        # the most characters a form takes written out: a secret's every character (a
        # form's every one but letters and digits) percent-encoded, "%XX" per UTF-8 byte
        self._squeezed_most = written_most(forms, plain)
        # or a secret's every character an escape (``\\u0073``, ``&#x73;``: up to 12, 16 a pair)
        self._squeezed_most = max(self._squeezed_most,
                                  max(map(escape_most_chars, plain), default=0))
        # or each byte of its UTF-16 percent-encoded (``%73%00%6B%00…``: 6 a character)
        self._squeezed_most = max(self._squeezed_most,
                                  max((3 * len(utf16(s)[0]) for s in plain), default=0))
        self.window = 2 * self._squeezed_most
        """Characters at the end of a text that :meth:`start` looks at (whitespace in a
        form as much again as its characters)."""

    @classmethod
    def of(cls, redact: Callable[[str], str] | None) -> SecretTail | None:
        """The tail of ``redact``'s secrets (its ``secrets`` attribute), ``None`` if unknown."""
        secrets = getattr(redact, "secrets", None)
        if secrets is None:
            return None
        return _cached(tuple(secrets))

    def start(self, text: str) -> int:
        """Index in ``text`` where its tail that could still become a secret begins.

        ``len(text)`` when it has none. A whole form at the end counts (a longer secret may
        share its start, and what follows decides where the match ends).
        """
        if self._starts is None or not text:
            return len(text)
        cut = max(0, len(text) - self.window)
        where: list[int] | None = None
        if "\x1b" in text[cut:]:  # read without its terminal escapes, as the Redactor does
            chars, where = _squeezed(text, cut)
            squeezed = chars[-self._squeezed_most:]
        else:
            squeezed = "".join(text[cut:].split())[-self._squeezed_most:]
        tail = self._longest(squeezed)
        if "%" in squeezed or "\\" in squeezed or "&" in squeezed or "\x00" in squeezed:
            tail = max(tail, self._longest_decoded(squeezed, closed=text[-1].isspace()))
        if _LISTED_END.search(squeezed, max(0, len(squeezed) - 12)):  # 's', 'k', … 0x73, …
            tail = max(tail, self._longest_listed(squeezed))
        if not tail:
            return len(text)
        if where is not None:
            return where[len(where) - tail]
        return _index_of_nth_last_visible(text, tail, cut)

    def straddled(self, text: str, end: int) -> int:
        """Where a whole form in ``text`` that ``end`` would cut begins; ``end`` if none does.

        A form spread over lines (``base64 -w20``, ``fold``) is whole only squeezed, and
        once complete no tail starts it (:meth:`start`): passed on up to a whitespace inside
        it, its pieces would each be redacted alone, that is not at all. Looked for in the
        last :attr:`window` characters, squeezed and (where ``%`` or a backslash is) decoded.
        """
        if self._starts is None or end >= len(text):
            return end
        cut = max(0, len(text) - self.window)
        if end <= cut:
            return end
        if (listed := self._listed_straddled(text, end, cut)) is not None:
            return listed
        before = "".join(text[cut:end].split())
        chars, at = before + "".join(text[end:].split()), len(before)
        where: list[int] | None = None
        if "%" in chars or "\x1b" in chars or "\\" in chars or "&" in chars:
            chars, where = _squeezed(text, cut)
            if "%" in chars or "\\" in chars or "&" in chars:
                chars, where = _decoded(chars, where)
            at = bisect.bisect_left(where, end)
        for match in self._starts.finditer(chars, max(0, at - self._longest_form + 1), at):
            i = match.start()  # a form starting before ``end`` and ending after it
            if any(len(f) > at - i and chars.startswith(f, i) for f in self._by_first[chars[i]]):
                return where[i] if where else _index_of_nth_last_visible(text[:end], at - i, cut)
        return end

    def cut_short(self, text: str) -> str:
        """``text``, ended here, with a secret's start at its end redacted (a key cut short).

        For a stream that stops in the middle of a key (Ctrl-C, an error, reasoning, the
        output limit): its start is as secret as the key. Only a start that says enough —
        :data:`CUT_CHARS` characters, or all but two of a shorter form: a reply that ends in
        ``sk-proj-`` or ``postgres`` (``DATABASE_URL``'s start) is left as it is.
        """
        start = self.start(text)
        squeezed = "".join(text[start:].split())
        if len(squeezed) < MIN_SECRET_CHARS:
            return text
        decoded = _ESCAPE.sub(_char, squeezed[:_cut_escape(squeezed)])
        forms = [f for f in self._by_first.get(decoded[:1], ()) if f.startswith(decoded)]
        needed = max(MIN_SECRET_CHARS, min(CUT_CHARS, min(map(len, forms), default=0) - 2))
        return text[:start] + REDACTED if len(decoded) >= needed else text

    def _longest(self, squeezed: str) -> int:
        """The length of ``squeezed``'s longest suffix that is a start of a form."""
        if self._starts is None:
            return 0
        n = len(squeezed)
        for match in self._starts.finditer(squeezed, max(0, n - self._longest_form)):
            rest = squeezed[match.start():]  # (the longest suffix first)
            if any(form.startswith(rest) for form in self._by_first[rest[0]]):
                return n - match.start()
        return 0

    def _longest_decoded(self, squeezed: str, *, closed: bool = False) -> int:
        r""":meth:`_longest` of ``squeezed`` with its ``%XX`` and backslash escapes decoded.

        NULs (raw or escaped, ``s\u0000k\u0000``: UTF-16 text as JSON) are left out, as the
        redactor reads a finished text (:mod:`goosectx.redaction_spread`).

        An escape cut short at its end is counted in: it may be the next character of a form
        (once whitespace followed, ``closed``, only a ``%``: :data:`_PARTIAL_PERCENT`).
        """
        partial = (_PARTIAL_PERCENT if closed else _PARTIAL_ESCAPE).search(squeezed)
        whole = squeezed[:partial.start()] if partial else squeezed
        decoded: list[str] = []
        starts: list[int] = []  # index in ``whole`` of each decoded character
        pos = 0
        for match in _ESCAPE.finditer(whole):
            for k in range(pos, match.start()):
                if whole[k] != "\x00":  # UTF-16 text read as bytes: s\0k\0 is sk
                    decoded.append(whole[k])
                    starts.append(k)
            if (char := _char(match)) != "\x00":  # "s\u0000k\u0000": JSON of UTF-16 bytes
                decoded.append(char)
                starts.append(match.start())
            pos = match.end()
        for k in range(pos, len(whole)):
            if whole[k] != "\x00":
                decoded.append(whole[k])
                starts.append(k)
        tail = self._longest("".join(decoded))
        if tail:
            return len(squeezed) - starts[len(decoded) - tail]
        return len(squeezed) - len(whole) if partial else 0


    def _listed_straddled(self, text: str, end: int, cut: int) -> int | None:
        """The start of a list holding a whole form (its items read) that ``end`` would cut.

        ``['s', 'k', …, 'q']`` passed on up to a space inside it would be redacted in two
        pieces, neither a whole list of the key. Looked for only when an item ends right
        before ``end``.
        """
        if not _LISTED_END.search("".join(text[max(cut, end - 12):end].split())):
            return None
        for run in _LISTED_RUN.finditer(text, cut):
            if run.start() < end < run.end():
                listed = "".join(map(_listed_char, _LISTED.finditer("".join(run.group().split()))))
                return run.start() if any(f in listed for f in self._forms) else None
        return None

    def _longest_listed(self, squeezed: str) -> int:
        """:meth:`_longest` of the list of characters or bytes ``squeezed`` ends with.

        The run of :data:`_LISTED` items up to the end (or up to an item begun there) read
        as the characters it lists, ``'s','k','-'`` as ``sk-``; an item begun is held too.
        In ``squeezed`` characters.
        """
        reach = 5 * self._longest_form + 4  # (an item squeezed: 5 characters at most, 0x73,)
        items = list(_LISTED.finditer(squeezed, max(0, len(squeezed) - reach)))
        if not items:
            return 0
        begun = squeezed[items[-1].end():]
        if begun and not _LISTED_OPEN.fullmatch(begun):
            return 0
        k = len(items) - 1
        while k and items[k - 1].end() == items[k].start():  # back to the run's first item
            k -= 1
        chars = "".join(map(_listed_char, items[k:]))
        starts = [item.start() for item in items[k:]]
        tail = self._longest(chars)
        return len(squeezed) - starts[len(chars) - tail] if tail else len(begun)


def _listed_char(match: re.Match[str]) -> str:
    """The character a :data:`_LISTED` item lists (``'s',`` and ``0x73,``: ``s``)."""
    hexed = match.group(3)
    return chr(int(hexed, 16)) if hexed else match.group(1) or match.group(2)


def _squeezed(text: str, cut: int) -> tuple[str, list[int]]:
    """``text[cut:]`` without whitespace, and the index in ``text`` of each character kept.

    Nor terminal escape sequences (``ESC [0m``), one still arriving at the end included.
    """
    escaped: set[int] = set()
    if "\x1b" in text[cut:]:
        for match in TERMINAL_ESCAPE.finditer(text, cut):
            escaped.update(range(match.start(), match.end()))
        if partial := _PARTIAL_SEQUENCE.search(text, cut):
            escaped.update(range(partial.start(), len(text)))
    where = [i for i in range(cut, len(text)) if not text[i].isspace() and i not in escaped]
    return "".join(text[i] for i in where), where


def _decoded(chars: str, where: list[int]) -> tuple[str, list[int]]:
    """``chars`` with its ``%XX`` and backslash escapes decoded; ``where`` of each's first."""
    out: list[str] = []
    at: list[int] = []
    pos = 0
    for match in _ESCAPE.finditer(chars):
        out += chars[pos:match.start()]
        at += where[pos:match.start()]
        out.append(_char(match))
        at.append(where[match.start()])
        pos = match.end()
    out += chars[pos:]
    at += where[pos:]
    return "".join(out), at


def _char(match: re.Match[str]) -> str:
    """The character an :data:`_ESCAPE` match stands for."""
    if match.group(1) is not None:
        return chr(int(match.group(1), 16))
    escape = backslash_escape().match(match.group())
    assert escape is not None  # (its pattern is the rest of :data:`_ESCAPE`'s)
    return escaped_char(escape)


def _cut_escape(squeezed: str) -> int:
    """``len(squeezed)``, less an escape cut short at its end (``%`` or ``%2``)."""
    partial = _PARTIAL_ESCAPE.search(squeezed)
    return partial.start() if partial else len(squeezed)


def _index_of_nth_last_visible(text: str, count: int, floor: int) -> int:
    """Index of the ``count``-th last non-whitespace character of ``text`` (from ``floor`` on)."""
    i = len(text)
    while count and i > floor:
        i -= 1
        if not text[i].isspace():
            count -= 1
    return i


_last: tuple[tuple[str, ...], SecretTail] | None = None


def _cached(secrets: tuple[str, ...]) -> SecretTail:
    """The :class:`SecretTail` of ``secrets``, made again only when they change."""
    global _last
    if _last is None or _last[0] != secrets:
        _last = (secrets, SecretTail(secrets))
    return _last[1]


def settled_end(text: str, tail: SecretTail | None, *, in_long_word: bool = False) -> int:
    """Where ``text`` may be passed on up to: no later text can join what is before to a key.

    Up to its last whitespace (words appear whole), or all of a last word longer than
    :data:`WORD_LIMIT` (``in_long_word``: ``text`` starts inside one, partly passed on
    already); and never past the tail that could still become a secret, nor into a whole
    one spread over lines (:meth:`SecretTail.straddled`), from the start of its word unless
    that word is a long one.
    """
    end = len(text)
    floor = max(0, end - WORD_LIMIT - 1)
    i = end
    while i > floor and not text[i - 1].isspace():
        i -= 1
    if i > floor:  # after the last whitespace
        end = i
    elif not floor and not in_long_word:  # one word, not long: it waits for a whitespace
        end = 0
    if tail is None:
        return end
    start = tail.start(text)
    if start >= end:  # (a whole key the last whitespace would cut: held from its start)
        start = tail.straddled(text, end)
    while start < end:
        floor = max(0, start - WORD_LIMIT)
        word = start
        while word > floor and not text[word - 1].isspace():
            word -= 1
        whole = word > floor or not (floor or in_long_word)  # the word's start is in reach
        end = word if whole else start
        start = tail.straddled(text, end)
    return end
