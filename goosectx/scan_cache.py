"""The session store as the compaction's scan cache (``compaction.scan_state.ScanCache``).

The state the facts scan keeps between processes (docs/architecture.md §5, §8) is read before
the session's messages (:meth:`~goosectx.store.SessionStore.read_scan_state`) and written back
by a dry run; a real compaction only reads it, as the history it rewrites drops it. A state is
a cache: any failure to read or write it leaves the scan to read the whole view.
"""

from __future__ import annotations

import sqlite3

from goosectx.errors import StoreError
from goosectx.store import SessionStore
from goosectx.store.scan_state import StoredScanState


class StoreScanCache:
    """One session's kept scan state, read when this is made (before the session loads)."""

    def __init__(self, store: SessionStore, read: StoredScanState, *, keep: bool) -> None:
        self._store = store
        self._read = read
        self._keep = keep

    @classmethod
    def read(cls, store: SessionStore, session_id: str, *, keep: bool) -> StoreScanCache | None:
        """The session's state as stored now; ``keep``: write the new state back (a dry run)."""
        try:
            return cls(store, store.read_scan_state(session_id), keep=keep)
        except (StoreError, sqlite3.Error):
            return None

    def load(self) -> bytes | None:
        """The kept state, read before the session's messages (None: none)."""
        return self._read.data

    def save(self, boundary_id: str, data: bytes) -> None:
        """Keep the new state (a dry run's), unless another process wrote since the read."""
        if not self._keep:
            return
        try:
            self._store.write_scan_state(self._read, boundary_id, data)
        except (StoreError, sqlite3.Error):
            pass  # a cache: the next compaction scans the whole view
