"""What the import tests share: the tables of a goose sessions.db (goose 1.x)."""

from __future__ import annotations

GOOSE_DB_TABLES = """
    CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT, description TEXT,
        working_dir TEXT, created_at TIMESTAMP, updated_at TIMESTAMP,
        provider_name TEXT, model_config_json TEXT);
    CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
        session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER,
        metadata_json TEXT);
"""
"""The two tables goosectx's goose-db importer reads."""
