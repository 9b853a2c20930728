"""The summary ladder's result figures kept with the shapes (migration 14, store/shapes_lines.py).

What a user would notice: a repeated ``compact --dry-run`` prints the same plan as one that
reads every tool output, while it reads fewer outputs; figures of another build or another
``summary_result_chars`` are not used; a database from before migration 14 opens and gets
them at first need.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli
from compaction_support import chat, tool_pair, words
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer

import goosectx.store.shapes as shapes_module
from goosectx.compaction.results import kept_key
from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.store import SessionStore
from goosectx.store.shape_outputs import Outputs

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")

VARIANTS = ([], ["--json"])


@pytest.fixture
def model(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    monkeypatch.setenv("GOOSE_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "30000")  # the results do not all fit
    return fake_server


def _session() -> str:
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.create_session(Path.cwd(), name="work")
        out: list[Message] = []
        for turn in range(40):
            out += chat(1)
            out += tool_pair("\n".join(words(12, f"o{turn}x{j}") for j in range(30 + turn)),
                             args={"command": f"ls {turn}"})
            out.append(Message.assistant(f"done with step {turn}"))
        out.append(Message.user("now write the docs"))
        for m in out:
            store.append_message(session.id, m)
        return session.id
    finally:
        store.close()


def _conn() -> sqlite3.Connection:
    return sqlite3.connect(load_settings().data_dir / "sessions.db", isolation_level=None)


def _kept() -> list[str]:
    conn = _conn()
    try:
        return [text for (text,) in conn.execute(
            "SELECT result_lines FROM message_shapes WHERE result_lines IS NOT NULL")]
    finally:
        conn.close()


def _plans(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
           ) -> tuple[list[str], int]:
    """The plans, and how many tool outputs they read from the store."""
    reads = [0]
    original = Outputs.read

    def counted(self: Outputs, mid: str) -> None:
        reads[0] += 1
        original(self, mid)

    with monkeypatch.context() as m:
        m.setattr(Outputs, "read", counted)
        plans = [cli(capsys, "compact", "work", "--dry-run", *extra)[0] for extra in VARIANTS]
    return plans, reads[0]


def _full_plans(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
                ) -> list[str]:
    """The plans with the session read whole (every output read), nothing kept."""
    with monkeypatch.context() as m:
        m.setattr(shapes_module, "load_for_plan",
                  lambda store, sid: (store.load(sid), lambda: None))
        return _plans(capsys, monkeypatch)[0]


def test_a_repeated_dry_run_sizes_the_results_from_kept_figures_and_plans_alike(
        model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _session()
    expected = _full_plans(capsys, monkeypatch)
    assert "tool results kept" in expected[0] and "100%" not in expected[0]
    assert not _kept()
    plans, measuring_reads = _plans(capsys, monkeypatch)  # the shapes made, figures kept
    assert plans == expected
    assert _kept()
    plans, reads = _plans(capsys, monkeypatch)
    assert plans == expected
    assert reads < measuring_reads  # the rungs over budget are told without reading
    assert not model.requests


def test_figures_are_used_only_under_this_builds_key(
        model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "45000")  # half the results fit
    _session()
    expected = _full_plans(capsys, monkeypatch)
    assert "50% of tool results kept" in expected[0]
    for _ in range(2):
        _plans(capsys, monkeypatch)
    assert _kept()
    conn = _conn()
    try:  # ten times the measured lengths, kept under another build's key
        rows = list(conn.execute("SELECT message_rowid, result_lines FROM message_shapes"
                                 " WHERE result_lines IS NOT NULL"))
        for rowid, text in rows:
            key, figures = json.loads(text)
            assert key.startswith(kept_key(2000) + ":")
            bloated = [figures[0], *(10 * n for n in figures[1:])]
            conn.execute("UPDATE message_shapes SET result_lines=? WHERE message_rowid=?",
                         (json.dumps(["another build" + key[key.index(":"):], bloated]), rowid))
        assert _plans(capsys, monkeypatch)[0] == expected  # not used: measured again
        for rowid, text in rows:  # the same figures under this build's key: they are used
            key, figures = json.loads(text)
            bloated = [figures[0], *(10 * n for n in figures[1:])]
            conn.execute("UPDATE message_shapes SET result_lines=? WHERE message_rowid=?",
                         (json.dumps([key, bloated]), rowid))
    finally:
        conn.close()
    plans = _plans(capsys, monkeypatch)[0]  # (so the check above could fail)
    assert "0% of tool results kept" in plans[0] and plans != expected


def test_a_database_from_before_migration_14_opens_and_gets_figures_at_first_need(
        model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _session()
    expected = _full_plans(capsys, monkeypatch)
    _plans(capsys, monkeypatch)  # the shapes made
    conn = _conn()
    try:
        conn.executescript("ALTER TABLE message_shapes DROP COLUMN result_lines;"
                           " DELETE FROM schema_migrations WHERE number = 14;"
                           " PRAGMA user_version = 13;")
    finally:
        conn.close()
    plans, measuring_reads = _plans(capsys, monkeypatch)  # migrated; the figures kept
    assert plans == expected
    assert _kept()
    plans, reads = _plans(capsys, monkeypatch)
    assert plans == expected and reads < measuring_reads
