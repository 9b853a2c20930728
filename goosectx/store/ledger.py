"""The usage ledger table: one row per billed call, oldest first (docs/architecture.md §8).

A row billed with our estimate (:attr:`goosectx.usage.Usage.estimated`) keeps that mark in
``estimated`` (migration 13; 0 for every row from before it).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from goosectx.session import SessionState
from goosectx.store.database import StoreDatabase, dumps, now
from goosectx.usage import LedgerEntry, Usage


def insert_ledger(conn: sqlite3.Connection, session_id: str, entry: LedgerEntry) -> None:
    """Insert one ledger row inside the caller's transaction."""
    u = entry.usage
    conn.execute(
        "INSERT INTO usage_ledger (session_id, created, model, purpose, is_compaction,"
        " input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens,"
        " cost_usd, estimated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (session_id, entry.created.isoformat(), entry.model, entry.purpose,
         int(entry.is_compaction), u.input_tokens, u.output_tokens, u.total_tokens,
         u.cache_read_tokens, u.cache_write_tokens, u.cost_usd, int(u.estimated)),
    )


def read_ledger(conn: sqlite3.Connection, session_id: str) -> list[LedgerEntry]:
    """A session's ledger entries, oldest first."""
    rows = conn.execute(
        "SELECT created, model, purpose, input_tokens, output_tokens, total_tokens,"
        " cache_read_tokens, cache_write_tokens, cost_usd, estimated FROM usage_ledger"
        " WHERE session_id=? ORDER BY id",
        (session_id,),
    ).fetchall()
    return [
        LedgerEntry(Usage(r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9])), r[1], r[2],
                    datetime.fromisoformat(r[0]))
        for r in rows
    ]


class LedgerStore(StoreDatabase):
    """Usage methods of :class:`goosectx.store.SessionStore`."""

    def add_usage(
        self, session_id: str, entry: LedgerEntry, *, current_tokens: int, is_estimate: bool,
        state: SessionState | None = None,
    ) -> None:
        """Record one billed call, the new ``current`` figure and the state (one transaction)."""
        with self._transaction() as conn:
            insert_ledger(conn, session_id, entry)
            if state is not None:
                conn.execute("UPDATE sessions SET state_json=? WHERE id=?",
                             (dumps(state.to_dict()), session_id))
            conn.execute(
                "UPDATE sessions SET current_tokens=?, current_is_estimate=?, updated=?,"
                " model=coalesce(model, ?) WHERE id=?",
                (current_tokens, int(is_estimate), now(), entry.model, session_id),
            )
