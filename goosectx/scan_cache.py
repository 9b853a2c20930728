"""The session store as the compaction's scan cache (``compaction.scan_state.ScanCache``).

The state the facts scan keeps between processes (docs/architecture.md §5, §8) is read before
the session's messages (:meth:`~goosectx.store.SessionStore.read_scan_state`) and written back
by a dry run; a real compaction only reads it, as the history it rewrites drops it. A state is
a cache: any failure to read or write it leaves the scan to read the whole view.

``goosectx compact`` reads it once, before the session loads (:class:`StoreScanCache`); the REPL
and ``run`` compact a session they hold locked and keep saved as it changes, any number of times,
on the turn's thread, so theirs (:class:`LockedScanCache`) reads it when a compaction asks.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

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


class LockedScanCache:
    """The kept state of a session this process holds locked, read when a compaction asks.

    The REPL's and ``run``'s compactions (``/compact`` and automatic ones) run on the turn's
    thread, and there may be several in one process: each reads the state as stored then,
    through a read-only connection of its own (the store's belongs to the main thread). The
    lock keeps every other writer of the session's messages out, and each event is saved as
    it comes, so what is stored is what is in memory up to the state's boundary (the digest
    checks the rest, :mod:`goosectx.compaction.facts_scan`). As ``goosectx compact``'s real
    run, it keeps no new state: the history the compaction rewrites drops it.
    """

    def __init__(self, data_dir: Path, session_id: str) -> None:
        self._data_dir = data_dir
        self._session_id = session_id

    def load(self) -> bytes | None:
        """The state kept now (None: none, or the store could not be read)."""
        try:
            store = SessionStore(self._data_dir, read_only=True)
        except (StoreError, sqlite3.Error, OSError):
            return None
        try:
            return store.read_scan_state(self._session_id).data
        except (StoreError, sqlite3.Error):
            return None
        finally:
            store.close()

    def save(self, boundary_id: str, data: bytes) -> None:
        """Keep nothing (a real compaction's state would be dropped with its head)."""
