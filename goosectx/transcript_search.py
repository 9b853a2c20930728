"""Where in one session's transcript words are: the matching messages, their place, an excerpt.

What is searched is what the user saw: the text of user-visible messages (requests and answers;
tool output, summaries and other agent-only text are not), as the full-text index holds it
(:mod:`goosectx.store.search`). :func:`scan_messages` is the plain scan used where the session
is not in the index (a SQLite without FTS5, an import not indexed yet): every word must be in
the message, case-insensitively. Excerpts are outside text: sanitise them before printing.
Pure: no printing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from goosectx.message import Message

EXCERPT_WORDS = 12
"""Words of an excerpt (as the index's snippet)."""


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


def word_patterns(text: str) -> list[re.Pattern[str]]:
    """One pattern per word of ``text``: its letters and digits as whole words, in order.

    As the full-text index reads a word (``turn 42:`` is ``turn`` then ``42``; ``the`` is not
    in ``other``), case-insensitively.
    """
    patterns = []
    for word in search_words(text):
        parts = [re.escape(t) for t in re.findall(r"\w+", word)]
        patterns.append(re.compile(r"(?<!\w)" + r"\W+".join(parts) + r"(?!\w)", re.IGNORECASE))
    return patterns


def excerpt(text: str, at: int, size: int = EXCERPT_WORDS) -> str:
    """About ``size`` words of ``text`` around the character ``at`` (a match).

    ``…`` marks a cut end; the excerpt is one line (runs of whitespace become one space).
    """
    tokens = text.split()
    index = len(text[:at].split())
    start = max(0, min(index - size // 3, len(tokens) - size))
    shown = " ".join(tokens[start:start + size])
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
