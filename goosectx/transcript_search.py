"""Where in one session's transcript words are: the matching messages, their place, an excerpt.

What is searched is what the user saw: the text of user-visible messages (requests and answers;
tool output, summaries and other agent-only text are not), as the full-text index holds it
(:mod:`goosectx.store.search`). :func:`scan_messages` is the plain scan used where the session
is not in the index (a SQLite without FTS5, an import not indexed yet): every word must be in
the message, case-insensitively. Excerpts are outside text: sanitise them before printing.
Pure: no printing.

A latin (spaced) word matches whole words. A word with CJK characters matches as a substring:
CJK text has no spaces between words, and the index's unicode61 tokenizer reads a whole run of
it as one token (数据库 was not found in 我们的数据库配置); both the scan and the store
(:mod:`goosectx.store.search_unspaced`) match such words with :func:`word_patterns`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from goosectx.message import Message

EXCERPT_WORDS = 12
"""Words of an excerpt (as the index's snippet)."""

EXCERPT_CHARS = 60
"""Characters of an excerpt in text without spaces (a CJK run is one "word")."""

_UNSPACED = ("[\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
             "\uff66-\uffdc\U00020000-\U0003ffff]")
"""A CJK character: Han, kana, Hangul (their scripts write words without spaces). A pattern
compiled at first use (``re``'s cache): compiled at import it cost every command that opens
the store ~4 ms of start-up, a search only ever needing it."""


@dataclass(frozen=True, slots=True)
class MessageHit:
    """One message of a session holding every word searched for.

    Attributes:
        number: Its place in the session (1 = the first stored message, any kind).
        total: The session's stored messages.
        role: ``user`` or ``assistant``.
        created: When it was written (``None``: a stored time that does not parse).
        excerpt: A few words around the match, on one line (outside text).
    """

    number: int
    total: int
    role: str
    created: datetime | None
    excerpt: str


@dataclass(frozen=True, slots=True)
class SessionMatches:
    """The messages of one session that match: how many, and the newest few in order."""

    count: int
    hits: list[MessageHit]


def search_words(text: str) -> list[str]:
    """The words of ``text`` searched for (a word needs a letter or digit)."""
    return [w for w in text.split() if re.search(r"\w", w)]


def unspaced(word: str) -> bool:
    """True when ``word`` has CJK characters: it matches as a substring, not a whole word."""
    return re.search(_UNSPACED, word) is not None


def unspaced_runs(word: str) -> list[str]:
    """The runs of CJK characters in ``word`` (text a match holds as it is, any case)."""
    return re.findall(f"(?:{_UNSPACED})+", word)


def word_patterns(text: str) -> list[re.Pattern[str]]:
    """One pattern per word of ``text``: its letters and digits as whole words, in order.

    As the full-text index reads a word (``turn 42:`` is ``turn`` then ``42``; ``the`` is not
    in ``other``), case-insensitively. A word with CJK characters (:func:`unspaced`) may
    start and end inside a word (数据库 in 我们的数据库配置).
    """
    patterns = []
    for word in search_words(text):
        body = r"\W+".join(re.escape(t) for t in re.findall(r"\w+", word))
        if not unspaced(word):
            body = r"(?<!\w)" + body + r"(?!\w)"
        patterns.append(re.compile(body, re.IGNORECASE))
    return patterns


def excerpt(text: str, at: int, size: int = EXCERPT_WORDS) -> str:
    """About ``size`` words of ``text`` around the character ``at`` (a match).

    ``…`` marks a cut end; the excerpt is one line (runs of whitespace become one space).
    """
    tokens = text.split()
    index = len(text[:at].split())
    start = max(0, min(index - size // 3, len(tokens) - size))
    shown = " ".join(tokens[start:start + size])
    if len(shown) > size * EXCERPT_CHARS // 4:  # text without spaces: a few words' worth
        first = max(0, min(at - EXCERPT_CHARS // 3, len(text) - EXCERPT_CHARS))
        last = first + EXCERPT_CHARS
        shown = " ".join(text[first:last].split())
        return ("…" if first > 0 else "") + shown + ("…" if last < len(text) else "")
    return ("…" if start > 0 else "") + shown + ("…" if start + size < len(tokens) else "")


def scan_messages(messages: Sequence[Message], text: str, *, limit: int) -> SessionMatches:
    """The user-visible messages whose text holds every word of ``text`` (plain scan).

    Returns:
        How many match, and the last ``limit`` of them in transcript order.
    """
    patterns = word_patterns(text)
    longest = [max(re.findall(r"\w+", w), key=len).lower() for w in search_words(text)]
    found = []
    for i, message in enumerate(messages):
        if not message.metadata.user_visible or not patterns:
            continue
        body = message.text
        folded = body.lower()  # a quick test first: every word's longest run is in the text
        if not all(w in folded for w in longest):
            continue
        first = patterns[0].search(body)
        if first and all(p.search(body) for p in patterns[1:]):
            found.append((i, message, first.start()))
    hits = [MessageHit(i + 1, len(messages), m.role, m.created, excerpt(m.text, at))
            for i, m, at in found[-limit:]]
    return SessionMatches(len(found), hits)
