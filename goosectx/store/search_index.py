"""The full-text index's schema and migration 4 (docs/architecture.md §8).

See :mod:`goosectx.store.search` for what is indexed and how it is kept in step.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from goosectx.message import Message
from goosectx.session import first_request_title
from goosectx.store.json_read import loads

MESSAGE_TEXT = ("(SELECT group_concat(json_extract(p.value, '$.text'), char(10))"
                " FROM json_each({content}) p WHERE json_extract(p.value, '$.type') = 'text')")
"""SQL: the text parts of a stored message's ``content_json`` joined by newlines."""

SEARCH_SCHEMA = f"""
CREATE VIRTUAL TABLE message_index USING fts5(
    text, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE title_index USING fts5(
    title, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER message_index_insert AFTER INSERT ON messages
WHEN coalesce(json_extract(new.metadata_json, '$.user_visible'), 1)
BEGIN
    INSERT INTO message_index (rowid, text, session_id)
    SELECT new.rowid, t, new.session_id
    FROM (SELECT {MESSAGE_TEXT.format(content="new.content_json")} AS t) WHERE t <> '';
END;
CREATE TRIGGER message_index_delete AFTER DELETE ON messages
BEGIN
    DELETE FROM message_index WHERE rowid = old.rowid;
END;
CREATE TRIGGER title_index_insert AFTER INSERT ON sessions WHEN new.title IS NOT NULL
BEGIN
    INSERT INTO title_index (title, session_id) VALUES (new.title, new.id);
END;
CREATE TRIGGER title_index_update AFTER UPDATE OF title ON sessions
WHEN new.title IS NOT old.title
BEGIN
    DELETE FROM title_index WHERE session_id = old.id;
    INSERT INTO title_index (title, session_id) SELECT new.title, new.id
    WHERE new.title IS NOT NULL;
END;
CREATE TRIGGER title_index_delete AFTER DELETE ON sessions
BEGIN
    DELETE FROM title_index WHERE session_id = old.id;
END;
"""

INDEX_ROWS = (
    "INSERT INTO message_index (rowid, text, session_id) SELECT r, t, s FROM"
    f" (SELECT m.rowid AS r, {MESSAGE_TEXT.format(content='m.content_json')} AS t,"
    " m.session_id AS s FROM messages m"
    " WHERE {where} AND coalesce(json_extract(m.metadata_json, '$.user_visible'), 1))"
    " WHERE t <> ''")
"""SQL: index the message rows matching ``{where}`` as ``message_index_insert`` does each."""


PENDING_SCHEMA = """
ALTER TABLE sessions ADD COLUMN unindexed_from INTEGER;
ALTER TABLE sessions ADD COLUMN unindexed_to INTEGER;
"""
"""SQL of migration 9: a session's imported message rows not in ``message_index`` yet (the
rowids from ``unindexed_from`` to ``unindexed_to``; NULL: none). Columns of the session's row,
so they go with it; no table (a new database stays its size)."""


@contextlib.contextmanager
def indexed_later(conn: sqlite3.Connection, session_id: str) -> Iterator[None]:
    """Leave the rows a new session's block inserts out of the index until a search.

    For a session with no message rows before the block (an import), inside the caller's
    transaction: the per-row trigger ``message_index_insert`` is dropped, the block inserts
    the rows, their rowids are recorded in the session's row (:data:`PENDING_SCHEMA`) and
    the trigger is made again
    from its stored SQL, so rows appended later are indexed as they come. The next search
    indexes them (:func:`index_pending`: the trigger's own SQL, so the index holds the rows
    it would have made). A failure rolls it all back with the transaction: other connections
    only ever see the schema with its trigger. Without the trigger (no FTS5) the block just
    runs.
    """
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type='trigger'"
                       " AND name='message_index_insert'").fetchone()
    if row is None:
        yield
        return
    # a new row's rowid is the largest one + 1 (goosectx never stores the largest possible
    # rowid), and this write transaction holds the table: the block's rows are those between
    before = conn.execute("SELECT max(rowid) FROM messages").fetchone()[0] or 0
    conn.execute("DROP TRIGGER message_index_insert")
    yield
    last = conn.execute("SELECT max(rowid) FROM messages").fetchone()[0] or 0
    if last > before:
        conn.execute("UPDATE sessions SET unindexed_from=?, unindexed_to=? WHERE id=?",
                     (before + 1, last, session_id))
    conn.execute(row[0])


def pending_count(conn: sqlite3.Connection) -> int:
    """How many imported message rows wait for the index (:data:`PENDING_SCHEMA`)."""
    row = conn.execute("SELECT sum(unindexed_to - unindexed_from + 1) FROM sessions"
                       " WHERE unindexed_from IS NOT NULL").fetchone()
    return int(row[0] or 0)


def index_pending(conn: sqlite3.Connection) -> int:
    """Index every imported row still waiting (inside the caller's write transaction).

    Each session's rows are indexed by the trigger's SQL (:data:`INDEX_ROWS`) and its range is
    cleared. Returns how many rows were waiting.
    """
    pending = conn.execute("SELECT id, unindexed_from, unindexed_to FROM sessions"
                           " WHERE unindexed_from IS NOT NULL").fetchall()
    for session_id, first, last in pending:
        conn.execute(INDEX_ROWS.format(
            where="m.rowid BETWEEN ? AND ? AND m.session_id = ?"), (first, last, session_id))
        conn.execute("UPDATE sessions SET unindexed_from=NULL, unindexed_to=NULL WHERE id=?",
                     (session_id,))
    return sum(last - first + 1 for _, first, last in pending)


def fts5_available(conn: sqlite3.Connection) -> bool:
    """True when this SQLite can make an FTS5 table (probed with a temporary one)."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.goosectx_fts5_probe USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.goosectx_fts5_probe")
    return True


def migrate_titles_and_index(conn: sqlite3.Connection) -> None:
    """Migration 4's body (inside its transaction): titles, then the FTS tables if possible.

    Every session without a title gets the one of its first user request; with FTS5, the
    tables and triggers above are made and filled from the stored rows.
    """
    untitled = [r[0] for r in conn.execute("SELECT id FROM sessions WHERE title IS NULL")]
    for session_id in untitled:
        title = first_request_title(_user_messages(conn, session_id))
        if title is not None:
            conn.execute("UPDATE sessions SET title=? WHERE id=?", (title, session_id))
    if not fts5_available(conn):
        return
    for statement in _statements(SEARCH_SCHEMA):
        conn.execute(statement)
    conn.execute(INDEX_ROWS.format(where="1"))
    conn.execute("INSERT INTO title_index (title, session_id)"
                 " SELECT title, id FROM sessions WHERE title IS NOT NULL")


def _user_messages(conn: sqlite3.Connection, session_id: str) -> Iterator[Message]:
    """A session's stored user messages in order, parsed one at a time (generator)."""
    rows = conn.execute(
        "SELECT id, created, content_json, metadata_json FROM messages"
        " WHERE session_id=? AND role='user' ORDER BY position", (session_id,))
    for mid, created, content_json, metadata_json in rows:
        try:
            yield Message.from_dict({"id": mid, "role": "user", "created": created,
                                     "content": loads(content_json),
                                     "metadata": loads(metadata_json)})
        except (ValueError, TypeError):
            continue  # an unreadable row gives no title; `load` reports it


def _statements(sql: str) -> list[str]:
    out, buffer = [], ""
    for piece in sql.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \t\r\n;"):
                out.append(buffer.strip())
            buffer = ""
    return out
