"""The SQLite connection of the session store: opening, WAL, errors, transactions.

One file ``sessions.db`` in the data dir (WAL mode, busy timeout, created 0600 and made 0600
again on open, the data dir 0700); opening it applies the pending migrations
(:mod:`goosectx.store.migrations`). Text with lone surrogates is stored with U+FFFD in their
place (:mod:`goosectx.store.replacing`). See docs/architecture.md §8.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from goosectx.errors import DataDirUnusable, StoreCorrupt, StoreError
from goosectx.parts import compact_json
from goosectx.session import SessionState
from goosectx.store.json_read import loads as loads  # re-exported
from goosectx.store.replacing import ReplacingConnection
from goosectx.store.waiting import BUSY_TIMEOUT_MS as BUSY_TIMEOUT_MS  # re-exported
from goosectx.store.waiting import WaitNotice, begin_immediate

DB_NAME = "sessions.db"
SQLITE_FULL = 13
"""SQLite's result code for "database or disk is full"."""
DISK_FULL_BYTES = 1024 * 1024
"""Less free space than this makes a write error a "disk full" error (SQLite reports a full
disk while it writes the WAL as a plain "disk I/O error")."""


MIGRATION_NUMBERS = frozenset({1, 2, 3, 4, 5, 8, 9, 11, 12, 13, 14})
"""The numbers of this build's migrations (``migrations.MIGRATIONS``'; a test keeps the two
equal): a database that has applied exactly these is opened without loading them."""


def _migrate(conn: sqlite3.Connection, path: Path, on_wait: WaitNotice | None = None) -> None:
    """:func:`goosectx.store.migrations.migrate`, imported only when there may be work.

    A database at this build's schema — ``user_version`` its highest number, and
    ``schema_migrations`` holding exactly :data:`MIGRATION_NUMBERS` — is one ``migrate`` finds
    nothing to do in; any other (new, older, newer, odd) goes through ``migrate``, which
    applies, refuses or says why. Every command opens the store; few find a migration to run.
    """
    if conn.execute("PRAGMA user_version").fetchone()[0] == max(MIGRATION_NUMBERS):
        has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND "
                                 "name='schema_migrations'").fetchone()
        if has_table and {n for (n,) in conn.execute(
                "SELECT number FROM schema_migrations")} == MIGRATION_NUMBERS:
            return
    from goosectx.store import migrations  # (its schema texts and Migration dataclass)

    migrations.migrate(conn, path, on_wait)


def _disk_full(path: Path) -> bool:
    try:
        fs = os.statvfs(path.parent)
    except OSError:
        return False
    return fs.f_bavail * fs.f_frsize < DISK_FULL_BYTES


def free_bytes(path: Path) -> int | None:
    """Bytes free for an ordinary user on the file system holding ``path`` (``None``: unknown)."""
    try:
        fs = os.statvfs(path)
    except OSError:
        return None
    return fs.f_bavail * fs.f_frsize


def full_disk_error(data_dir: Path, what: str) -> StoreError:
    """The error of a write ``what`` (``remove session X``) a full disk refused, with the way out.

    SQLite records even a deletion in its write-ahead log first, and with no room on the disk it
    cannot (a checkpoint or another journal mode needs room too): the way out is room freed on
    that disk, or the data dir moved with its ``-wal`` file (which holds the newest changes).
    """
    free = free_bytes(data_dir)
    room = "" if free is None else f", {free:,} bytes free"
    return StoreError(
        f"disk full: cannot {what}: SQLite needs room on the disk holding {data_dir} to record "
        f"even a deletion{room}; nothing was removed",
        f"free space on that disk (files outside goosectx) and retry, or move {data_dir} with "
        f"its {DB_NAME}-wal file to a disk with room and set GOOSECTX_HOME there; never delete "
        f"{DB_NAME}-wal (it holds the newest changes) — deleting {DB_NAME} loses every session")


def on_read_only_file_system(path: Path) -> bool:
    """Whether ``path`` is on a file system mounted read-only (a CD, a ``ro`` mount)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _cannot_write(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite's error says it could not write (or make) the database or its files."""
    text = str(exc)
    return isinstance(exc, sqlite3.OperationalError) and (
        "readonly" in text or "unable to open" in text)


def now() -> str:
    """The current UTC time as stored (ISO 8601)."""
    return datetime.now(UTC).isoformat()


def stored_time(value: object) -> datetime | None:
    """A stored time read back, or ``None`` when it does not parse (a damaged row)."""
    try:
        return datetime.fromisoformat(value)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return None


dumps = compact_json
"""Compact JSON as stored (an import dumps two values a message)."""


def update_session_row(
    conn: sqlite3.Connection, session_id: str, *, model: str | None = None,
    state: SessionState | None = None, current_tokens: int | None = None,
    current_is_estimate: bool | None = None, title: str | None = None,
    approval_mode: str | None = None,
) -> None:
    """Set the session row's ``updated`` to now and each given column (caller's transaction)."""
    columns: dict[str, object] = {"updated": now()}
    if title is not None:
        columns["title"] = title
    if approval_mode is not None:
        columns["approval_mode"] = approval_mode
    if model is not None:
        columns["model"] = model
    if current_tokens is not None:
        columns["current_tokens"] = current_tokens
    if current_is_estimate is not None:
        columns["current_is_estimate"] = int(current_is_estimate)
    if state is not None:
        columns["state_json"] = dumps(state.to_dict())
    assignments = ", ".join(f"{name}=?" for name in columns)
    conn.execute(f"UPDATE sessions SET {assignments} WHERE id=?",
                 (*columns.values(), session_id))


class StoreDatabase:
    """The open database in ``data_dir``; the base of :class:`goosectx.store.SessionStore`.

    Raises (from any method):
        StoreCorrupt: the file is not a usable goosectx database (it is never overwritten).
        StoreError: the data dir or file cannot be created or written.
    """

    def __init__(self, data_dir: Path, *, read_only: bool = False,
                 on_wait: WaitNotice | None = None) -> None:
        self.data_dir = data_dir
        self.on_wait = on_wait
        """Told once a write has waited about a second for another writer (a line for the
        user, see :mod:`goosectx.store.waiting`); ``None``: wait silently."""
        self.path = data_dir / DB_NAME
        self.read_only = read_only
        """Only reads follow (``sessions show|list|search|export``): on a full disk, where the
        shared WAL index file cannot be made, the database is read with a private one."""
        self._conn = self._open()

    # -- opening and migrations -------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except (FileExistsError, NotADirectoryError):
            raise DataDirUnusable(
                f"data dir {self.data_dir} is not a directory",
                "set GOOSECTX_HOME to a directory",
            ) from None
        except OSError as exc:
            raise DataDirUnusable(
                f"cannot create data dir {self.data_dir}: {exc.strerror}",
                "set GOOSECTX_HOME to a writable directory",
            ) from None
        if self.path.is_dir():
            raise StoreCorrupt(
                f"session database {self.path} is a directory", "move it aside, then retry"
            )
        if not self.path.exists():
            try:
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
            except OSError as exc:
                raise StoreError(
                    f"cannot create session database {self.path}: {exc.strerror}",
                    "set GOOSECTX_HOME to a writable directory",
                ) from None
        self._make_private()
        old_umask = os.umask(0o077)
        try:
            with self._guard():
                try:
                    return self._connect(private_index=False)
                except sqlite3.DatabaseError as exc:
                    if self.read_only and _cannot_write(exc):
                        return self._connect_read_only()
                    if not (self.read_only and self._is_full(exc)):
                        raise
                return self._connect(private_index=True)
        finally:
            os.umask(old_umask)

    def _make_private(self) -> None:
        """Take group and other access off the data dir, the database and its -wal/-shm.

        README: files 0600, the data dir 0700 — a file copied in or a umask of 022 left them
        readable by others. Only what this user owns, never a shared (sticky) directory such
        as /tmp; a file that cannot be changed (read-only media) is left as it is.
        """
        from goosectx.private_mode import make_private

        make_private(self.data_dir, self.path, Path(f"{self.path}-wal"),
                     Path(f"{self.path}-shm"))

    def _connect(self, *, private_index: bool) -> sqlite3.Connection:
        """A connection, WAL on, migrations applied (raises sqlite3's errors as they come).

        ``private_index``: the WAL index in this process's memory instead of the shared
        ``-shm`` file, which a full disk may not let SQLite create or grow. It takes the
        database's lock until :meth:`close` (SQLite: exclusive locking mode), so it is only
        for a short read when the shared index cannot be made.
        """
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               factory=ReplacingConnection)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if private_index:  # before the first read: SQLite then never maps the -shm file
                conn.execute("PRAGMA locking_mode=EXCLUSIVE")
            self._enable_wal(conn)
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            _migrate(conn, self.path, self.on_wait)
        except BaseException:
            conn.close()
            raise
        return conn

    def _connect_read_only(self) -> sqlite3.Connection:
        """A connection that only reads, for a database this process cannot write.

        On read-only media (or a directory it may not write) SQLite cannot make the ``-shm``
        WAL index a normal open needs: ``mode=ro`` reads with an existing or new one, and when
        even that fails, ``immutable=1`` reads the file as it is (no locks, no WAL index).
        Migrations are checked, not applied: a database that needs one is refused (a write).
        """
        uri = self.path.absolute().as_uri() + "?mode=ro"
        try:
            return self._checked(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                                 isolation_level=None,
                                                 factory=ReplacingConnection))
        except sqlite3.OperationalError as exc:
            if not _cannot_write(exc):
                raise
        return self._checked(sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None,
                                             factory=ReplacingConnection))

    def _checked(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        """``conn`` once its database needs no migration (closed when it raises)."""
        try:
            _migrate(conn, self.path)
        except BaseException:
            conn.close()
            raise
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

    def _is_full(self, exc: sqlite3.DatabaseError) -> bool:
        """Whether SQLite's error means the disk is full (a WAL write says "disk I/O error")."""
        text = str(exc)
        return (getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL or "disk is full" in text
                or ("disk I/O" in text and _disk_full(self.path)))

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
            if self._is_full(exc):
                raise StoreError(
                    f"disk full: cannot write session database {self.path} ({text})",
                    "free some space and retry; the database keeps its last complete state",
                ) from None
            if isinstance(exc, sqlite3.OperationalError) and (
                "readonly" in text or "unable to open" in text or "disk I/O" in text
            ):
                if on_read_only_file_system(self.data_dir):
                    raise StoreError(
                        f"the session database {self.path} is on a read-only file system",
                        "copy it to a writable place and point GOOSECTX_HOME there",
                    ) from None
                raise StoreError(f"cannot write session database {self.path}: {text}") from None
            raise StoreCorrupt(
                f"session database {self.path} is unreadable ({text})",
                "it was left as it is; move it aside to start afresh, or restore a backup",
            ) from None

    @contextlib.contextmanager
    def _page_cache(self, kib: int) -> Iterator[None]:
        """Let this connection's page cache hold up to ``kib`` KiB in the block, then as before.

        SQLite's default is 2 MB; pages are allocated only as they are used, and the ones over
        the size are freed when it is set back.
        """
        with self._guard():
            before = int(self._conn.execute("PRAGMA cache_size").fetchone()[0])
            self._conn.execute(f"PRAGMA cache_size=-{int(kib)}")
        try:
            yield
        finally:
            with contextlib.suppress(sqlite3.Error):  # a size, nothing on disk
                self._conn.execute(f"PRAGMA cache_size={before}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``).

        Writers of the same database in this process take turns on a lock of their own first
        (:func:`_writer_lock`): a write never waits in SQLite's busy handler for a background
        thread's run of transactions (the save of first counts), whose sleeps missed the short
        gaps between them (0.5 s at 100k messages).
        """
        with _writer_lock(self.path), self._guard():
            begin_immediate(self._conn, BUSY_TIMEOUT_MS, self.on_wait)
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (a full disk ends the transaction): the
                # error to tell is the one that ended it, not "no transaction is active"
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                raise

    def write_transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One write transaction on the store's own connection, for code outside the class.

        The store's own: its commit is not another connection's, which would stop a scan
        state read before it from being kept (:mod:`goosectx.store.scan_state`); used by
        :mod:`goosectx.store.shapes`.
        """
        return self._transaction()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


_WRITERS: dict[str, threading.RLock] = {}
_WRITERS_GUARD = threading.Lock()


def _writer_lock(path: Path) -> threading.RLock:
    """The lock this process's writers of the database at ``path`` take turns on."""
    with _WRITERS_GUARD:
        lock = _WRITERS.get(str(path))
        if lock is None:
            lock = _WRITERS[str(path)] = threading.RLock()
        return lock
