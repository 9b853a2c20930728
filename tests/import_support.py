"""What the import tests share: goose sample writers, JSON lines, the stored-secret check."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

GOOSE_DB_TABLES = """
    CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT, description TEXT,
        working_dir TEXT, created_at TIMESTAMP, updated_at TIMESTAMP,
        provider_name TEXT, model_config_json TEXT);
    CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
        session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER,
        metadata_json TEXT);
"""
"""The two tables goosectx's goose-db importer reads."""

GooseBlocks = list[tuple[str, list[dict[str, object]]]]
"""A goose conversation: ``(role, content blocks)`` per message."""

_VISIBLE = {"userVisible": True, "agentVisible": True}


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    """``records`` written to ``path`` as JSON lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def write_goose_json(path: Path, blocks: GooseBlocks, *, session_id: str, working_dir: str,
                     id_suffix: str = "") -> Path:
    """A ``goose session export --format json`` of ``blocks``; message ids ``m{i}{id_suffix}``."""
    path.write_text(json.dumps({
        "id": session_id, "working_dir": working_dir, "description": "task",
        "conversation": [{"id": f"m{i}{id_suffix}", "role": role, "created": 1717000000 + i,
                          "content": content, "metadata": _VISIBLE}
                         for i, (role, content) in enumerate(blocks)]}))
    return path


def write_goose_db(path: Path, blocks: GooseBlocks, *, session_id: str, working_dir: str,
                   id_suffix: str = "") -> Path:
    """A goose ``sessions.db`` holding one session of ``blocks``; ids as :func:`write_goose_json`."""
    conn = sqlite3.connect(path)
    conn.executescript(GOOSE_DB_TABLES)
    conn.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?)",
                 (session_id, "task", "", working_dir, "2026-08-05 21:00:00",
                  "2026-08-05 21:00:30", "ollama", '{"model_name": "qwen3"}'))
    for i, (role, content) in enumerate(blocks):
        conn.execute("INSERT INTO messages (message_id, session_id, role, content_json,"
                     " created_timestamp, metadata_json) VALUES (?,?,?,?,?,?)",
                     (f"m{i}{id_suffix}", session_id, role, json.dumps(content),
                      1785964761 + i, json.dumps(_VISIBLE)))
    conn.commit()
    conn.close()
    return path
