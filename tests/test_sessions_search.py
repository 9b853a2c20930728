"""Session titles, sources and full-text search (issue 17 point 5) through the real CLI.

A session's title is its first user request; ``sessions list`` shows title and source;
``sessions search`` finds sessions by title and message text (SQLite FTS5, kept in step by
the store, built for existing sessions by migration 4).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from cli_support import cli, run_cli

from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    TextContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.store import MIGRATIONS, SessionStore
from goosectx.store import search_index as search_index_module


def _home() -> Path:
    return Path(os.environ["GOOSECTX_HOME"])


def _session(store: SessionStore, work: Path, name: str, *messages: Message) -> str:
    session = store.create_session(work, name=name)
    for message in messages:
        store.append_message(session.id, message)
    return session.id


@pytest.fixture
def two_sessions(work: Path) -> dict[str, str]:
    store = SessionStore(_home())
    try:
        parser = _session(
            store, work, "parser",
            Message.user("\n   Fix the   tokenizer crash\nwhen the input is empty"),
            Message("assistant", (ToolRequest("c1", "shell", {"command": "pytest -q"}),)),
            Message("user", (ToolResponse("c1", "zebracorn failed in test_io.py"),)),
            Message.assistant("The lexer skipped the **empty** buffer; fixed in lexer.py."))
        docs = _session(store, work, "docs",
                        Message.user("Write the README section about installation"),
                        Message.assistant("Added an Installation section with pipx."))
    finally:
        store.close()
    return {"parser": parser, "docs": docs}


def test_a_session_is_titled_by_its_first_request_and_list_shows_it(
        two_sessions: dict[str, str], work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = cli(capsys, "sessions", "list")
    lines = out.splitlines()
    assert lines[0].split() == ["id", "name", "title", "source", "updated", "messages",
                                "context", "working", "dir"]
    parser = next(line for line in lines if "parser" in line)
    # the first non-blank line, whitespace collapsed; no model call
    assert "Fix the tokenizer crash" in parser and "when the input" not in parser
    assert " goosectx " in parser and parser.endswith(str(work.resolve()))
    listed = {row["name"]: row for row in json.loads(cli(capsys, "sessions", "list",
                                                           "--json")[0])}
    assert listed["parser"]["title"] == "Fix the tokenizer crash"
    assert listed["docs"]["title"] == "Write the README section about installation"
    assert listed["parser"]["source"] == "goosectx" and listed["parser"]["import_format"] is None
    assert listed["parser"]["message_count"] == 4


def test_search_finds_sessions_by_title_and_by_message_text(
        two_sessions: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = cli(capsys, "sessions", "search", "tokenizer")
    (row,) = [ln for ln in out.splitlines() if two_sessions["parser"] in ln]
    assert row.split()[:2] == [two_sessions["parser"], "parser"] and "docs" not in out
    assert "title" in out
    out, _ = cli(capsys, "sessions", "search", "lexer", "empty")  # every word, in an answer
    assert two_sessions["parser"] in out and "1 message" in out
    assert "The lexer skipped the **empty** buffer" in out
    # where in the session: the excerpt's message, its place and time
    store = SessionStore(_home())
    try:
        (answer,) = [m for m in store.load(two_sessions["parser"]).conversation
                     if "lexer" in m.text]
    finally:
        store.close()
    line = next(ln for ln in out.splitlines() if "lexer skipped" in ln)
    assert "message 4 of 4" in line and answer.created.astimezone().strftime("%Y-%m-%d %H:%M") in line
    hits = json.loads(cli(capsys, "sessions", "search", "installation", "--json")[0])
    assert [h["name"] for h in hits] == ["docs"]
    assert hits[0]["in_title"] is True and hits[0]["message_hits"] == 2
    assert hits[0]["match"]["message"] in (1, 2) and hits[0]["match"]["of"] == 2
    assert hits[0]["match"]["created"].startswith("20")
    # tool output is not message text: not indexed
    out, _ = cli(capsys, "sessions", "search", "zebracorn")
    assert "No session mentions 'zebracorn'." in out
    code, _, err = run_cli(capsys, "sessions", "search", "  ")
    assert code != 0 and "nothing to search for" in err and "Traceback" not in err


def test_the_index_follows_appends_compaction_and_remove(
        two_sessions: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(_home())
    sid = two_sessions["parser"]
    store.append_message(sid, Message.user("now also handle the quokka case"))
    session = store.load(sid)
    hidden = [m.with_metadata(agent_visible=False) for m in session.conversation]
    summary = Message.user("# Conversation Summary\nwombat summary text",
                           MessageMetadata(user_visible=False, is_summary=True,
                                           compaction_id="k1"))
    store.replace_history(sid, Conversation([*hidden, summary]))
    store.close()
    assert "parser" in cli(capsys, "sessions", "search", "quokka")[0]
    # compaction deleted nothing: the hidden messages are still found
    assert "parser" in cli(capsys, "sessions", "search", "lexer")[0]
    # the summary is not text the user saw: not indexed
    assert "No session mentions" in cli(capsys, "sessions", "search", "wombat")[0]
    cli(capsys, "sessions", "remove", "parser", "--yes")
    assert "No session mentions" in cli(capsys, "sessions", "search", "quokka")[0]
    conn = sqlite3.connect(_home() / "sessions.db")
    try:
        left = conn.execute("SELECT count(*) FROM message_index WHERE session_id=?",
                            (sid,)).fetchone()[0]
        titles = conn.execute("SELECT count(*) FROM title_index").fetchone()[0]
    finally:
        conn.close()
    assert left == 0 and titles == 1


def test_snippets_and_titles_of_outside_text_are_sanitised(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(_home())
    _session(store, work, "hostile",
             Message.user("evil \x1b]0;pwned\x07 title \x1b[2J here"),
             Message.assistant("look \x1b]52;c;ZWNobyBoaQ==\x07 clipboard marmot"))
    store.close()
    for args in (("sessions", "search", "marmot"), ("sessions", "list")):
        out, _ = cli(capsys, *args)
        assert "\x1b" not in out and "\x07" not in out
        assert "evil" in out
    out, _ = cli(capsys, "sessions", "search", "marmot", "--json")
    assert "\x1b" not in out and json.loads(out)[0]["name"] == "hostile"


def test_an_imported_session_is_titled_and_shows_its_source(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = {"sessionId": "s1", "cwd": "/nowhere/repo", "isSidechain": False}
    records = [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2025-01-02T03:04:05.000Z",
         "message": {"role": "user", "content": "Port the flamingo module to Rust"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2025-01-02T03:04:06Z",
         "message": {"id": "m1", "role": "assistant", "model": "claude-x",
                     "content": [{"type": "text", "text": "Starting with flamingo.rs"}]}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    cli(capsys, "sessions", "import", str(path), "--name", "ported")
    out, _ = cli(capsys, "sessions", "list")
    row = next(line for line in out.splitlines() if "ported" in line)
    assert "Port the flamingo module to Rust" in row and "imported from claude-code" in row
    listed = json.loads(cli(capsys, "sessions", "list", "--json")[0])[0]
    assert (listed["source"], listed["import_format"]) == ("import", "claude-code")
    assert "ported" in cli(capsys, "sessions", "search", "flamingo")[0]


def test_an_imported_export_is_searched_like_the_original_and_so_are_later_messages(
        two_sessions: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "parser.json"
    cli(capsys, "sessions", "export", "parser", "--format", "json", "--output", str(export))
    cli(capsys, "sessions", "remove", "parser", "--yes")
    cli(capsys, "sessions", "import", str(export), "--name", "ported")
    hits = json.loads(cli(capsys, "sessions", "search", "lexer", "--json")[0])
    assert [(h["name"], h["message_hits"]) for h in hits] == [("ported", 1)]
    assert "ported" in cli(capsys, "sessions", "search", "tokenizer")[0]
    # tool output was not indexed in the original, and is not in the import either
    assert "No session mentions" in cli(capsys, "sessions", "search", "zebracorn")[0]
    # the import leaves the index following new messages, in it and in other sessions
    store = SessionStore(_home())
    try:
        store.append_message(store.resolve("ported"), Message.user("and the narwhal case"))
        store.append_message(two_sessions["docs"], Message.user("mention the axolotl"))
    finally:
        store.close()
    assert "ported" in cli(capsys, "sessions", "search", "narwhal")[0]
    assert "docs" in cli(capsys, "sessions", "search", "axolotl")[0]


def test_an_import_that_fails_while_saving_leaves_search_working(
        two_sessions: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "parser.json"
    cli(capsys, "sessions", "export", "parser", "--format", "json", "--output", str(export))
    data = json.loads(export.read_text())
    data["session"]["name"] = None
    data["messages"][1]["id"] = data["messages"][0]["id"]  # the store refuses the second row
    export.write_text(json.dumps(data))
    cli(capsys, "sessions", "remove", "parser", "--yes")
    code, _, _ = run_cli(capsys, "sessions", "import", str(export))
    assert code != 0
    assert [row["name"] for row in json.loads(cli(capsys, "sessions", "list", "--json")[0])
            ] == ["docs"]
    assert "No session mentions" in cli(capsys, "sessions", "search", "lexer")[0]
    store = SessionStore(_home())
    try:
        store.append_message(two_sessions["docs"], Message.user("mention the axolotl"))
    finally:
        store.close()
    assert "docs" in cli(capsys, "sessions", "search", "axolotl")[0]


def test_a_session_saved_at_once_is_found_as_if_appended_message_by_message(
        tmp_path: Path, work: Path) -> None:
    # an import saves the whole session in one go; search must find what appending finds
    odd = [Message.user("Port the ibex parser"),
           Message.assistant("ibex " + "\0" + " nul cut"),  # SQLite's text stops at the NUL
           Message("assistant", (TextContent(404),)),  # not text: indexed as SQLite reads it
           Message("assistant", (TextContent("ibex flag"),), MessageMetadata(user_visible=0)),
           Message("assistant", (TextContent("ibex"), TextContent(""), TextContent("two"))),
           Message.user("ibex summary", MessageMetadata.agent_only())]
    found = []
    for how in ("appended", "saved"):
        store = SessionStore(tmp_path / how)
        try:
            if how == "appended":
                sid = store.create_session(work, name="s").id
                for message in odd:
                    store.append_message(sid, message)
            else:
                session = store.create_session(work, name="other")
                store.save_new_session(replace(session, id="20260101_000000_beef", name="s",
                                               conversation=Conversation(odd)))
            found.append([[(h.name, h.message_hits, h.snippet) for h in store.search(words)]
                          for words in ("ibex", "nul", "cut", "404", "flag", "two",
                                        "summary")])
        finally:
            store.close()
    assert found[0] == found[1]
    assert found[0][0] == [("s", 3, found[0][0][0][2])] and found[0][2] == [] \
        and found[0][3][0][1] == 1


def _old_database(data: Path) -> str:
    """A database made before migration 4 (1–3 applied) holding one session."""
    data.mkdir(parents=True)
    conn = sqlite3.connect(data / "sessions.db", isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY,"
                 " applied TEXT NOT NULL)")
    for migration in MIGRATIONS:
        if migration.number <= 3:
            for statement in migration.statements():
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations VALUES (?, 'then')", (migration.number,))
    conn.execute("PRAGMA user_version=3")
    sid = "20260101_000000_abcd"
    conn.execute("INSERT INTO sessions (id, working_dir, created, updated) VALUES"
                 " (?, '/w', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')", (sid,))
    for i, message in enumerate([Message.user("Migrate the pelican importer"),
                                 Message.assistant("Done: pelican.py now streams rows.")]):
        data_ = message.to_dict()
        conn.execute("INSERT INTO messages (id, session_id, position, role, created,"
                     " content_json, metadata_json) VALUES (?,?,?,?,?,?,?)",
                     (message.id, sid, float(i + 1), message.role, data_["created"],
                      json.dumps(data_["content"]), json.dumps(data_["metadata"])))
    conn.close()
    return sid


def test_migration_4_titles_and_indexes_existing_sessions(
        capsys: pytest.CaptureFixture[str]) -> None:
    sid = _old_database(_home())
    listed = json.loads(cli(capsys, "sessions", "list", "--json")[0])
    assert listed[0]["title"] == "Migrate the pelican importer"
    out, _ = cli(capsys, "sessions", "search", "streams")
    assert sid in out and "pelican.py now streams rows" in out


def test_without_fts5_only_search_fails_with_one_line(
        two_sessions: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "no-fts"
    monkeypatch.setenv("GOOSECTX_HOME", str(home))
    monkeypatch.setattr(search_index_module, "fts5_available", lambda conn: False)
    _old_database(home)
    listed = json.loads(cli(capsys, "sessions", "list", "--json")[0])
    assert listed[0]["title"] == "Migrate the pelican importer"  # titles need no FTS5
    code, out, err = run_cli(capsys, "sessions", "search", "pelican")
    assert code != 0 and out == ""
    assert "full-text search needs SQLite's FTS5" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # the error and its hint
    store = SessionStore(home)  # appending still works without the index
    store.append_message(listed[0]["id"], Message.user("more"))
    store.close()


def test_search_finds_a_session_by_the_name_it_was_given(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`sessions search payments` said "No session mentions" for the session named
    payments-refactor: only titles and message text were searched."""
    store = SessionStore(_home())
    try:
        named = _session(store, work, "payments-refactor", Message.user("hello there"),
                         Message.assistant("ok"))
        _session(store, work, "other", Message.user("unrelated"), Message.assistant("ok"))
    finally:
        store.close()
    out, _ = cli(capsys, "sessions", "search", "payments")
    (line,) = [ln for ln in out.splitlines() if named in ln]
    assert line.split()[:2] == [named, "payments-refactor"] and " name " in line
    hits = json.loads(cli(capsys, "sessions", "search", "Refactor", "PAY", "--json")[0])
    assert [(h["id"], h["in_name"], h["in_title"]) for h in hits] == [(named, True, False)]
    out, _ = cli(capsys, "sessions", "search", "payments", "unrelated")  # every word, one place
    assert "No session mentions" in out
