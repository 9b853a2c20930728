"""Migration 4 (titles + FTS5 index) on a stored 10,000-message session, and the append cost.

``python bench/search_migration.py [--messages N]`` writes a generated session
(``scale_data.generate``: ~18 MB of text) with the real store, turns the database back into
one from before migration 4 (index tables, triggers, titles and its bookkeeping row removed),
then times opening it (which applies migration 4) against ``SessionStore.load`` of the same
session in the same run. It also times appending 2,000 messages with the index triggers
against the same appends into a store whose SQLite "lacks" FTS5 (no triggers). Prints the
figures and their ratios; data lives in a temporary directory that is removed.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from scale_data import generate, seed_data_dir

APPENDS = 2_000


def _strip_migration_4(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        for kind, name in conn.execute(
                "SELECT type, name FROM sqlite_master WHERE type='trigger'"
                " AND name LIKE '%_index_%'").fetchall():
            conn.execute(f"DROP {kind.upper()} {name}")
        conn.execute("DROP TABLE IF EXISTS message_index")
        conn.execute("DROP TABLE IF EXISTS title_index")
        conn.execute("UPDATE sessions SET title=NULL")
        # the seeded session was saved as an import is: waiting for the index, which
        # migration 4 is now to build whole
        conn.execute("UPDATE sessions SET unindexed_from=NULL, unindexed_to=NULL")
        conn.execute("DELETE FROM schema_migrations WHERE number=4")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _appends(data: Path, messages: list) -> float:
    from goosectx.store import SessionStore

    store = SessionStore(data)
    session = store.create_session(data)
    start = time.perf_counter()
    for m in messages:
        store.append_message(session.id, m)
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    from goosectx.store import SessionStore
    from goosectx.store import search_index as index

    tmp = Path(tempfile.mkdtemp(prefix="goosectx-bench-search-"))
    try:
        data = tmp / "data"
        session_id = seed_data_dir(data, args.messages, tmp)
        _strip_migration_4(data / "sessions.db")
        start = time.perf_counter()
        store = SessionStore(data)  # applies migration 4
        migrate_s = time.perf_counter() - start
        indexed = store._conn.execute("SELECT count(*) FROM message_index").fetchone()[0]
        start = time.perf_counter()
        store.load(session_id)
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        hits = store.search("turn 42")
        search_ms = (time.perf_counter() - start) * 1000
        store.close()
        print(f"migration 4 on {args.messages:,} messages ({indexed:,} indexed): "
              f"{migrate_s:.2f} s; load of the same session {load_s:.2f} s "
              f"({migrate_s / load_s:.1f}x); a search: {search_ms:.1f} ms, {len(hits)} hit(s)")

        messages = list(generate(APPENDS, seed=5))
        with_index = _appends(tmp / "with", messages)
        real = index.fts5_available
        index.fts5_available = lambda conn: False  # type: ignore[assignment]
        try:
            without = _appends(tmp / "without", messages)
        finally:
            index.fts5_available = real  # type: ignore[assignment]
        print(f"append, mean of {APPENDS:,}: {with_index / APPENDS * 1000:.3f} ms with the index, "
              f"{without / APPENDS * 1000:.3f} ms without ({with_index / without:.2f}x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
