"""An import keeps the store in WAL mode: another open connection reads along, a full disk
leaves the store as it was (readable, searchable).

(A rollback journal for a lone import was measured — 100k: CPU 6.59 → 5.42 s — and not kept:
a command that only reads, started while the import writes, would wait and fail "busy".)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.conversation import Conversation, Message
from goosectx.store import SessionStore


def _imported(store: SessionStore, work: Path, n: int) -> str:
    session = store.create_session(work, name="seed")
    store.remove(session.id)
    session.name = "imported"
    session.conversation = Conversation(
        [Message.user(f"request {i} about the quokka") if i % 2 == 0
         else Message.assistant(f"answer {i}") for i in range(n)])
    return store.save_new_session(session).id


def test_an_import_while_another_connection_is_open_stays_in_wal_mode(
        tmp_path: Path, work: Path) -> None:
    other = SessionStore(tmp_path / "d")
    other.list_sessions()
    store = SessionStore(tmp_path / "d")
    try:
        sid = _imported(store, work, 40)
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert len(other.load(sid).conversation.messages) == 40
    finally:
        store.close()
        other.close()


def test_an_import_that_fills_the_disk_leaves_the_store_as_it_was(
        tmp_path: Path, work: Path) -> None:
    from disk_support import small_tmpfs

    from goosectx.errors import StoreError

    with small_tmpfs(tmp_path, "1m", "cannot mount a tmpfs here") as disk:
        store = SessionStore(disk / "d")
        try:
            kept = _imported(store, work, 4)
            session = store.load(kept)
            session.id, session.name = "20260101_000000_beef", "big"
            session.import_hash = None
            session.conversation = Conversation(
                [Message.user(f"{i} " + "quokka " * 400) for i in range(1_000)])  # ~2.8 MB
            with pytest.raises(StoreError) as exc:
                store.save_new_session(session)
            assert "disk full" in exc.value.one_line()
        finally:
            store.close()
        store = SessionStore(disk / "d")
        try:
            assert [s.name for s in store.list_sessions()] == ["imported"]
            assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert [h.name for h in store.search("quokka")] == ["imported"]
        finally:
            store.close()


def test_a_full_disk_that_ended_the_transaction_is_told_as_a_full_disk(
        tmp_path: Path, work: Path) -> None:
    """SQLite rolls a transaction back itself on SQLITE_FULL; the store's own ROLLBACK then
    failed ("no transaction is active") and the user read "unreadable … move it aside"."""
    import sqlite3

    from goosectx.errors import StoreCorrupt, StoreError

    store = SessionStore(tmp_path / "d")
    try:
        sid = _imported(store, work, 4)
        with pytest.raises(StoreError) as exc, store._transaction() as conn:
            conn.execute("ROLLBACK")  # as SQLite does when the disk fills mid-statement
            raise sqlite3.OperationalError("database or disk is full")
        assert not isinstance(exc.value, StoreCorrupt)
        assert "disk full" in exc.value.one_line()
        assert len(store.load(sid).conversation.messages) == 4
    finally:
        store.close()
