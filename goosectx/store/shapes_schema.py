"""Migrations 12 and 14: ``message_shapes``, its triggers and its ``result_lines`` column.

Apart from :mod:`goosectx.store.shapes` so that :mod:`goosectx.store.migrations` imports it
without the store (docs/architecture.md §8).
"""

from __future__ import annotations

COLUMNS = ("{r}, {t}.session_id, {t}.position, {t}.id, {t}.role, {t}.created,"
           " {t}.metadata_json, {t}.token_count, {t}.token_encoding")
"""A shape's columns copied from its row, as an ``INSERT … SELECT`` lists them: ``{r}`` the
row's rowid, ``{t}`` the row."""

SHAPES_SCHEMA = """
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
CREATE TRIGGER message_shapes_update AFTER UPDATE ON messages
WHEN EXISTS (SELECT 1 FROM message_shapes WHERE message_rowid = old.rowid)
BEGIN
    DELETE FROM message_shapes WHERE message_rowid = old.rowid;
END;
CREATE TRIGGER message_shapes_delete AFTER DELETE ON messages
BEGIN
    DELETE FROM message_shapes WHERE message_rowid = old.rowid;
END;
"""
"""Migration 12: the table, and the triggers that drop a row's shape when the row changes or
goes. An insert has none (an import pays nothing): a row without a shape gets one at first
need."""

RESULT_LINES_SCHEMA = """
ALTER TABLE message_shapes ADD COLUMN result_lines TEXT;
"""
"""Migration 14: what measuring a message of tool results for the summary request found
(:mod:`goosectx.store.shapes_lines`), kept with its shape (dropped with it when the row
changes). NULL until a dry run measures the message."""
