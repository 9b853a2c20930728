"""The compaction's scan state kept per session (migration 11), dropped once it is stale.

A compaction's facts scan keeps the state it reached before one message of the agent view
(:mod:`goosectx.compaction.scan_state`: its bytes are opaque here) in ``scan_state``: one row
per session, with the id and ``position`` of that message, the boundary. The state holds
what the messages before the boundary say, so triggers (migration 11) delete the row as soon
as a row at or before the boundary is deleted or changed (content, role, position, or its
metadata — a compaction hiding it, an undo showing it again, its ``message_state`` row
deleted — in ``messages`` or ``message_state``); a new token count changes nothing. An insert
has no trigger (each append would pay for it): a row inserted before the boundary changes the
state's digest, which covers the stored messages' ids up to it
(:func:`goosectx.compaction.scan_state.view_digest`).

A state is only written when no other connection committed since the session was read
(``PRAGMA data_version`` read before the load, compared in the write's transaction): a change
between the load and the write would otherwise be missed. A store opened only to read writes
none. See docs/architecture.md §8.
"""

from __future__ import annotations

import sqlite3

from goosectx.plain_record import plain_record
from goosectx.store.database import StoreDatabase


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
class StoredScanState:
    """A session's kept scan state as read before its messages (``data`` None: none)."""

    session_id: str
    data: bytes | None
    data_version: int
    """``PRAGMA data_version`` when it was read: the write checks no one committed since."""


class ScanStateStore(StoreDatabase):
    """Scan-state methods of :class:`goosectx.store.SessionStore`."""

    def read_scan_state(self, session_id: str) -> StoredScanState:
        """The session's kept scan state; read it before the session's messages."""
        with self._guard():
            version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            row = self._conn.execute("SELECT state FROM scan_state WHERE session_id=?",
                                     (session_id,)).fetchone()
        return StoredScanState(session_id, None if row is None else bytes(row[0]), version)

    def write_scan_state(self, read: StoredScanState, boundary_id: str, data: bytes) -> bool:
        """Keep ``data``, the state before the message ``boundary_id``, in one transaction.

        Written only when no other connection committed since ``read`` was made (what the
        state was made from is then what is stored) and the boundary is a message of the
        session; returns whether it was written. A read-only store writes nothing.
        """
        if self.read_only:
            return False
        with self._transaction() as conn:
            if int(conn.execute("PRAGMA data_version").fetchone()[0]) != read.data_version:
                return False
            row = conn.execute("SELECT position FROM messages WHERE id=? AND session_id=?",
                               (boundary_id, read.session_id)).fetchone()
            if row is None:
                return False
            conn.execute("INSERT OR REPLACE INTO scan_state (session_id, boundary_id,"
                         " boundary_position, state) VALUES (?, ?, ?, ?)",
                         (read.session_id, boundary_id, row[0], sqlite3.Binary(data)))
            return True
