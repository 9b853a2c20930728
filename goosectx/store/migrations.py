"""Schema of the session database and its numbered migrations (docs/architecture.md §8).

Each migration has a fixed number, reserved in the plan below before anyone writes it, so
parallel branches never hand out the same number twice. The numbers a database has applied are
recorded in ``schema_migrations``; opening applies every known number not yet applied, in
ascending order, each in its own transaction (all of it or none of it). Numbers may therefore
land in any order: a migration must not depend on one with a higher number, and must not assume
a lower reserved number that has not landed yet. A database that has applied a number this build
does not know, or whose ``PRAGMA user_version`` is above every number this build knows, was
made by a newer goosectx and is refused with a one-line error (exit 2), untouched.

A database from before this bookkeeping (``PRAGMA user_version`` = 1, no ``schema_migrations``)
counts as having applied migration 1. ``user_version`` is still set to the highest applied number
so that such older builds refuse a newer database instead of writing to it.

MIGRATION_PLAN (numbers reserved; use only yours, keep this list and docs/architecture.md equal):
    1  initial schema: sessions, messages, usage ledger
    2  per-message token count and its encoding (NULL = not yet counted)
    3  session title / source / import hash / stored approval mode
    4  session titles of existing sessions, full-text search (FTS5 tables and triggers)
    5  extensions per session
    6  calibration state
    7  compaction undo state
    8  a message's changing metadata and token count apart from its row (``message_state``)
    9  imported messages waiting for the full-text index (``sessions.unindexed_from/_to``)
    10 (reserved, unused) file edits the user can undo (``/undo``): files under the data dir
       instead (``goosectx/file_journal.py``); number left free
    11 the compaction's scan state kept between processes (``scan_state``, its triggers)
    12 message shapes: each row without its tool results' output (``message_shapes``, its
       triggers), for ``compact --dry-run``
    13 a ledger row's estimate mark (``usage_ledger.estimated``): a summary billed with our
       estimate reads back marked
    14 what measuring a message of tool results found for the summary request
       (``message_shapes.result_lines``), kept with its shape
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from goosectx.errors import StoreCorrupt, StoreError, StoreTooNew
from goosectx.store.search_index import PENDING_SCHEMA, migrate_titles_and_index
from goosectx.store.shapes_schema import RESULT_LINES_SCHEMA, SHAPES_SCHEMA
from goosectx.store.waiting import BUSY_TIMEOUT_MS, WaitNotice, begin_immediate


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema change: SQL statements run in one transaction."""

    number: int
    name: str
    sql: str
    run: Callable[[sqlite3.Connection], None] | None = None
    """Python run after the SQL in the same transaction (e.g. derived values, a probe)."""

    def statements(self) -> list[str]:
        """The SQL split into complete statements (triggers with inner ``;`` stay whole)."""
        out: list[str] = []
        buffer = ""
        for piece in self.sql.split(";"):
            buffer += piece + ";"
            if sqlite3.complete_statement(buffer):
                if buffer.strip(" \t\r\n;"):
                    out.append(buffer.strip())
                buffer = ""
        if buffer.strip(" \t\r\n;"):
            raise ValueError(f"migration {self.number}: incomplete SQL statement {buffer!r}")
        return out


_HAS_STATE = "EXISTS (SELECT 1 FROM scan_state WHERE session_id = {})"
_ROW_SESSION = "(SELECT session_id FROM messages WHERE rowid = new.message_rowid)"
_ROW_POSITION = "(SELECT position FROM messages WHERE rowid = new.message_rowid)"
_OLD_SESSION = _ROW_SESSION.replace("new.", "old.")
_OLD_POSITION = _ROW_POSITION.replace("new.", "old.")

SCAN_STATE_SCHEMA = f"""
CREATE TABLE scan_state (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    boundary_id TEXT NOT NULL,
    boundary_position REAL NOT NULL,
    state BLOB NOT NULL
);
CREATE TRIGGER scan_state_delete AFTER DELETE ON messages
WHEN {_HAS_STATE.format("old.session_id")}
BEGIN
    DELETE FROM scan_state WHERE session_id = old.session_id
        AND boundary_position >= old.position;
END;
CREATE TRIGGER scan_state_update
AFTER UPDATE OF id, session_id, position, role, content_json, metadata_json ON messages
WHEN {_HAS_STATE.format("old.session_id")} OR {_HAS_STATE.format("new.session_id")}
BEGIN
    DELETE FROM scan_state WHERE session_id IN (old.session_id, new.session_id)
        AND boundary_position >= min(old.position, new.position);
END;
CREATE TRIGGER scan_state_metadata_insert AFTER INSERT ON message_state
WHEN new.metadata_json IS NOT NULL AND {_HAS_STATE.format(_ROW_SESSION)}
BEGIN
    DELETE FROM scan_state WHERE session_id = {_ROW_SESSION}
        AND boundary_position >= {_ROW_POSITION};
END;
CREATE TRIGGER scan_state_metadata_update AFTER UPDATE OF metadata_json ON message_state
WHEN new.metadata_json IS NOT old.metadata_json AND {_HAS_STATE.format(_ROW_SESSION)}
BEGIN
    DELETE FROM scan_state WHERE session_id = {_ROW_SESSION}
        AND boundary_position >= {_ROW_POSITION};
END;
CREATE TRIGGER scan_state_metadata_delete AFTER DELETE ON message_state
WHEN old.metadata_json IS NOT NULL AND {_HAS_STATE.format(_OLD_SESSION)}
BEGIN
    DELETE FROM scan_state WHERE session_id = {_OLD_SESSION}
        AND boundary_position >= {_OLD_POSITION};
END;
"""
"""Migration 11 (:mod:`goosectx.store.scan_state`): the table, and the triggers that drop a
session's state once a message at or before its boundary changes."""


# Each branch replaces only its own reserved line below (the blank lines keep merges clean).
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT UNIQUE,
        working_dir TEXT NOT NULL,
        model TEXT,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        current_tokens INTEGER NOT NULL DEFAULT 0,
        current_is_estimate INTEGER NOT NULL DEFAULT 1,
        state_json TEXT NOT NULL DEFAULT '{}',
        metadata_json TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position REAL NOT NULL,
        role TEXT NOT NULL,
        created TEXT NOT NULL,
        content_json TEXT NOT NULL,
        metadata_json TEXT NOT NULL
    );
    CREATE INDEX messages_by_session ON messages(session_id, position);
    CREATE TABLE usage_ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created TEXT NOT NULL,
        model TEXT NOT NULL,
        purpose TEXT NOT NULL,
        is_compaction INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        cost_usd REAL
    );
    CREATE INDEX ledger_by_session ON usage_ledger(session_id, id);
    """),

    Migration(2, "message token counts", """
    ALTER TABLE messages ADD COLUMN token_count INTEGER;
    ALTER TABLE messages ADD COLUMN token_encoding TEXT;
    """),

    Migration(3, "session title, source, import hash, approval mode", """
    ALTER TABLE sessions ADD COLUMN title TEXT;
    ALTER TABLE sessions ADD COLUMN source TEXT;
    ALTER TABLE sessions ADD COLUMN import_hash TEXT;
    ALTER TABLE sessions ADD COLUMN approval_mode TEXT;
    """),

    Migration(4, "session titles, full-text search (FTS5)", "",
              run=lambda conn: migrate_titles_and_index(conn)),

    Migration(5, "extensions per session", """
    CREATE TABLE session_extensions (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        settings_json TEXT NOT NULL,
        PRIMARY KEY (session_id, name)
    );
    """),

    # 6: (reserved) calibration state

    # 7: (reserved) compaction undo state

    Migration(8, "message state apart from the row", """
    CREATE TABLE message_state (
        message_rowid INTEGER PRIMARY KEY,
        metadata_json TEXT,
        token_count INTEGER,
        token_encoding TEXT
    );
    CREATE TRIGGER message_state_delete AFTER DELETE ON messages
    BEGIN
        DELETE FROM message_state WHERE message_rowid = old.rowid;
    END;
    """),

    Migration(9, "imported messages indexed for search at first need", PENDING_SCHEMA),

    # 10: (reserved) file edits the user can undo

    Migration(11, "the compaction's scan state kept between processes", SCAN_STATE_SCHEMA),

    Migration(12, "message shapes for the dry run's plan", SHAPES_SCHEMA),

    Migration(13, "a ledger row's estimate mark", """
    ALTER TABLE usage_ledger ADD COLUMN estimated INTEGER NOT NULL DEFAULT 0;
    """),

    Migration(14, "result line figures kept with the message shapes", RESULT_LINES_SCHEMA),
)

BOOKKEEPING = "CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY, applied TEXT NOT NULL)"

# Errors of the machine, not of a migration: left for the store's error mapping.
_ENVIRONMENT_ERRORS = ("locked", "busy", "readonly", "unable to open", "disk I/O", "full")


def migrate(conn: sqlite3.Connection, path: Path, on_wait: WaitNotice | None = None) -> None:
    """Bring the database at ``path`` up to every migration this build knows.

    ``on_wait``: told when a migration's write waits for another writer (see
    :func:`goosectx.store.waiting.begin_immediate`).

    Raises:
        StoreCorrupt: an SQLite file that is not a goosectx database (left untouched).
        StoreTooNew: made by a newer goosectx (nothing was written).
        StoreError: a migration failed (rolled back).
    """
    applied = _applied(conn)
    if applied is None:
        _bootstrap(conn, path, on_wait)
        applied = _applied(conn) or set()
    known = {m.number for m in MIGRATIONS}
    _refuse_unknown(applied - known, path)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > max(known):
        raise StoreTooNew(
            f"session database {path} was made by a newer goosectx (schema version {version}; "
            f"this version knows up to {max(known)})", "upgrade goosectx")
    empty = not applied  # (no migration yet: no table holds a row)
    for migration in sorted(MIGRATIONS, key=lambda m: m.number):
        if migration.number not in applied:
            _apply(conn, path, migration, on_wait)
            # Let the next migration reuse the WAL's pages: the WAL stays the size of the
            # largest migration, not of all of them (it matters on a small disk). Not in an
            # empty database: its migrations write a schema (~250 KB of WAL in all), and each
            # checkpoint waited for 3 fsyncs (a new data dir's first command: 41 -> 8).
            if not empty:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")


def applied_numbers(conn: sqlite3.Connection) -> set[int]:
    """The migration numbers recorded in the database (empty before bookkeeping)."""
    return _applied(conn) or set()


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection, on_wait: WaitNotice | None) -> Iterator[None]:
    """One write transaction; rolled back on any exception."""
    begin_immediate(conn, BUSY_TIMEOUT_MS, on_wait)
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _applied(conn: sqlite3.Connection) -> set[int] | None:
    has_table = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
    ).fetchone()
    if not has_table:
        return None
    return {int(r[0]) for r in conn.execute("SELECT number FROM schema_migrations")}


def _bootstrap(conn: sqlite3.Connection, path: Path, on_wait: WaitNotice | None) -> None:
    """Create ``schema_migrations`` in a new database or one from before it; refuse others."""
    with _immediate(conn, on_wait):
        if _applied(conn) is not None:  # another process made it since the first read
            return
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
        if tables and version > 1:
            _refuse_unknown({version}, path)
        if tables and not (version == 1 and "sessions" in tables):
            raise StoreCorrupt(
                f"{path} is an SQLite file but not a goosectx session database",
                "move it aside or set GOOSECTX_HOME to another directory",
            )
        conn.execute(BOOKKEEPING)
        if tables:  # made before the bookkeeping: it has migration 1
            conn.execute("INSERT INTO schema_migrations (number, applied) VALUES (1, ?)",
                         (datetime.now(UTC).isoformat(),))


def _refuse_unknown(unknown: set[int], path: Path) -> None:
    if unknown:
        numbers = ", ".join(str(n) for n in sorted(unknown))
        raise StoreTooNew(
            f"session database {path} was made by a newer goosectx "
            f"(it has migration {numbers}, unknown to this version)",
            "upgrade goosectx",
        )


def _apply(conn: sqlite3.Connection, path: Path, migration: Migration,
           on_wait: WaitNotice | None) -> None:
    try:
        with _immediate(conn, on_wait):
            done = _applied(conn) or set()
            if migration.number in done:  # another process applied it meanwhile
                return
            for statement in migration.statements():
                conn.execute(statement)
            if migration.run is not None:
                migration.run(conn)
            conn.execute("INSERT INTO schema_migrations (number, applied) VALUES (?, ?)",
                         (migration.number, datetime.now(UTC).isoformat()))
            conn.execute(f"PRAGMA user_version={max(done | {migration.number})}")
    except sqlite3.OperationalError as exc:
        if any(word in str(exc) for word in _ENVIRONMENT_ERRORS):
            raise
        raise StoreError(
            f"cannot apply migration {migration.number} ({migration.name}) to session "
            f"database {path}: {exc}",
            "the database was left as it was; please report this to the goosectx maintainers",
        ) from None
