"""A database whose file is sound but one session's row or one message's row holds a value of
the wrong type (an edit by hand, another tool, a bug of an older version).

Every command that reads the damaged session says so in one line naming it, exit 1, and
leaves the database as it is; ``sessions remove`` (which the line suggests) still removes it;
the other sessions stay usable. (Damaged files: ``test_reliability_store.py``.)
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.config import load_settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.store import SessionStore


def _two_sessions(work: Path) -> Path:
    store = SessionStore(load_settings(None).data_dir)
    try:
        for name in ("hurt", "fine"):
            session = store.create_session(work, name=name)
            store.append_message(session.id, Message.user(f"port the {name} parser"))
            store.append_message(session.id, Message("assistant", (
                ToolRequest("t1", "shell", {"command": "ls"}),)))
            store.append_message(session.id, Message("user", (ToolResponse("t1", "a.py"),)))
            store.append_message(session.id, Message.assistant("Done."))
        return store.path
    finally:
        store.close()

def _with_a_damaged_time(work: Path, column: str) -> tuple[Path, str]:
    """Two sessions; the one named ``hurt`` has ``column`` stored as a time that does not
    parse. Returns the database and that session's id."""
    db = _two_sessions(work)
    conn = sqlite3.connect(db)
    hurt = conn.execute("SELECT id FROM sessions WHERE name='hurt'").fetchone()[0]
    with conn:
        conn.execute(f"UPDATE sessions SET {column}='yesterday' WHERE id=?", (hurt,))
    conn.close()
    return db, hurt



def _set_text_to_a_number(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET content_json=? WHERE session_id=? AND role='user'",
                 (json.dumps([{"type": "text", "text": 123}]), sid))


def _set_output_to_a_list(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET content_json=? WHERE session_id=? AND content_json LIKE"
                 " '%tool_response%'",
                 (json.dumps([{"type": "tool_response", "id": "t1", "output": ["a"]}]), sid))


def _set_hidden_by_to_a_number(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET metadata_json=? WHERE session_id=? AND role='user'",
                 (json.dumps({"user_visible": True, "agent_visible": False, "hidden_by": 5,
                              "is_summary": True, "compaction_id": 7}), sid))


def _set_created_to_a_word(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE sessions SET created='yesterday' WHERE id=?", (sid,))


def _break_state_json(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE sessions SET state_json='[', metadata_json='{' WHERE id=?", (sid,))


def _set_metadata_to_a_list(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE sessions SET metadata_json='[1]' WHERE id=?", (sid,))


def _set_tool_name_to_a_number(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET content_json=? WHERE session_id=? AND content_json LIKE"
                 " '%tool_request%'",
                 (json.dumps([{"type": "tool_request", "id": "t1", "name": 5}]), sid))


def _set_is_error_to_a_word(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET content_json=? WHERE session_id=? AND content_json LIKE"
                 " '%tool_response%'",
                 (json.dumps([{"type": "tool_response", "id": "t1", "output": "a.py",
                               "is_error": "yes"}]), sid))


def _set_message_created_to_a_word(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET created='yesterday' WHERE session_id=? AND role='user'",
                 (sid,))


def _set_role_to_system(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("UPDATE messages SET role='system' WHERE session_id=? AND role='assistant'",
                 (sid,))


def _nest_content_deeply(conn: sqlite3.Connection, sid: str) -> None:
    """Valid JSON nested deeper than Python parses (a RecursionError, not a ValueError)."""
    conn.execute("UPDATE messages SET content_json=? WHERE session_id=? AND role='user'"
                 " AND content_json LIKE '%parser%'", ("[" * 3000 + "]" * 3000, sid))


DAMAGE: dict[str, Callable[[sqlite3.Connection, str], None]] = {
    "text": _set_text_to_a_number, "output": _set_output_to_a_list,
    "hidden_by": _set_hidden_by_to_a_number,
    "state": _break_state_json,
    "metadata": _set_metadata_to_a_list,
    # the fields sessions show/export read from a plain row without building the message
    "tool name": _set_tool_name_to_a_number, "is_error": _set_is_error_to_a_word,
    "role": _set_role_to_system, "nested": _nest_content_deeply,
}  # a message's created time that does not parse: shown as unknown (test below)


def _damaged(work: Path, how: str) -> tuple[Path, str]:
    """Two sessions, the one named ``hurt`` damaged ``how``: the database and its id."""
    db = _two_sessions(work)
    conn = sqlite3.connect(db)
    hurt = conn.execute("SELECT id FROM sessions WHERE name='hurt'").fetchone()[0]
    with conn:
        DAMAGE[how](conn, hurt)
    conn.close()
    return db, hurt


@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_damaged_row_gives_one_line_naming_the_session_and_can_be_removed(
        work: Path, capsys: pytest.CaptureFixture[str], how: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # run --resume stops at the load
    db, hurt = _damaged(work, how)
    before = db.read_bytes()
    for command in (["sessions", "show", "hurt"], ["sessions", "export", "hurt", "-f", "md"],
                    ["sessions", "export", "hurt", "-f", "json"],
                    ["compact", "hurt", "--dry-run"], ["run", "--model", "openai/gpt-4o-mini", "--resume", "hurt", "-t", "go"]):
        code, _, err = run_cli(capsys, *command)
        assert code == 1 and "Traceback" not in err, (command, err)
        lines = [line for line in err.splitlines() if line.startswith("goosectx: error: ")]
        assert len(lines) == 1 and hurt in lines[0] and "unreadable" in lines[0], err
        assert "goosectx sessions remove" in lines[0]
        assert db.read_bytes() == before, command
    code, out, _ = run_cli(capsys, "sessions", "show", "fine")
    assert code == 0 and "port the fine parser" in out
    code, _, err = run_cli(capsys, "sessions", "remove", "hurt", "--yes")
    assert code == 0 and "removed" in err, err
    code, out, _ = run_cli(capsys, "sessions", "list", "--json")
    assert code == 0 and [r["name"] for r in json.loads(out)] == ["fine"]


def test_a_stored_token_count_of_the_wrong_type_is_counted_again(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _two_sessions(work)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE messages SET token_count='abc', token_encoding=5")
    conn.close()
    code, out, err = run_cli(capsys, "compact", "hurt", "--dry-run", "--json")
    assert "Traceback" not in err and "unreadable" not in err, err
    assert code in (0, 1) and (out or "would change nothing" in err), (out, err)


@pytest.mark.parametrize("column", ["created", "updated"])
def test_sessions_list_shows_the_others_and_marks_a_session_whose_time_does_not_parse(
        work: Path, capsys: pytest.CaptureFixture[str], column: str) -> None:
    db, hurt = _with_a_damaged_time(work, column)
    before = db.read_bytes()
    code, out, err = run_cli(capsys, "sessions", "list")
    assert code == 0 and "Traceback" not in err, err
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert hurt in rows and len(rows) == 2, out
    assert "fine" in out and "?" in rows[hurt].split("hurt", 1)[1], out
    notes = [line for line in err.splitlines() if hurt in line]
    assert len(notes) == 1 and f"goosectx sessions remove {hurt}" in notes[0], err
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    assert code == 0, err
    listed = {r["name"]: r for r in json.loads(out)}
    assert set(listed) == {"hurt", "fine"} and listed["hurt"][column] is None
    assert listed["fine"]["created"] and listed["fine"]["updated"]
    code, out, err = run_cli(capsys, "sessions", "search", "parser")
    assert code == 0 and "Traceback" not in err, err
    assert hurt in out and "fine" in out, out
    code, out, err = run_cli(capsys, "sessions", "search", "parser", "--json")
    assert code == 0 and {h["name"] for h in json.loads(out)} == {"hurt", "fine"}, err
    assert db.read_bytes() == before


@pytest.mark.parametrize("column", ["created", "updated"])
def test_a_session_whose_time_does_not_parse_can_still_be_shown_and_exported(
        work: Path, capsys: pytest.CaptureFixture[str], column: str, tmp_path: Path) -> None:
    db, hurt = _with_a_damaged_time(work, column)
    before = db.read_bytes()
    warning = (f"goosectx: warning: session {hurt}'s stored {column} time does not parse: "
               "shown as ? (null in JSON)")
    for command in (["sessions", "show", "hurt"], ["sessions", "show", "hurt", "--agent"],
                    ["sessions", "export", "hurt", "-f", "md"]):
        code, out, err = run_cli(capsys, *command)
        assert code == 0 and "port the hurt parser" in out and "Done." in out, (command, err)
        assert err.startswith(warning) and err.count("\n") == 1, (command, err)
        assert ("- created: ?" in out) == (column == "created"), out
    saved = tmp_path / "hurt.json"
    code, _, err = run_cli(capsys, "sessions", "export", "hurt", "-f", "json", "-o", str(saved))
    assert code == 0 and err.startswith(warning), err
    exported = json.loads(saved.read_text())
    assert exported["session"][column] is None and len(exported["messages"]) == 4
    assert db.read_bytes() == before
    code, _, err = run_cli(capsys, "compact", "hurt", "--dry-run")  # the rest still refuses
    assert code == 1 and "unreadable" in err
    # what was saved imports back, with the time of the import in place of the damaged one
    code, out, err = run_cli(capsys, "sessions", "import", str(saved), "--name", "rescued")
    assert code == 0 and "4 messages" in out, err
    code, out, _ = run_cli(capsys, "sessions", "show", "rescued")
    assert code == 0 and "port the hurt parser" in out and "- created: ?" not in out


def test_a_message_whose_time_does_not_parse_is_shown_and_exported_with_the_rest(
        work: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = _two_sessions(work)
    conn = sqlite3.connect(db)
    hurt = conn.execute("SELECT id FROM sessions WHERE name='hurt'").fetchone()[0]
    with conn:
        _set_message_created_to_a_word(conn, hurt)  # both user messages (a request, a result)
    conn.close()
    before = db.read_bytes()
    warning = (f"goosectx: warning: session {hurt}: the stored time of 2 messages does not "
               "parse: shown as unknown (null in JSON); the rest is all there")
    for command in (["sessions", "show", "hurt"], ["sessions", "show", "hurt", "--agent"],
                    ["sessions", "export", "hurt", "-f", "md"]):
        code, out, err = run_cli(capsys, *command)
        assert code == 0 and "port the hurt parser" in out and "Done." in out, (command, err)
        assert "a.py" in out and err == warning + "\n", (command, err)
    saved = tmp_path / "hurt.json"
    code, _, err = run_cli(capsys, "sessions", "export", "hurt", "-f", "json", "-o", str(saved))
    assert code == 0 and err.startswith(warning), err
    messages = json.loads(saved.read_text())["messages"]
    assert [m["created"] is None for m in messages] == [True, False, True, False]
    assert db.read_bytes() == before
    code, _, err = run_cli(capsys, "compact", "hurt", "--dry-run")  # the rest still refuses
    assert code == 1 and "unreadable" in err
    # what was saved imports back whole, the time of the import in place of the damaged ones
    code, out, err = run_cli(capsys, "sessions", "import", str(saved), "--name", "rescued")
    assert code == 0 and "4 messages" in out, err
    code, out, err = run_cli(capsys, "sessions", "show", "rescued")
    assert code == 0 and err == "" and "port the hurt parser" in out and "a.py" in out


@pytest.mark.parametrize("how", ["text", "output", "tool name", "role", "nested"])
def test_skip_damaged_saves_what_still_reads(work: Path, capsys: pytest.CaptureFixture[str],
                                             how: str) -> None:
    db, hurt = _damaged(work, how)
    code, _, err = run_cli(capsys, "sessions", "export", "hurt", "-f", "json")
    assert code == 1 and "--skip-damaged" in err  # the error says how to save the rest
    saved = work / "saved.json"
    code, _, err = run_cli(capsys, "sessions", "export", "hurt", "-f", "json", "-o",
                           str(saved), "--skip-damaged")
    assert code == 0, err
    kept = json.loads(saved.read_text())["messages"]
    # (a tool call whose result row was left out is answered in a row of its own)
    stored = [m for m in kept if "result was lost with a damaged row" not in json.dumps(m)]
    assert 0 < len(stored) < 4
    assert f"session {hurt}: {4 - len(stored)} message" in err and "left out" in err
    code, _, err = run_cli(capsys, "sessions", "import", str(saved))  # a session again
    assert code == 0, err
    code, out, _ = run_cli(capsys, "sessions", "list", "--json")
    assert [r["message_count"] for r in json.loads(out) if r["name"] not in ("hurt", "fine")] \
        == [len(kept)]
    code, out, err = run_cli(capsys, "sessions", "show", "hurt", "--skip-damaged")
    assert code == 0 and "# Session hurt" in out and "left out" in err
    code, out, err = run_cli(capsys, "sessions", "export", "hurt", "--skip-damaged")
    assert code == 0 and "# Session hurt" in out
