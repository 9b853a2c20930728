"""Numbered migrations (docs/architecture.md §8) and the stored per-message token counts."""

import sqlite3
from pathlib import Path

import pytest
from reliability_support import clean_env, cli

from goosectx.conversation import Message
from goosectx.errors import StoreError
from goosectx.store import MIGRATIONS, Migration, SessionStore, TokenCount
from goosectx.store import migrations as migrations_module


def _schema(db: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(db)
    try:
        return sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))
    finally:
        conn.close()


KNOWN = sorted(m.number for m in MIGRATIONS)
"""Every migration number this build knows."""


def _applied(db: Path) -> list[int]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT number FROM schema_migrations ORDER BY 1")]
    finally:
        conn.close()


def _columns(db: Path, table: str) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


def _legacy_database(data: Path) -> Path:
    """A database as the build before numbered migrations left it: user_version 1, one row."""
    data.mkdir()
    db = data / "sessions.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.executescript(MIGRATIONS[0].sql)
    conn.execute("PRAGMA user_version=1")
    conn.execute("INSERT INTO sessions (id, working_dir, created, updated) VALUES"
                 " ('20260101_000000_abcd', '/w', '2026-01-01T00:00:00+00:00',"
                 " '2026-01-01T00:00:00+00:00')")
    msg = Message.user("kept across the upgrade")
    conn.execute("INSERT INTO messages VALUES (?, '20260101_000000_abcd', 1.0, 'user', ?, ?, ?)",
                 (msg.id, msg.to_dict()["created"], '[{"type":"text","text":"kept across the'
                  ' upgrade"}]', "{}"))
    conn.close()
    return db


def test_a_new_database_records_every_known_migration(tmp_path):
    SessionStore(tmp_path / "d").close()
    db = tmp_path / "d" / "sessions.db"
    assert _applied(db) == sorted(m.number for m in MIGRATIONS)
    assert {"token_count", "token_encoding"} <= set(_columns(db, "messages"))


def test_a_database_with_only_migration_1_is_upgraded_and_keeps_its_messages(tmp_path):
    db = _legacy_database(tmp_path / "d")
    assert "token_count" not in _columns(db, "messages")
    store = SessionStore(tmp_path / "d")
    session = store.load("20260101_000000_abcd")
    store.close()
    assert [m.text for m in session.conversation] == ["kept across the upgrade"]
    assert session.token_counts == {}  # not yet counted
    assert _applied(db) == KNOWN
    assert {"token_count", "token_encoding"} <= set(_columns(db, "messages"))
    SessionStore(tmp_path / "d").close()  # opening again changes nothing
    assert _applied(db) == KNOWN


def _checkpoints(data: Path) -> int:
    """How many WAL checkpoints migrating the database in ``data`` runs."""
    data.mkdir(exist_ok=True)
    conn = sqlite3.connect(data / "sessions.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        migrations_module.migrate(conn, data / "sessions.db")
    finally:
        conn.close()
    return sum("wal_checkpoint" in s for s in statements)


def test_a_new_database_is_migrated_without_a_checkpoint_between_its_migrations(tmp_path):
    # an empty database's migrations write only its schema: no checkpoint (3 fsyncs each)
    assert _checkpoints(tmp_path / "new") == 0
    assert _applied(tmp_path / "new" / "sessions.db") == KNOWN
    # one with rows is checkpointed after each migration (its WAL stays one migration's size)
    _legacy_database(tmp_path / "old")
    assert _checkpoints(tmp_path / "old") == len(KNOWN) - 1


def test_migrations_landing_out_of_order_fill_the_gap(tmp_path, monkeypatch):
    later = Migration(90, "a later branch", "CREATE TABLE later (x INTEGER);")
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (MIGRATIONS[0], later))
    SessionStore(tmp_path / "d").close()  # a build with 1 and 90, without 2
    db = tmp_path / "d" / "sessions.db"
    assert _applied(db) == [1, 90] and "token_count" not in _columns(db, "messages")
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (*MIGRATIONS, later))
    SessionStore(tmp_path / "d").close()
    assert _applied(db) == [*KNOWN, 90] and "token_count" in _columns(db, "messages")


def test_a_database_from_a_newer_goosectx_is_refused_in_one_line_and_untouched(tmp_path):
    home = tmp_path / "home"
    SessionStore(home).close()
    db = home / "sessions.db"
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_migrations VALUES (99, '2030-01-01T00:00:00+00:00')")
    conn.commit()
    conn.close()
    before = _schema(db)
    proc = cli(clean_env(home), "sessions", "list")
    assert proc.returncode == 2, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "made by a newer goosectx" in lines[0] and "99" in lines[0], lines[0]
    assert "upgrade goosectx" in lines[0]
    assert _schema(db) == before and _applied(db) == [*KNOWN, 99]


def test_a_failing_migration_leaves_the_database_as_it_was(tmp_path, monkeypatch):
    db = _legacy_database(tmp_path / "d")
    before = _schema(db)
    broken = Migration(2, "broken", """
        CREATE TABLE half_done (x INTEGER);
        ALTER TABLE messages ADD COLUMN token_count INTEGER;
        INSERT INTO no_such_table VALUES (1);
    """)
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (MIGRATIONS[0], broken))
    with pytest.raises(StoreError) as exc:
        SessionStore(tmp_path / "d")
    assert "cannot apply migration 2 (broken)" in exc.value.one_line()
    assert "left as it was" in exc.value.one_line()
    after = _schema(db)
    # Only the bookkeeping table is new (it records migration 1); no half-applied change.
    assert [t for t in after if t not in before] == [
        ("schema_migrations", migrations_module.BOOKKEEPING)]
    assert _applied(db) == [1]
    assert "token_count" not in _columns(db, "messages")


def test_token_counts_round_trip(tmp_path):
    store = SessionStore(tmp_path / "d")
    session = store.create_session(Path("."))
    first, second, third = (Message.user(t) for t in ("one", "two", "three"))
    store.append_message(session.id, first, token_count=TokenCount(1, "o200k_base"))
    store.append_message(session.id, second)
    store.append_message(session.id, third)
    assert store.load(session.id).token_counts == {first.id: TokenCount(1, "o200k_base")}
    updated = store.save_token_counts(session.id, {
        second.id: TokenCount(2, "o200k_base"),
        first.id: TokenCount(3, "cl100k_base"),  # recounted with another encoding
        "not-a-message-of-this-session": TokenCount(9, "o200k_base"),
    })
    assert updated == 2
    store.close()
    loaded = SessionStore(tmp_path / "d").load(session.id)
    assert loaded.token_counts == {first.id: TokenCount(3, "cl100k_base"),
                                   second.id: TokenCount(2, "o200k_base")}
    assert [m.text for m in loaded.conversation] == ["one", "two", "three"]


def test_a_saved_session_keeps_its_counts(tmp_path):
    store = SessionStore(tmp_path / "d")
    session = store.load(store.create_session(Path(".")).id)
    message = Message.user("imported")
    session.conversation.append(message)
    session.token_counts[message.id] = TokenCount(2, "o200k_base")
    session.name = "copy"
    saved = store.save_new_session(session)
    assert store.load(saved.id).token_counts == {message.id: TokenCount(2, "o200k_base")}
    store.close()


def test_migration_3_keeps_title_source_import_hash_and_approval_mode(tmp_path):
    store = SessionStore(tmp_path / "d")
    session = store.create_session(tmp_path, name="m3")
    store.update_session(session.id, title="fix the io test", approval_mode="chat")
    loaded = store.load(session.id)
    assert (loaded.title, loaded.approval_mode, loaded.source, loaded.import_hash) == (
        "fix the io test", "chat", None, None)
    loaded.id, loaded.name = "20260101_000000_beef", "copy"
    loaded.source, loaded.import_hash = "claude-code", "ab" * 32
    store.save_new_session(loaded)
    assert store.find_imports("ab" * 32) == [("20260101_000000_beef", "copy")]
    assert store.load("20260101_000000_beef").source == "claude-code"
    store.close()
    db = tmp_path / "d" / "sessions.db"
    assert {"title", "source", "import_hash", "approval_mode"} <= set(_columns(db, "sessions"))


def test_a_database_whose_user_version_is_newer_is_refused_in_one_line_and_untouched(tmp_path):
    home = tmp_path / "home"
    store = SessionStore(home)
    session = store.create_session(tmp_path, name="kept")
    store.close()
    db = home / "sessions.db"
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version={max(KNOWN) + 1}")  # schema_migrations lists only KNOWN
    conn.commit()
    conn.close()
    before = db.read_bytes()
    for command in (["sessions", "list"], ["sessions", "remove", session.id, "--yes"]):
        proc = cli(clean_env(home), *command)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert "made by a newer goosectx" in lines[0] and "upgrade goosectx" in lines[0]
        assert db.read_bytes() == before, command
    assert _applied(db) == KNOWN


def test_an_up_to_date_database_opens_without_the_migrations_and_a_new_one_is_applied(
        tmp_path, monkeypatch):
    """The store skips loading the migrations only for a database at exactly this build's
    schema; the numbers it knows that by are MIGRATIONS' own, and a migration this build adds
    (or one the database lacks) is still applied."""
    from goosectx.store.database import MIGRATION_NUMBERS

    assert set(KNOWN) == MIGRATION_NUMBERS
    SessionStore(tmp_path / "d").close()
    db = tmp_path / "d" / "sessions.db"
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM schema_migrations WHERE number=?", (KNOWN[-1],))
    conn.commit()
    conn.close()
    later = Migration(KNOWN[-1], "again", "CREATE TABLE again (x INTEGER);")
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (*MIGRATIONS[:-1], later))
    SessionStore(tmp_path / "d").close()  # the missing number is applied, not skipped
    assert _applied(db) == KNOWN and "again" in {t for t, _ in _schema(db)}
