"""Migration 12's schema: ``message_shapes`` and its triggers (:mod:`goosectx.store.shapes`).

Apart from :mod:`goosectx.store.shapes` so that :mod:`goosectx.store.migrations` imports it
without the store (docs/architecture.md §8).
"""

from __future__ import annotations

COLUMNS = ("{r}, {t}.session_id, {t}.position, {t}.id, {t}.role, {t}.created,"
           " {t}.metadata_json, {t}.token_count, {t}.token_encoding")
"""Each shape's columns but ``parts_json``, as an ``INSERT … SELECT`` lists them: ``{r}`` the
row's rowid, ``{t}`` the row (``new``, or the ``messages`` table)."""

_SAME = "new.rowid = old.rowid AND new.content_json IS old.content_json"
"""An updated row whose parts did not change: its shape keeps them."""

SHAPES_SCHEMA = f"""
CREATE TABLE message_shapes (
    message_rowid INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    position REAL NOT NULL,
    id TEXT NOT NULL,
    role TEXT NOT NULL,
    created TEXT NOT NULL,
    metadata_json TEXT NOT NULL,
    token_count INTEGER,
    token_encoding TEXT,
    parts_json TEXT,
    texts TEXT
);
CREATE INDEX message_shapes_by_session ON message_shapes(session_id, position);
CREATE TRIGGER message_shapes_insert AFTER INSERT ON messages
BEGIN
    INSERT OR REPLACE INTO message_shapes
        SELECT {COLUMNS.format(r="new.rowid", t="new")}, NULL, NULL;
END;
CREATE TRIGGER message_shapes_update AFTER UPDATE ON messages
BEGIN
    INSERT OR REPLACE INTO message_shapes
        SELECT {COLUMNS.format(r="new.rowid", t="new")},
               CASE WHEN {_SAME} THEN (SELECT parts_json FROM message_shapes
                                        WHERE message_rowid = old.rowid) END,
               CASE WHEN {_SAME} THEN (SELECT texts FROM message_shapes
                                        WHERE message_rowid = old.rowid) END;
    DELETE FROM message_shapes WHERE message_rowid = old.rowid AND old.rowid <> new.rowid;
END;
CREATE TRIGGER message_shapes_delete AFTER DELETE ON messages
BEGIN
    DELETE FROM message_shapes WHERE message_rowid = old.rowid;
END;
"""
"""Migration 12: the table and the triggers that keep it equal to ``messages``."""
