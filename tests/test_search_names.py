"""``sessions search`` finds a session by the name you gave it (fresh20a finding 7).

``--name payments-refactor`` (or ``sessions rename``) and then ``sessions search payments``
said "No session mentions 'payments'": only titles and message text were indexed. Migration 12
indexes names with titles, for sessions named before it too.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli

from goosectx.conversation import Message
from goosectx.store import MIGRATIONS, SessionStore


def _home() -> Path:
    return Path(os.environ["GOOSECTX_HOME"])


def _named(work: Path, name: str, *texts: str) -> str:
    store = SessionStore(_home())
    try:
        session = store.create_session(work, name=name)
        for i, text in enumerate(texts):
            store.append_message(session.id,
                                 Message.user(text) if i % 2 == 0 else Message.assistant(text))
        return session.id
    finally:
        store.close()


def _search(capsys: pytest.CaptureFixture[str], *words: str) -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(
        cli(capsys, "sessions", "search", *words, "--json")[0])
    return found


def test_a_session_is_found_by_its_name(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sid = _named(work, "payments-refactor", "hello there", "ok")
    _named(work, "docs", "Write the README", "Done.")
    for words in (["payments"], ["payments-refactor"], ["refactor", "payments"],
                  ["payments", "hello"]):  # a word of the name and one of the title
        hits = _search(capsys, *words)
        assert [(h["id"], h["in_name"]) for h in hits] == [(sid, True)], words
    assert _search(capsys, "hello")[0]["in_name"] is False  # the title alone
    out, _ = cli(capsys, "sessions", "search", "payments")
    line = next(ln for ln in out.splitlines() if sid in ln)
    assert "(payments-refactor)" in line and " name " in f" {line} "
    assert "No session mentions 'payment'." in cli(capsys, "sessions", "search", "payment")[0]


def test_a_renamed_session_is_found_by_its_new_name_only(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sid = _named(work, "payments-refactor", "hello there", "ok")
    cli(capsys, "sessions", "rename", sid, "billing-fix")
    assert [h["id"] for h in _search(capsys, "billing")] == [sid]
    out, _ = cli(capsys, "sessions", "search", "payments")
    assert "No session mentions 'payments'." in out
    assert [h["id"] for h in _search(capsys, "hello")] == [sid]  # the title still is


def test_a_name_in_chinese_is_found_inside_longer_text(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sid = _named(work, "数据库迁移", "hello", "ok")
    hits = _search(capsys, "数据库")
    assert [(h["id"], h["in_name"], h["in_title"]) for h in hits] == [(sid, True, False)]


def test_sessions_named_before_migration_12_are_found_by_name(
        capsys: pytest.CaptureFixture[str]) -> None:
    data = _home()
    data.mkdir(parents=True)
    conn = sqlite3.connect(data / "sessions.db", isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY,"
                 " applied TEXT NOT NULL)")
    for migration in MIGRATIONS:  # every migration before 12, as an older goosectx left it
        if migration.number < 12:
            for statement in migration.statements():
                conn.execute(statement)
            if migration.run is not None:
                migration.run(conn)
            conn.execute("INSERT INTO schema_migrations VALUES (?, 'then')", (migration.number,))
    conn.execute("PRAGMA user_version=9")
    conn.execute("INSERT INTO sessions (id, name, title, working_dir, created, updated) VALUES"
                 " ('20260101_000000_abcd', 'pelican-import', 'Migrate the importer', '/w',"
                 " '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')")
    conn.close()
    hits = _search(capsys, "pelican")
    assert [(h["id"], h["in_name"]) for h in hits] == [("20260101_000000_abcd", True)]
    assert [h["id"] for h in _search(capsys, "importer")] == ["20260101_000000_abcd"]
