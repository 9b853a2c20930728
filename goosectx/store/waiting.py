"""Taking the session database's write lock, and saying so when that means waiting.

SQLite waits for another writer in its busy handler, silently (Python's sqlite3 offers no
busy handler to print from). :func:`begin_immediate` first waits :data:`NOTICE_AFTER_MS`;
when the lock is still taken then, it calls ``on_wait`` once (the command prints one line)
and waits out the rest of the busy timeout. A wait that ends in failure raises SQLite's
"database is locked", as before.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable

BUSY_TIMEOUT_MS = 5000
"""How long a statement waits for another process's lock before it fails "busy"."""
NOTICE_AFTER_MS = 1000
WAITING_TEXT = "waiting for another goosectx that is writing the session database…"

WaitNotice = Callable[[str], None]
"""Called with :data:`WAITING_TEXT` when a write has waited about a second."""


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def begin_immediate(conn: sqlite3.Connection, timeout_ms: int,
                    on_wait: WaitNotice | None) -> None:
    """``BEGIN IMMEDIATE`` on ``conn`` (busy timeout ``timeout_ms``), announcing a long wait."""
    first = min(NOTICE_AFTER_MS, timeout_ms)
    if on_wait is None or first >= timeout_ms:
        conn.execute("BEGIN IMMEDIATE")
        return
    conn.execute(f"PRAGMA busy_timeout={first}")
    try:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
        with contextlib.suppress(Exception):  # a closed stderr does not stop the write
            on_wait(WAITING_TEXT)
        conn.execute(f"PRAGMA busy_timeout={timeout_ms - first}")
        conn.execute("BEGIN IMMEDIATE")
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute(f"PRAGMA busy_timeout={timeout_ms}")
