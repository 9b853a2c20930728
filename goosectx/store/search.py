"""Session titles and full-text search (migration 4; docs/architecture.md §8).

Two SQLite FTS5 tables, kept in step by triggers of the schema itself, so every way a row is
written (an appended message, a compaction's transaction, ``remove``) updates them in the same
transaction:

* ``message_index`` — the text parts of every user-visible message (the user's requests and
  the model's answers; tool output, summaries and other agent-only text are not indexed). Its
  rowid is the message row's rowid: inserting a message adds its row, deleting one removes it
  (goosectx never runs ``VACUUM``, which could renumber them). Compaction deletes nothing.
* ``title_index`` — the session titles (one row per titled session).

An import is the exception: its rows wait, named in its session's row (migration 9), and the first
search indexes them, with the trigger's own SQL (issue 14: import parses and inserts).

A session's title is its first user request (:func:`goosectx.session.request_title`), set by
the store when that message is appended or a session is imported; the migration gives every
existing session its title and indexes every existing message. Without FTS5 compiled into
SQLite the migration still sets the titles, and :meth:`SearchStore.search` alone says it is
unavailable.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from goosectx.errors import StoreError, UsageError
from goosectx.store.database import StoreDatabase, stored_time

if TYPE_CHECKING:  # the search's own modules load with a search, not with every store
    from goosectx.store.search_hit import SearchHit
    from goosectx.transcript_search import MessageHit, SessionMatches

SNIPPET_TOKENS = 12
"""Tokens of context in a search hit's snippet."""


def match_query(text: str) -> str:
    """An FTS5 query finding rows with every word of ``text`` (each word a quoted phrase).

    Words with CJK characters are left out: :mod:`goosectx.store.search_unspaced` looks for
    them ('' when every word is one).

    Raises:
        UsageError: ``text`` has no word.
    """
    from goosectx.transcript_search import search_words, unspaced

    words = search_words(text)
    if not words:
        raise UsageError(f"nothing to search for in {text!r}",
                         "give words, e.g. goosectx sessions search parser bug")
    return " ".join('"' + w.replace('"', '""') + '"' for w in words if not unspaced(w))


class SearchStore(StoreDatabase):
    """Search methods of :class:`goosectx.store.SessionStore`."""

    def search_available(self) -> bool:
        """True when the database has the full-text index (SQLite had FTS5 at migration 4)."""
        with self._guard():
            return self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name='message_index'").fetchone() is not None

    def pending_for_index(self) -> int:
        """Imported messages not in the full-text index yet (the next search indexes them)."""
        from goosectx.store.search_index import pending_count  # here: a command that searches

        with self._guard():
            return pending_count(self._conn)

    def index_pending(self) -> int:
        """Put the imported messages still waiting into the full-text index (one transaction).

        Returns:
            How many message rows were waiting (0: nothing was written).

        Raises:
            StoreError: the database cannot be written here (read-only media, a full disk,
                busy): nothing changed.
        """
        if not self.pending_for_index():
            return 0
        from goosectx.store.search_index import index_pending

        with self._transaction() as conn:
            return index_pending(conn)

    def search(self, text: str, *, limit: int = 20, index_first: bool = True
               ) -> list[SearchHit]:
        """Sessions whose name, title or message text holds every word of ``text``.

        ``index_first``: index the imported messages still waiting first
        (:meth:`index_pending`; the caller did, or says why it could not).

        Returns:
            At most ``limit`` hits: name matches first (most recently updated first), then
            title matches, then by the best message match (FTS5's bm25 rank).

        Raises:
            UsageError: ``text`` has no word.
            StoreError: this SQLite has no FTS5 (one line; other commands work).
        """
        from goosectx.store.search_hit import SearchHit
        from goosectx.store.search_unspaced import has_unspaced, message_sessions, title_sessions

        query = match_query(text)
        if not self.search_available():
            raise StoreError(
                f"full-text search needs SQLite's FTS5, which this Python's sqlite3 "
                f"({sqlite3.sqlite_version}) does not have",
                "use a Python whose sqlite3 has FTS5 (python.org builds and most "
                "distributions do); every other command works without it")
        if index_first:
            self.index_pending()
        best: dict[str, tuple[int, int | None, str]]
        with self._guard():
            if has_unspaced(text):  # CJK words: not tokens of the index
                titles = dict.fromkeys(title_sessions(self._conn, text, query), 0.0)
                best = {sid: (count, rowid, shown) for sid, count, rowid, shown
                        in message_sessions(self._conn, text, query)}
                order = [*titles, *(s for s in best if s not in titles)]
            else:
                titles = {r[0]: r[1] for r in self._conn.execute(
                    "SELECT session_id, rank FROM title_index WHERE title_index MATCH ?"
                    " ORDER BY rank LIMIT ?", (query, limit))}
                found = {r[0]: (r[1], r[2]) for r in self._conn.execute(
                    "SELECT session_id, count(*), min(rank) FROM message_index"
                    " WHERE message_index MATCH ? GROUP BY session_id ORDER BY min(rank)"
                    " LIMIT ?", (query, limit))}
                order = sorted(titles, key=titles.__getitem__) + sorted(
                    (s for s in found if s not in titles), key=lambda s: found[s][1])
                best = {sid: (int(found[sid][0]), *self._best_match(sid, query))
                        for sid in order[:limit] if sid in found}
            names = self._named(text, limit)
            order = [*names, *(s for s in order if s not in names)]
            hits = []
            for session_id in order[:limit]:
                row = self._conn.execute("SELECT name, title, updated FROM sessions WHERE id=?",
                                         (session_id,)).fetchone()
                if row is None:
                    continue
                count, rowid, snippet = best.get(session_id, (0, None, ""))
                match = None if rowid is None else self._message_hit(session_id, rowid, snippet)
                hits.append(SearchHit(session_id, row[0], row[1], stored_time(row[2]),
                                      session_id in titles, count, snippet, match,
                                      in_name=session_id in names))
        return hits

    def _named(self, text: str, limit: int) -> list[str]:
        """Ids of the sessions whose name holds every word of ``text`` (inside ``_guard``)."""
        from goosectx.transcript_search import search_words

        words = [w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                 for w in search_words(text)]
        where = " AND ".join(["name LIKE ? ESCAPE '\\'"] * len(words))
        return [r[0] for r in self._conn.execute(
            f"SELECT id FROM sessions WHERE name IS NOT NULL AND {where}"
            " ORDER BY updated DESC, id DESC LIMIT ?", (*(f"%{w}%" for w in words), limit))]

    def _best_match(self, session_id: str, query: str) -> tuple[int | None, str]:
        """The rowid and snippet of the session's best ``MATCH`` (inside ``_guard``)."""
        snip = self._conn.execute(
            "SELECT snippet(message_index, 0, '', '', '…', ?), rowid"
            " FROM message_index WHERE message_index MATCH ? AND session_id=?"
            " ORDER BY rank LIMIT 1", (SNIPPET_TOKENS, query, session_id)).fetchone()
        return (None, "") if snip is None else (int(snip[1]), " ".join(str(snip[0]).split()))

    def session_indexed(self, session_id: str) -> bool:
        """True when the full-text index holds all the session's messages.

        False without FTS5, and for an import whose rows wait for the index.
        """
        if not self.search_available():
            return False
        with self._guard():
            row = self._conn.execute("SELECT unindexed_from FROM sessions WHERE id=?",
                                     (session_id,)).fetchone()
        return row is not None and row[0] is None

    def search_session(self, session_id: str, text: str, *, limit: int = 20
                       ) -> SessionMatches:
        """The session's indexed messages holding every word of ``text`` (full-text index).

        Returns:
            How many match, and the last ``limit`` of them in transcript order, each with its
            place, time and an excerpt. Only for a session :meth:`session_indexed` says is.

        Raises:
            UsageError: ``text`` has no word.
        """
        from goosectx.store.search_unspaced import has_unspaced, session_rows
        from goosectx.transcript_search import SessionMatches, excerpt

        query = match_query(text)
        with self._guard():
            if has_unspaced(text):  # CJK words: not tokens of the index
                found = session_rows(self._conn, session_id, text, query)
                rowids = [(rowid, excerpt(body, at)) for rowid, body, at in found[-limit:]]
                count = len(found)
            else:
                rows = self._conn.execute(
                    "SELECT i.rowid FROM message_index i JOIN messages m ON m.rowid = i.rowid"
                    " WHERE message_index MATCH ? AND i.session_id=? ORDER BY m.position",
                    (query, session_id)).fetchall()
                rowids = [(rowid, self._snippet(rowid, query)) for (rowid,) in rows[-limit:]]
                count = len(rows)
            total = self._message_total(session_id)  # once: the same for every hit
            hits = [hit for rowid, shown in (rowids if limit else [])
                    if (hit := self._message_hit(session_id, rowid, shown, total)) is not None]
        return SessionMatches(count, hits)

    def _snippet(self, rowid: int, query: str) -> str:
        """The index's snippet of the row ``rowid`` for ``query``, on one line."""
        snip = self._conn.execute(
            "SELECT snippet(message_index, 0, '', '', '…', ?) FROM message_index"
            " WHERE message_index MATCH ? AND rowid=?", (SNIPPET_TOKENS, query, rowid)).fetchone()
        return " ".join(str(snip[0]).split())

    def _message_total(self, session_id: str) -> int:
        """How many messages the session stores (inside ``_guard``)."""
        row = self._conn.execute("SELECT count(*) FROM messages WHERE session_id=?",
                                 (session_id,)).fetchone()
        return int(row[0])

    def _message_hit(self, session_id: str, rowid: int, snippet: str,
                     total: int | None = None) -> MessageHit | None:
        """Where the message row ``rowid`` is in its session (inside ``_guard``).

        ``total``: the session's message count when the caller has it (several hits).
        """
        from goosectx.transcript_search import MessageHit

        row = self._conn.execute(
            "SELECT m.role, m.created, (SELECT count(*) FROM messages o WHERE o.session_id=?"
            " AND o.position <= m.position) FROM messages m WHERE m.rowid=?",
            (session_id, rowid)).fetchone()
        if row is None:
            return None
        if total is None:
            total = self._message_total(session_id)
        return MessageHit(int(row[2]), total, str(row[0]), stored_time(row[1]), snippet)
