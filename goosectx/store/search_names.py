"""Migration 12: session names in the title index (docs/architecture.md §8).

``sessions search payments`` did not find the session named ``payments-refactor``: migration 4
indexed titles only. This migration makes ``title_index`` again with a ``name`` column beside
``title`` (an FTS5 table's columns cannot be added), triggers that follow both, and fills it
from the sessions' rows. A search's words may then be in the name, the title or both
(:meth:`goosectx.store.search.SearchStore.search`). Without FTS5 (no ``title_index``) there is
nothing to do.
"""

from __future__ import annotations

import sqlite3

NAMES_SCHEMA = """
DROP TRIGGER title_index_insert;
DROP TRIGGER title_index_update;
DROP TRIGGER title_index_delete;
DROP TABLE title_index;
CREATE VIRTUAL TABLE title_index USING fts5(
    title, name, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER title_index_insert AFTER INSERT ON sessions
WHEN new.title IS NOT NULL OR new.name IS NOT NULL
BEGIN
    INSERT INTO title_index (title, name, session_id) VALUES (new.title, new.name, new.id);
END;
CREATE TRIGGER title_index_update AFTER UPDATE OF title, name ON sessions
WHEN new.title IS NOT old.title OR new.name IS NOT old.name
BEGIN
    DELETE FROM title_index WHERE session_id = old.id;
    INSERT INTO title_index (title, name, session_id) SELECT new.title, new.name, new.id
    WHERE new.title IS NOT NULL OR new.name IS NOT NULL;
END;
CREATE TRIGGER title_index_delete AFTER DELETE ON sessions
BEGIN
    DELETE FROM title_index WHERE session_id = old.id;
END;
INSERT INTO title_index (title, name, session_id)
SELECT title, name, id FROM sessions WHERE title IS NOT NULL OR name IS NOT NULL;
"""
"""SQL of migration 12 (run only where migration 4 made the FTS5 tables)."""


def migrate_names(conn: sqlite3.Connection) -> None:
    """Migration 12's body (inside its transaction): the title index with names."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name='title_index'").fetchone() is None:
        return  # no FTS5 here: search is unavailable, names included
    buffer = ""
    for piece in NAMES_SCHEMA.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \t\r\n;"):
                conn.execute(buffer.strip())
            buffer = ""
