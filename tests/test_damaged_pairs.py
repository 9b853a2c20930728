"""``--skip-damaged`` on a row that is one side of a tool pair (a call or its result).

The export leaves the row out; the other side must not be left alone without a word: the
transcript and the warning say the call's result (or the result's call) was lost with the
damaged row, and after ``sessions import`` of the export the model's view holds no orphan
tool call or tool response.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.config import load_settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.store import SessionStore


def _session(work: Path) -> Path:
    """A session with two tool pairs in the middle of its transcript."""
    store = SessionStore(load_settings(None).data_dir)
    try:
        session = store.create_session(work, name="pairs")
        store.append_message(session.id, Message.user("port the parser"))
        store.append_message(session.id, Message("assistant", (
            ToolRequest("t1", "shell", {"command": "ls src"}),)))
        store.append_message(session.id, Message("user", (ToolResponse("t1", "a.py"),)))
        store.append_message(session.id, Message("assistant", (
            ToolRequest("t2", "shell", {"command": "cat a.py"}),)))
        store.append_message(session.id, Message("user", (ToolResponse("t2", "x = 1"),)))
        store.append_message(session.id, Message.assistant("Ported it."))
        store.append_message(session.id, Message.user("thanks"))
        return store.path
    finally:
        store.close()


def _damage(db: Path, like: str, content: list[dict[str, object]]) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE messages SET content_json=? WHERE content_json LIKE ?",
                     (json.dumps(content), like))
    conn.close()


def _agent_view_pairs(capsys: pytest.CaptureFixture[str], ref: str) -> str:
    code, out, err = run_cli(capsys, "sessions", "show", ref, "--agent")
    assert code == 0, err
    return out


def _import_export(capsys: pytest.CaptureFixture[str], work: Path) -> tuple[str, dict]:
    saved = work / "saved.json"
    code, _, err = run_cli(capsys, "sessions", "export", "pairs", "-f", "json", "-o",
                           str(saved), "--skip-damaged")
    assert code == 0, err
    data = json.loads(saved.read_text())
    code, out, err2 = run_cli(capsys, "sessions", "import", str(saved))
    assert code == 0, err2
    return err, data


def _orphans(messages: list[dict]) -> list[str]:
    """Tool calls without a result in the next message, results without a call before."""
    bad, calls = [], set()
    for i, m in enumerate(messages):
        for p in m["content"]:
            if p["type"] == "tool_request":
                nxt = messages[i + 1]["content"] if i + 1 < len(messages) else []
                if not any(q.get("id") == p["id"] and q["type"] == "tool_response"
                           for q in nxt):
                    bad.append(f"call {p['id']}")
                calls.add(p["id"])
            if p["type"] == "tool_response" and p["id"] not in calls:
                bad.append(f"result {p['id']}")
    return bad


def test_a_damaged_result_row_in_the_middle_is_marked_as_a_lost_result(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _session(work)
    _damage(db, '%"id":"t1","output"%',
            [{"type": "tool_response", "id": "t1", "output": ["a"]}])
    code, out, err = run_cli(capsys, "sessions", "show", "pairs", "--skip-damaged")
    assert code == 0, err
    assert "lost with a damaged row" in out  # where the result was, the transcript says so
    assert "result of 1 tool call (shell)" in err and "left out" in err
    err, data = _import_export(capsys, work)
    assert "result of 1 tool call (shell)" in err
    assert _orphans(data["messages"]) == []
    texts = json.dumps(data["messages"])
    assert "lost with a damaged row" in texts and "cat a.py" in texts
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    imported = next(r["id"] for r in json.loads(out) if r["name"] != "pairs")
    shown = run_cli(capsys, "sessions", "show", imported)[1]
    assert "ls src" in shown and "lost with a damaged row" in shown
    agent = _agent_view_pairs(capsys, imported)
    assert "ls src" in agent and "lost with a damaged row" in agent  # the model learns it


def test_a_damaged_call_row_leaves_its_result_marked_and_out_of_the_model_view(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _session(work)
    _damage(db, '%"id":"t1","name"%', [{"type": "tool_request", "id": "t1", "name": 5}])
    code, out, err = run_cli(capsys, "sessions", "show", "pairs", "--skip-damaged")
    assert code == 0, err
    assert "lost with a damaged row" in out
    assert "call of 1 tool result" in err and "left out" in err
    err, data = _import_export(capsys, work)
    assert "call of 1 tool result" in err
    assert _orphans(data["messages"]) == []
    texts = json.dumps(data["messages"])
    assert "a.py" in texts and "lost with a damaged row" in texts
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    imported = next(r["id"] for r in json.loads(out) if r["name"] != "pairs")
    shown = run_cli(capsys, "sessions", "show", imported)[1]
    assert "lost with a damaged row" in shown and "a.py" in shown
    agent = _agent_view_pairs(capsys, imported)
    assert "lost with a damaged row" in agent and "cat a.py" in agent


def test_a_damaged_last_result_row_is_marked_and_an_import_adds_no_other_answer(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(load_settings(None).data_dir)
    try:
        session = store.create_session(work, name="pairs")
        store.append_message(session.id, Message.user("list it"))
        store.append_message(session.id, Message("assistant", (
            ToolRequest("t9", "shell", {"command": "ls"}),)))
        store.append_message(session.id, Message("user", (ToolResponse("t9", "a.py"),)))
        db = store.path
    finally:
        store.close()
    _damage(db, '%"id":"t9","output"%', [{"type": "tool_response", "id": "t9", "output": 5}])
    err, data = _import_export(capsys, work)
    assert "result of 1 tool call (shell)" in err
    assert _orphans(data["messages"]) == []
    assert "lost with a damaged row" in json.dumps(data["messages"][-1])
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    imported = next(r["id"] for r in json.loads(out) if r["name"] != "pairs")
    shown = run_cli(capsys, "sessions", "show", imported)[1]
    assert shown.count("lost with a damaged row") == 1 and "no result in the import" not in shown


def test_the_model_view_skips_a_damaged_row_as_the_transcript_does(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _session(work)
    conn = sqlite3.connect(db)
    with conn:  # a row that is not JSON at all, the result of `cat a.py`
        conn.execute("UPDATE messages SET content_json='{bad' WHERE content_json LIKE ?",
                     ('%"id":"t2","output"%',))
    conn.close()
    code, out, err = run_cli(capsys, "sessions", "show", "pairs", "--agent")
    assert code == 1 and "--skip-damaged" in err  # without the flag: the error, as before
    code, transcript, told = run_cli(capsys, "sessions", "show", "pairs", "--skip-damaged")
    assert code == 0, told
    code, out, err = run_cli(capsys, "sessions", "show", "pairs", "--agent", "--skip-damaged")
    assert code == 0, err
    assert err == told  # the same warning: one message left out, the result it held
    assert "result of 1 tool call (shell)" in err and "left out" in err
    for text in ("port the parser", "ls src", "a.py", "cat a.py", "lost with a damaged row",
                 "Ported it.", "thanks"):
        assert text in out and text in transcript
    assert "x = 1" not in out
