"""A billed call our estimate stands for reads back marked after a reopen (migration 13).

comp27 bills a summary reply stopped past twice its budget with an estimate
(``Usage.estimated``), but the ledger table had no column for it: a reopened session showed the
estimate as the provider's report. Migration 13 adds ``usage_ledger.estimated``; a database
from before it opens, keeps its rows (reported) and stores the mark from then on.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from goosectx.store import MIGRATIONS, SessionStore
from goosectx.store import migrations as migrations_module
from goosectx.usage import LedgerEntry, Usage

REPORTED = Usage(1200, 300, 1500, cost_usd=0.01)
ESTIMATED = Usage(900, 4100, 5000, cost_usd=0.05, estimated=True)


def _add(store: SessionStore, session_id: str, usage: Usage) -> None:
    store.add_usage(session_id, LedgerEntry(usage, "openai/gpt-4o-mini", "compaction"),
                    current_tokens=100, is_estimate=False)


def test_a_stored_estimate_reads_back_marked_and_a_report_unmarked(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d")
    session = store.create_session(tmp_path, name="est")
    _add(store, session.id, REPORTED)
    _add(store, session.id, ESTIMATED)
    store.close()
    store = SessionStore(tmp_path / "d")
    ledger = store.load(session.id).ledger
    store.close()
    assert [e.usage.estimated for e in ledger.entries] == [False, True]
    assert [e.usage for e in ledger.entries] == [REPORTED, ESTIMATED]


def test_a_database_from_before_migration_13_opens_and_keeps_its_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrations_module, "MIGRATIONS",
                        tuple(m for m in MIGRATIONS if m.number != 13))
    store = SessionStore(tmp_path / "d")  # a build without migration 13
    session = store.create_session(tmp_path, name="old")
    store.close()
    db = tmp_path / "d" / "sessions.db"
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO usage_ledger (session_id, created, model, purpose, is_compaction,"
                 " input_tokens, output_tokens, total_tokens, cost_usd) VALUES"
                 " (?, '2026-01-01T00:00:00+00:00', 'openai/x', 'reply', 0, 10, 5, 15, 0.001)",
                 (session.id,))
    conn.commit()
    conn.close()
    monkeypatch.setattr(migrations_module, "MIGRATIONS", MIGRATIONS)
    store = SessionStore(tmp_path / "d")
    _add(store, session.id, ESTIMATED)
    store.close()
    store = SessionStore(tmp_path / "d")
    entries = store.load(session.id).ledger.entries
    store.close()
    assert [(e.usage.total_tokens, e.usage.estimated) for e in entries] == [(15, False),
                                                                             (5000, True)]
    conn = sqlite3.connect(db)
    assert 13 in {r[0] for r in conn.execute("SELECT number FROM schema_migrations")}
    conn.close()
