"""Search words with CJK characters, in the full-text index's rows (docs/architecture.md §8).

The index's unicode61 tokenizer reads a run of CJK characters as one token: ``MATCH`` finds
数据库 only where it stands alone, never inside 我们的数据库配置. A search with such words
(:func:`goosectx.transcript_search.unspaced`) therefore gives ``MATCH`` only its latin words
(none: every row of the table is a candidate), keeps the rows holding each CJK run
(``instr``), and checks each left with the scan's patterns
(:func:`goosectx.transcript_search.word_patterns`), so the index and the plain scan find the
same messages. The excerpt is made from the row's text (:func:`excerpt`), not by ``snippet``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

from goosectx.transcript_search import excerpt, search_words, unspaced, unspaced_runs, word_patterns


def has_unspaced(text: str) -> bool:
    """True when a word of ``text`` has CJK characters (searched here, not by ``MATCH``)."""
    return any(unspaced(w) for w in search_words(text))


def _first_match(text: str, patterns: list[re.Pattern[str]]) -> int | None:
    """Where the first pattern matches ``text`` when every pattern does (else ``None``)."""
    first = patterns[0].search(text)
    if first is None or not all(p.search(text) for p in patterns[1:]):
        return None
    return first.start()


def _checks(text: str, query: str, column: str, table: str
            ) -> tuple[str, list[str], list[re.Pattern[str]]]:
    """SQL conditions on ``column`` of ``table``, their values, and the CJK words' patterns."""
    words = [w for w in search_words(text) if unspaced(w)]
    runs = [max(unspaced_runs(w), key=len) for w in words]
    sql = "".join(f" AND instr({column}, ?) > 0" for _ in runs)
    if query:
        sql += f" AND {table} MATCH ?"
    return sql, [*runs, *([query] if query else [])], word_patterns(" ".join(words))


def session_rows(conn: sqlite3.Connection, session_id: str, text: str, query: str
                 ) -> list[tuple[int, str, int]]:
    """The session's indexed rows holding every word of ``text``, in transcript order.

    ``query``: the ``MATCH`` query of the latin words ('' for none). Each row is (rowid, its
    text, where the first CJK word is in it).
    """
    sql, values, patterns = _checks(text, query, "i.text", "message_index")
    rows = conn.execute(
        "SELECT i.rowid, i.text FROM message_index i JOIN messages m ON m.rowid = i.rowid"
        f" WHERE i.session_id = ?{sql} ORDER BY m.position", (session_id, *values))
    return [(rowid, body, at) for rowid, body in rows
            if (at := _first_match(body, patterns)) is not None]


def title_sessions(conn: sqlite3.Connection, text: str, query: str) -> list[str]:
    """The sessions whose title holds every word of ``text``."""
    sql, values, patterns = _checks(text, query, "title", "title_index")
    rows = conn.execute(f"SELECT session_id, title FROM title_index WHERE 1{sql}", values)
    return [sid for sid, title in rows if _first_match(title, patterns) is not None]


def message_sessions(conn: sqlite3.Connection, text: str, query: str
                     ) -> Iterator[tuple[str, int, int, str]]:
    """Each session with messages holding every word of ``text``, newest match first.

    Each is (its id, how many of its messages match, the newest one's rowid, its excerpt).
    """
    sql, values, patterns = _checks(text, query, "text", "message_index")
    found: dict[str, tuple[int, int, str, int]] = {}
    for sid, rowid, body in conn.execute(
            f"SELECT session_id, rowid, text FROM message_index WHERE 1{sql}", values):
        if (at := _first_match(body, patterns)) is None:
            continue
        count, newest, *_ = found.get(sid, (0, -1, "", 0))
        found[sid] = (count + 1, rowid, body, at) if rowid > newest else (
            count + 1, *found[sid][1:])
    for sid, (count, rowid, body, at) in sorted(found.items(), key=lambda kv: -kv[1][1]):
        yield sid, count, rowid, excerpt(body, at)
