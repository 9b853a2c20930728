"""``sessions import`` of records whose fields have the wrong JSON type (fresh-eyes round 10).

What the user sees: one line naming the file, the record and the field (exit 2, nothing
saved) — never a tool call named ``['x']`` or a message reading ``5``. Tool arguments given
as JSON text still read as the object they hold.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli
from import_support import write_jsonl
from test_import_bounds import _session, assert_refused, export, listed, write


def _claude(block: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
            {"type": "assistant", "uuid": "a1",
             "message": {"role": "assistant", "content": [block]}}]


@pytest.mark.parametrize(("block", "words"), [
    ({"type": "tool_use", "id": 5, "name": "Bash", "input": {}}, ("content[0]", '"id"',
                                                                  "a number")),
    ({"type": "tool_use", "id": "t1", "name": ["x"], "input": {}}, ('"name"', "a list")),
    ({"type": "tool_use", "id": "t1", "name": "Bash", "input": "str"}, ('"input"', "text")),
    ({"type": "text", "text": 5}, ('"text"', "a number")),
])
def test_a_claude_code_block_field_of_the_wrong_type_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], block: dict[str, Any],
        words: tuple[str, ...]) -> None:
    path = write_jsonl(tmp_path / "cc.jsonl", _claude(block))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "cc.jsonl: line 2", *words)


def _gemini(args: Any) -> dict[str, Any]:
    return {"sessionId": "s1", "messages": [
        {"id": "1", "type": "user", "content": "hi"},
        {"id": "2", "type": "gemini", "content": "",
         "toolCalls": [{"id": "c1", "name": "ls", "args": args, "status": "success"}]}]}


def test_gemini_tool_arguments_that_are_no_object_are_refused_naming_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, _gemini("notobj"), "session-1.json")
    code, _, err = run_cli(capsys, "sessions", "import", str(path), "--format", "gemini-cli")
    assert_refused(capsys, code, err, "session-1.json: messages[1]", "toolCalls[0]",
                   '"args"', "text")


def test_tool_arguments_given_as_json_text_read_as_the_object(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "function": {"name": "ls", "arguments": '{"path": "."}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}], "chat.json")
    code, out, err = run_cli(capsys, "sessions", "import", str(path), "--format", "openai")
    assert code == 0, err
    [row] = listed(capsys)
    code, out, err = run_cli(capsys, "sessions", "export", row["id"], "--format", "json")
    assert code == 0, err
    [call] = [p for m in json.loads(out)["messages"] for p in m["content"]
              if p["type"] == "tool_request"]
    assert call["arguments"] == {"path": "."}


@pytest.mark.parametrize(("messages", "words"), [
    ([{"role": "user", "content": {"a": 1}}], ("messages[0]", '"content"', "an object")),
    ([{"role": "user", "content": "hi"},
      {"role": "assistant", "content": None, "tool_calls": [
          {"id": "c1", "function": {"name": "x", "arguments": 7}}]}],
     ("messages[1].tool_calls[0]", '"function.arguments"', "a number")),
])
def test_an_openai_field_of_the_wrong_type_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], messages: list[Any],
        words: tuple[str, ...]) -> None:
    path = write(tmp_path, messages, "chat.json")
    code, _, err = run_cli(capsys, "sessions", "import", str(path), "--format", "openai")
    assert_refused(capsys, code, err, "chat.json: ", *words)


def test_a_goose_db_text_part_that_is_no_text_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sessions.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE sessions (id TEXT, name TEXT, working_dir TEXT, created_at TEXT,"
        " updated_at TEXT);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, message_id TEXT,"
        " role TEXT, content_json TEXT, created_timestamp INTEGER, metadata_json TEXT);"
        "INSERT INTO sessions VALUES ('s1', 'x', '/tmp', '2026-01-01T00:00:00Z',"
        " '2026-01-01T00:00:00Z');")
    conn.execute("INSERT INTO messages VALUES (1, 's1', 'm1', 'user', ?, 1767225600, '{}')",
                 (json.dumps([{"type": "text", "text": 5}]),))
    conn.commit()
    conn.close()
    code, _, err = run_cli(capsys, "sessions", "import", str(path), "--format", "goose-db")
    assert_refused(capsys, code, err, "sessions.db: session s1 message row 1", "content[0]",
                   '"text"', "a number")


def _flag(name: str, value: Any) -> Any:
    return lambda d: d["messages"][0].update(
        metadata={"user_visible": True, "agent_visible": True, name: value})


@pytest.mark.parametrize(("change", "words"), [
    (_session("current_is_estimate", "yes"), ('"session.current_is_estimate"',
                                               "true or false", "text")),
    (_flag("user_visible", "yes"), ("message #1", '"metadata.user_visible"', "true or false")),
    (lambda d: d["messages"][0].update(metadata={"user_visible": "yes",
                                                  "agent_visible": True}),
     ("message #1", '"metadata.user_visible"')),
])
def test_an_export_flag_that_is_no_true_or_false_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any,
        words: tuple[str, ...]) -> None:
    path = write(tmp_path, export(change))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "export.json: ", *words)
