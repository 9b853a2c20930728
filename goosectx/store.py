"""SQLite session store: sessions, messages, usage ledger, numbered migrations, locks.

One file ``sessions.db`` in the data dir (WAL mode, busy timeout, created 0600). Messages are
ordered by a REAL ``position`` so a message can be inserted between two others (tool-pair
notes go where the pair stood). Appending writes one row; replacing the agent-visible history
is one transaction, so a crash leaves the old or the new history, never a mix.

The store is written only by :class:`goosectx.recorder.SessionRecorder` (and by importers and
CLI maintenance commands); the agent loop and compaction never touch it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from goosectx.conversation import Conversation, Message
from goosectx.errors import (
    SessionAmbiguous,
    SessionInUse,
    SessionNameTaken,
    SessionNotFound,
    StoreCorrupt,
    StoreError,
)
from goosectx.session import Session, SessionState, new_session_id
from goosectx.testhooks import pause_point
from goosectx.usage import LedgerEntry, Usage, UsageLedger

DB_NAME = "sessions.db"
BUSY_TIMEOUT_MS = 5000

MIGRATIONS: list[str] = [
    # 1: initial schema
    """
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
    """,
]


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of ``sessions list``."""

    id: str
    name: str | None
    working_dir: str
    model: str | None
    created: datetime
    updated: datetime
    message_count: int
    current_tokens: int


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class SessionStore:
    """The SQLite session database in ``data_dir``.

    Raises (from any method):
        StoreCorrupt: the file is not a usable goosectx database (it is never overwritten).
        StoreError: the data dir or file cannot be created or written.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / DB_NAME
        self._conn = self._open()

    # -- opening and migrations -------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except (FileExistsError, NotADirectoryError):
            raise StoreError(
                f"data dir {self.data_dir} is not a directory",
                "set GOOSECTX_HOME to a directory",
            ) from None
        except OSError as exc:
            raise StoreError(
                f"cannot create data dir {self.data_dir}: {exc.strerror}",
                "set GOOSECTX_HOME to a writable directory",
            ) from None
        if self.path.is_dir():
            raise StoreCorrupt(
                f"session database {self.path} is a directory", "move it aside, then retry"
            )
        if not self.path.exists():
            try:
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            except OSError as exc:
                raise StoreError(
                    f"cannot create session database {self.path}: {exc.strerror}",
                    "set GOOSECTX_HOME to a writable directory",
                ) from None
        old_umask = os.umask(0o077)
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            with self._guard():
                conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
                self._enable_wal(conn)
                conn.execute("PRAGMA foreign_keys=ON")
                conn.execute("PRAGMA synchronous=NORMAL")
                self._migrate(conn)
        finally:
            os.umask(old_umask)
        return conn

    @staticmethod
    def _enable_wal(conn: sqlite3.Connection) -> None:
        """Switch the database to WAL, retrying while another process holds the file.

        The switch needs an exclusive lock SQLite does not wait for (no busy handler), so when
        several processes open a new database at once, retry for up to the busy timeout.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StoreError(
                f"session database {self.path} has schema version {version}, newer than this "
                f"goosectx understands ({len(MIGRATIONS)})",
                "upgrade goosectx",
            )
        if version == 0:
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:  # ours if another process migrated it since the first read
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            if tables and version == 0:
                raise StoreCorrupt(
                    f"{self.path} is an SQLite file but not a goosectx session database",
                    "move it aside or set GOOSECTX_HOME to another directory",
                )
        for number in range(version, len(MIGRATIONS)):
            # One transaction per migration; executescript would commit a pending one first.
            script = (f"BEGIN IMMEDIATE;{MIGRATIONS[number]};"
                      f"PRAGMA user_version={number + 1};COMMIT;")
            try:
                conn.executescript(script)
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                # Two processes opening a new database at once: the second waited on BEGIN
                # IMMEDIATE, then found the tables made. The migration is done; go on.
                if (isinstance(exc, sqlite3.OperationalError)
                        and conn.execute("PRAGMA user_version").fetchone()[0] > number):
                    continue
                raise

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise StoreError(
                    f"session database {self.path} is busy: {text}", "retry in a moment"
                ) from None
            if isinstance(exc, sqlite3.OperationalError) and (
                "readonly" in text or "unable to open" in text or "disk I/O" in text
            ):
                raise StoreError(f"cannot write session database {self.path}: {text}") from None
            raise StoreCorrupt(
                f"session database {self.path} is unreadable ({text})",
                "it was left as it is; move it aside to start afresh, or restore a backup",
            ) from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._guard():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    # -- sessions ---------------------------------------------------------------------------
    def create_session(
        self,
        working_dir: Path,
        *,
        name: str | None = None,
        model: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Session:
        """Create an empty session.

        Raises:
            SessionNameTaken: ``name`` belongs to another session.
        """
        now = datetime.now(UTC)
        session = Session(
            new_session_id(now), name, working_dir.resolve(), model, now, now,
            metadata=dict(metadata or {}),
        )
        with self._transaction() as conn:
            self._insert_session(conn, session)
        return session

    def _insert_session(self, conn: sqlite3.Connection, session: Session) -> None:
        if session.name is not None:
            row = conn.execute("SELECT id FROM sessions WHERE name=?", (session.name,)).fetchone()
            if row:
                raise SessionNameTaken(
                    f"a session named {session.name!r} already exists ({row[0]})",
                    f"continue it with --resume {session.name}, or pick another --name",
                )
        while conn.execute("SELECT 1 FROM sessions WHERE id=?", (session.id,)).fetchone():
            session.id = new_session_id(session.created)
        conn.execute(
            "INSERT INTO sessions (id, name, working_dir, model, created, updated, current_tokens,"
            " current_is_estimate, state_json, metadata_json) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                session.id, session.name, str(session.working_dir), session.model,
                session.created.isoformat(), session.updated.isoformat(),
                session.ledger.current_tokens, int(session.ledger.current_is_estimate),
                _dumps(session.state.to_dict()), _dumps(session.metadata),
            ),
        )

    def save_new_session(self, session: Session) -> Session:
        """Insert a complete session (an import) in one transaction: all or nothing.

        A new id is drawn if ``session.id`` is taken.

        Raises:
            SessionNameTaken: ``session.name`` belongs to another session.
        """
        with self._transaction() as conn:
            self._insert_session(conn, session)
            conn.executemany(
                "INSERT INTO messages (id, session_id, position, role, created, content_json,"
                " metadata_json) VALUES (?,?,?,?,?,?,?)",
                [self._row(session.id, float(i + 1), m)
                 for i, m in enumerate(session.conversation)],
            )
            for entry in session.ledger.entries:
                self._insert_ledger(conn, session.id, entry)
        return session

    def resolve(self, ref: str) -> str:
        """Resolve SESSION: an exact name, else an exact id, else a unique id prefix.

        Raises:
            SessionNotFound: nothing matches.
            SessionAmbiguous: the prefix matches several ids.
        """
        with self._guard():
            row = self._conn.execute("SELECT id FROM sessions WHERE name=?", (ref,)).fetchone()
            if row:
                return str(row[0])
            row = self._conn.execute("SELECT id FROM sessions WHERE id=?", (ref,)).fetchone()
            if row:
                return str(row[0])
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = self._conn.execute(
                "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 6",
                (escaped + "%",),
            ).fetchall()
        if not rows or not ref:
            raise SessionNotFound(
                f"no session matches {ref!r}", "list them with: goosectx sessions list"
            )
        if len(rows) > 1:
            shown = ", ".join(r[0] for r in rows[:5])
            raise SessionAmbiguous(
                f"{ref!r} matches several sessions ({shown})", "type more of the id"
            )
        return str(rows[0][0])

    def most_recent(self, working_dir: Path) -> str | None:
        """Id of the most recently updated session in ``working_dir``, or ``None``."""
        with self._guard():
            row = self._conn.execute(
                "SELECT id FROM sessions WHERE working_dir=? ORDER BY updated DESC, id DESC"
                " LIMIT 1",
                (str(working_dir.resolve()),),
            ).fetchone()
        return str(row[0]) if row else None

    def list_sessions(self) -> list[SessionSummary]:
        """Every session, most recently updated first."""
        with self._guard():
            rows = self._conn.execute(
                "SELECT s.id, s.name, s.working_dir, s.model, s.created, s.updated,"
                " (SELECT count(*) FROM messages m WHERE m.session_id=s.id), s.current_tokens"
                " FROM sessions s ORDER BY s.updated DESC, s.id DESC"
            ).fetchall()
        return [
            SessionSummary(r[0], r[1], r[2], r[3], datetime.fromisoformat(r[4]),
                           datetime.fromisoformat(r[5]), r[6], r[7])
            for r in rows
        ]

    def load(self, session_id: str) -> Session:
        """Load a whole session (messages in position order, ledger oldest first).

        Raises:
            SessionNotFound: no session has this id.
            StoreCorrupt: a stored message does not parse.
        """
        with self._guard():
            row = self._conn.execute(
                "SELECT id, name, working_dir, model, created, updated, current_tokens,"
                " current_is_estimate, state_json, metadata_json FROM sessions WHERE id=?",
                (session_id,),
            ).fetchone()
            if row is None:
                raise SessionNotFound(
                    f"no session with id {session_id!r}", "list them with: goosectx sessions list"
                )
            msg_rows = self._conn.execute(
                "SELECT id, role, created, content_json, metadata_json FROM messages"
                " WHERE session_id=? ORDER BY position",
                (session_id,),
            ).fetchall()
            ledger_rows = self._conn.execute(
                "SELECT created, model, purpose, input_tokens, output_tokens, total_tokens,"
                " cache_read_tokens, cache_write_tokens, cost_usd FROM usage_ledger"
                " WHERE session_id=? ORDER BY id",
                (session_id,),
            ).fetchall()
        messages = []
        for mid, role, created, content_json, metadata_json in msg_rows:
            try:
                messages.append(Message.from_dict({
                    "id": mid, "role": role, "created": created,
                    "content": json.loads(content_json), "metadata": json.loads(metadata_json),
                }))
            except (ValueError, TypeError) as exc:
                raise StoreCorrupt(
                    f"message {mid} of session {session_id} in {self.path} is unreadable: {exc}",
                    "the database was left as it is; export what remains or restore a backup",
                ) from None
        ledger = UsageLedger(
            [
                LedgerEntry(Usage(r[3], r[4], r[5], r[6], r[7], r[8]), r[1], r[2],
                            datetime.fromisoformat(r[0]))
                for r in ledger_rows
            ],
            current_tokens=row[6],
            current_is_estimate=bool(row[7]),
        )
        return Session(
            id=row[0], name=row[1], working_dir=Path(row[2]), model=row[3],
            created=datetime.fromisoformat(row[4]), updated=datetime.fromisoformat(row[5]),
            conversation=Conversation(messages), ledger=ledger,
            state=SessionState.from_dict(json.loads(row[8] or "{}")),
            metadata=json.loads(row[9] or "{}"),
        )

    def message_count(self, session_id: str) -> int:
        """Number of stored messages of a session (visible or not)."""
        with self._guard():
            row = self._conn.execute(
                "SELECT count(*) FROM messages WHERE session_id=?", (session_id,)
            ).fetchone()
        return int(row[0])

    def remove(self, session_id: str) -> None:
        """Delete a session with its messages and ledger (one transaction)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM messages WHERE session_id=?", (session_id,))
            conn.execute("DELETE FROM usage_ledger WHERE session_id=?", (session_id,))
            conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))

    def update_session(
        self, session_id: str, *, model: str | None = None, state: SessionState | None = None,
        current_tokens: int | None = None, current_is_estimate: bool | None = None,
    ) -> None:
        """Update the session row's model, state and/or ``current`` figure."""
        with self._transaction() as conn:
            self._update_row(conn, session_id, model=model, state=state,
                             current_tokens=current_tokens,
                             current_is_estimate=current_is_estimate)

    @staticmethod
    def _update_row(
        conn: sqlite3.Connection, session_id: str, *, model: str | None = None,
        state: SessionState | None = None, current_tokens: int | None = None,
        current_is_estimate: bool | None = None,
    ) -> None:
        """Set ``updated`` to now and each given column, inside the caller's transaction."""
        columns: dict[str, object] = {"updated": _now()}
        if model is not None:
            columns["model"] = model
        if current_tokens is not None:
            columns["current_tokens"] = current_tokens
        if current_is_estimate is not None:
            columns["current_is_estimate"] = int(current_is_estimate)
        if state is not None:
            columns["state_json"] = _dumps(state.to_dict())
        assignments = ", ".join(f"{name}=?" for name in columns)
        conn.execute(f"UPDATE sessions SET {assignments} WHERE id=?",
                     (*columns.values(), session_id))

    # -- messages ---------------------------------------------------------------------------
    @staticmethod
    def _row(session_id: str, position: float, message: Message) -> tuple[Any, ...]:
        data = message.to_dict()
        return (
            message.id, session_id, position, message.role, data["created"],
            _dumps(data["content"]), _dumps(data["metadata"]),
        )

    def append_message(self, session_id: str, message: Message) -> None:
        """Append one message: one row (and the session's ``updated`` stamp)."""
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT max(position) FROM messages WHERE session_id=?", (session_id,)
            ).fetchone()
            position = (row[0] or 0.0) + 1.0
            conn.execute(
                "INSERT INTO messages (id, session_id, position, role, created, content_json,"
                " metadata_json) VALUES (?,?,?,?,?,?,?)",
                self._row(session_id, position, message),
            )
            conn.execute("UPDATE sessions SET updated=? WHERE id=?", (_now(), session_id))

    def replace_history(
        self,
        session_id: str,
        conversation: Conversation,
        *,
        ledger_entry: LedgerEntry | None = None,
        current_tokens: int | None = None,
        current_is_estimate: bool | None = None,
        state: SessionState | None = None,
    ) -> None:
        """Make the stored history equal ``conversation`` in ONE transaction.

        Existing messages keep their position and get their metadata rewritten when it
        changed; new messages are inserted between their neighbours. Stored messages missing
        from ``conversation`` are kept (nothing is ever deleted). Optionally records a ledger
        entry, the new ``current`` figure and the session state in the same transaction.
        """
        with self._transaction() as conn:
            stored = {
                r[0]: (r[1], r[2])
                for r in conn.execute(
                    "SELECT id, position, metadata_json FROM messages WHERE session_id=?",
                    (session_id,),
                )
            }
            positions = self._plan_positions(conversation.messages, stored)
            if positions is None:
                positions = [float(i + 1) for i in range(len(conversation.messages))]
                known = [m.id for m in conversation.messages]
                leftovers = sorted(
                    (pos, mid) for mid, (pos, _) in stored.items() if mid not in set(known)
                )
                # Messages not in the new list go after it, in their old order.
                conn.executemany(
                    "UPDATE messages SET position=? WHERE id=?",
                    [(float(len(known) + 1 + i), mid) for i, (_, mid) in enumerate(leftovers)],
                )
                conn.executemany(
                    "UPDATE messages SET position=? WHERE id=?",
                    [(p, m.id) for p, m in zip(positions, conversation.messages, strict=True)
                     if m.id in stored],
                )
            inserts, updates = [], []
            for pos, m in zip(positions, conversation.messages, strict=True):
                if m.id not in stored:
                    inserts.append(self._row(session_id, pos, m))
                else:
                    meta = _dumps(m.metadata.to_dict())
                    if meta != stored[m.id][1]:
                        updates.append((meta, m.id))
            conn.executemany("UPDATE messages SET metadata_json=? WHERE id=?", updates)
            conn.executemany(
                "INSERT INTO messages (id, session_id, position, role, created, content_json,"
                " metadata_json) VALUES (?,?,?,?,?,?,?)",
                inserts,
            )
            if ledger_entry is not None:
                self._insert_ledger(conn, session_id, ledger_entry)
            self._update_row(conn, session_id, state=state, current_tokens=current_tokens,
                             current_is_estimate=current_is_estimate)
            pause_point("replace_history:before_commit")
        pause_point("replace_history:after_commit")

    @staticmethod
    def _plan_positions(
        messages: list[Message], stored: dict[str, tuple[float, str]]
    ) -> list[float] | None:
        """Positions keeping stored ones; new messages between neighbours. ``None`` = renumber."""
        positions: list[float] = []
        last = 0.0
        for i, m in enumerate(messages):
            if m.id in stored:
                pos = stored[m.id][0]
                if pos <= last and positions:
                    return None
                positions.append(pos)
                last = pos
                continue
            nxt = next((stored[n.id][0] for n in messages[i + 1:] if n.id in stored), None)
            if nxt is None:
                pos = float(math.floor(last)) + 1.0
            else:
                # Leave room for the run of new messages still to come before ``nxt``.
                run = next((k for k, n in enumerate(messages[i:]) if n.id in stored), 1)
                pos = last + (nxt - last) / (run + 1)
            if pos <= last or (nxt is not None and pos >= nxt):
                return None
            positions.append(pos)
            last = pos
        return positions

    # -- usage ------------------------------------------------------------------------------
    @staticmethod
    def _insert_ledger(conn: sqlite3.Connection, session_id: str, entry: LedgerEntry) -> None:
        u = entry.usage
        conn.execute(
            "INSERT INTO usage_ledger (session_id, created, model, purpose, is_compaction,"
            " input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens,"
            " cost_usd) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (session_id, entry.created.isoformat(), entry.model, entry.purpose,
             int(entry.is_compaction), u.input_tokens, u.output_tokens, u.total_tokens,
             u.cache_read_tokens, u.cache_write_tokens, u.cost_usd),
        )

    def add_usage(
        self, session_id: str, entry: LedgerEntry, *, current_tokens: int, is_estimate: bool
    ) -> None:
        """Record one billed call and the new ``current`` figure (one transaction)."""
        with self._transaction() as conn:
            self._insert_ledger(conn, session_id, entry)
            conn.execute(
                "UPDATE sessions SET current_tokens=?, current_is_estimate=?, updated=?,"
                " model=coalesce(model, ?) WHERE id=?",
                (current_tokens, int(is_estimate), _now(), entry.model, session_id),
            )

    # -- locking ----------------------------------------------------------------------------
    def lock(self, session_id: str) -> SessionLock:
        """Take the driver lock on a session (see :class:`SessionLock`).

        Raises:
            SessionInUse: another live process holds it.
            StoreError: the lock file cannot be created (e.g. ``locks`` is a file).
        """
        return SessionLock(self.data_dir / "locks" / f"{session_id}.lock", session_id)


class SessionLock:
    """An exclusive ``flock`` on ``locks/<session id>.lock`` holding the owner's PID.

    The kernel drops it when the process dies (even by SIGKILL), so a crash never leaves a
    session locked. Use as a context manager or call :meth:`release`.
    """

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StoreError(
                f"cannot create the session lock {path}: {exc.strerror}",
                f"make {path.parent} a writable directory (move aside what is there)",
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                pid = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            finally:
                os.close(fd)
            raise SessionInUse(
                f"session {session_id} is in use by PID {pid}",
                "finish or close that goosectx first, or start a new session",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd: int | None = fd

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SessionLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
