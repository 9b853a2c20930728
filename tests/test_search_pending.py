"""An import's messages reach the full-text index at the first search (issue 14 point 5).

``sessions import`` parses and inserts; its rows wait, named in its session's row (migration
9), and the next search indexes them, so a search finds what it found when import indexed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli

from goosectx.cli import sessions_list
from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    ToolRequest,
    ToolResponse,
)
from goosectx.errors import StoreError
from goosectx.store import MIGRATIONS, SessionStore

PENDING = "SELECT count(*) FROM sessions WHERE unindexed_from IS NOT NULL"


def _home() -> Path:
    return Path(os.environ["GOOSECTX_HOME"])


def _count(sql: str, *args: object) -> int:
    conn = sqlite3.connect(_home() / "sessions.db")
    try:
        return int(conn.execute(sql, args).fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def export(work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A JSON export of a session about a lexer; the store is left empty."""
    store = SessionStore(_home())
    try:
        sid = store.create_session(work, name="parser").id
        for message in (
                Message.user("Fix the tokenizer crash when the input is empty"),
                Message("assistant", (ToolRequest("c1", "shell", {"command": "pytest -q"}),)),
                Message("user", (ToolResponse("c1", "zebracorn failed in test_io.py"),)),
                Message.assistant("The lexer skipped the empty buffer; fixed in lexer.py."),
                Message.user("and the lexer docs too")):
            store.append_message(sid, message)
    finally:
        store.close()
    path = tmp_path / "parser.json"
    cli(capsys, "sessions", "export", "parser", "--format", "json", "--output", str(path))
    cli(capsys, "sessions", "remove", "parser", "--yes")
    return path


def _hits(capsys: pytest.CaptureFixture[str], words: str) -> list[tuple[str, int, bool]]:
    found = json.loads(cli(capsys, "sessions", "search", *words.split(), "--json")[0])
    return [(h["name"], h["message_hits"], h["in_title"]) for h in found]


def test_an_import_waits_for_the_first_search_which_finds_its_words(
        export: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "sessions", "import", str(export), "--name", "ported")
    sid = json.loads(cli(capsys, "sessions", "list", "--json")[0])[0]["id"]
    assert _count("SELECT count(*) FROM message_index WHERE session_id=?", sid) == 0
    assert _count(PENDING) == 1
    assert _hits(capsys, "lexer") == [("ported", 2, False)]
    assert _hits(capsys, "tokenizer crash") == [("ported", 1, True)]
    assert _hits(capsys, "zebracorn") == []  # tool output is not indexed, as before
    assert _count(PENDING) == 0
    assert _count("SELECT count(*) FROM message_index WHERE session_id=?", sid) == 3


def test_messages_added_after_the_import_are_found_with_the_imported_ones(
        export: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "sessions", "import", str(export), "--name", "ported")
    store = SessionStore(_home())
    try:  # appended, then compacted, before any search
        sid = store.resolve("ported")
        store.append_message(sid, Message.user("now the narwhal case of the lexer"))
        session = store.load(sid)
        hidden = [m.with_metadata(agent_visible=False) for m in session.conversation]
        summary = Message.user("# Conversation Summary\nwombat summary",
                               MessageMetadata(user_visible=False, is_summary=True,
                                               compaction_id="k1"))
        store.replace_history(sid, Conversation([*hidden, summary]))
    finally:
        store.close()
    assert _hits(capsys, "narwhal") == [("ported", 1, False)]
    assert _hits(capsys, "lexer") == [("ported", 3, False)]  # old and new, each once
    assert _hits(capsys, "wombat") == []  # the summary is not text the user saw
    assert _count("SELECT count(*) FROM message_index WHERE session_id=?", sid) == 4


def test_removing_a_session_still_waiting_for_the_index_leaves_nothing(
        export: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "sessions", "import", str(export), "--name", "ported")
    cli(capsys, "sessions", "remove", "ported", "--yes")
    assert _count(PENDING) == 0
    assert _hits(capsys, "lexer") == []
    assert _count("SELECT count(*) FROM message_index") == 0
    cli(capsys, "sessions", "import", str(export), "--name", "again")
    assert _hits(capsys, "lexer") == [("again", 2, False)]


def test_a_long_wait_is_said_once_and_a_store_it_cannot_write_is_searched_without_them(
        export: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli(capsys, "sessions", "import", str(export), "--name", "ported")
    monkeypatch.setattr(sessions_list, "NOTICE_PENDING_AT", 5)

    def refused(self: SessionStore) -> int:
        raise StoreError("the session database x is on a read-only file system")

    with monkeypatch.context() as patch:
        patch.setattr(SessionStore, "index_pending", refused)
        patch.setattr("goosectx.store.database.on_read_only_file_system", lambda path: True)
        out, err = cli(capsys, "sessions", "search", "lexer")
    assert "No session mentions 'lexer'." in out
    assert "indexing" not in err  # not promised where it cannot be written
    assert "5 imported messages are not searched: the session database x is on a read-only" \
        in err
    out, err = cli(capsys, "sessions", "search", "lexer")
    assert "ported" in out and err == "indexing 5 imported messages for search…\n"
    out, err = cli(capsys, "sessions", "search", "lexer")
    assert "ported" in out and err == ""


def test_migration_9_leaves_sessions_indexed_before_it_as_they_were(
        work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from goosectx.store import migrations as migrations_module

    with monkeypatch.context() as patch:
        patch.setattr(migrations_module, "MIGRATIONS",
                      tuple(m for m in MIGRATIONS if m.number < 9))
        store = SessionStore(_home())  # a database of the build before
        try:
            sid = store.create_session(work, name="old").id
            store.append_message(sid, Message.user("Migrate the pelican importer"))
        finally:
            store.close()
        assert _count("SELECT count(*) FROM schema_migrations WHERE number=9") == 0
    assert _hits(capsys, "pelican") == [("old", 1, True)]
    assert _count("SELECT count(*) FROM schema_migrations WHERE number=9") == 1
    assert _count(PENDING) == 0
    assert _count("SELECT count(*) FROM message_index") == 1
