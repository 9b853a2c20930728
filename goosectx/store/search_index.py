"""The full-text index's schema and migration 4 (docs/architecture.md §8).

See :mod:`goosectx.store.search` for what is indexed and how it is kept in step.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence

from goosectx.message import Message
from goosectx.parts import TextContent
from goosectx.session import first_request_title
from goosectx.stored_message import StoredMessage

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


def trigger_text(message: Message | StoredMessage) -> str | None:
    """What ``message_index_insert`` indexes for a stored ``message``: "" for nothing.

    The trigger's SQL, said in Python: nothing unless ``user_visible``; else the texts of the
    ``text`` parts joined by newlines (nothing when that is empty). ``None`` when only SQLite
    can say for certain: a flag that is not a bool, a text part of another class or whose
    text is not a string, or a text holding NUL.
    """
    visible = message.metadata.user_visible
    if type(visible) is not bool:
        return None
    if not visible:
        return ""
    texts = []
    for part in message.content:
        if part.type != "text":
            continue
        if type(part) is not TextContent or type(part.text) is not str or "\0" in part.text:
            return None
        texts.append(part.text)
    return "\n".join(texts)


@contextlib.contextmanager
def indexed_in_bulk(conn: sqlite3.Connection, session_id: str,
                    messages: Sequence[Message | StoredMessage]) -> Iterator[None]:
    """Index a new session's ``messages`` in one go after the block inserts their rows.

    For a session with no message rows before the block (an import), inside the caller's
    transaction, ``messages`` given in the order of their rows' positions: the per-row trigger
    ``message_index_insert`` is dropped; at the end of the block each message's row is indexed
    with :func:`trigger_text` (one ``executemany``), or by the trigger's own SQL
    (:data:`INDEX_ROWS`) where that says ``None``, so the index holds the rows the trigger
    would have made; then the trigger is made again from its stored SQL.
    A failure rolls it all back with the transaction: other connections only ever see the
    schema with its trigger. Without the trigger (no FTS5) the block just runs.
    """
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type='trigger'"
                       " AND name='message_index_insert'").fetchone()
    if row is None:
        yield
        return
    conn.execute("DROP TRIGGER message_index_insert")
    yield
    # the rowids in position order, read from the (session_id, position) index alone: no
    # lookup of each row in the table (its pages are in the WAL) as reading the ids needs
    rowids = conn.execute("SELECT rowid FROM messages WHERE session_id=? ORDER BY position",
                          (session_id,)).fetchall()
    rows, by_sql = [], []
    for message, (rowid,) in zip(messages, rowids, strict=True):
        text = trigger_text(message)
        if text is None:
            by_sql.append((rowid,))
        elif text:
            rows.append((rowid, text, session_id))
    conn.executemany("INSERT INTO message_index (rowid, text, session_id) VALUES (?,?,?)", rows)
    conn.executemany(INDEX_ROWS.format(where="m.rowid = ?"), by_sql)
    conn.execute(row[0])


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
                                     "content": json.loads(content_json),
                                     "metadata": json.loads(metadata_json)})
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
