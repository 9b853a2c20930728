"""A secret of this environment in any format's working dir, ids or metadata is never kept.

Every format goes through one scrubber (``cli/import_secrets.redact_secrets``); fresh20c #2
found the goosectx export's own fields outside it (its working dir printed in clear, its
metadata keys, message and tool-call ids stored verbatim). Each transcript below puts the
secret ``K`` where its format keeps a working dir, a session id, record ids, tool-call ids (a
call and its result) and, where it has one, a free metadata key; the import must print and
store none of it, and each call must still pair with its result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import cli
from import_support import (
    write_goose_db,
    write_goose_json,
    write_jsonl,
)
from store_support import assert_not_in_sessions_db

Write = Callable[[Path, str], Path]


def _openai(tmp: Path, k: str) -> Path:
    call = {"id": f"c_{k}", "type": "function",
            "function": {"name": "shell", "arguments": '{"command": "ls"}'}}
    path = tmp / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "list"},
                                {"role": "assistant", "content": None, "tool_calls": [call]},
                                {"role": "tool", "tool_call_id": f"c_{k}", "content": "a.py"},
                                {"role": "assistant", "content": "one file"}]))
    return path


def _swe_agent(tmp: Path, k: str) -> Path:
    call = {"id": f"c_{k}", "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    path = tmp / "run.traj"
    path.write_text(json.dumps({"history": [
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "look", "tool_calls": [call]},
        {"role": "tool", "tool_call_ids": [f"c_{k}"], "content": "a.py"},
        {"role": "assistant", "content": "done"}], "info": {"exit_status": "submitted"}}))
    return path


def _claude_code(tmp: Path, k: str) -> Path:
    base = {"sessionId": f"s-{k}", "cwd": f"/tmp/{k}", "isSidechain": False}
    return write_jsonl(tmp / "session.jsonl", [
        {**base, "type": "user", "uuid": f"u1-{k}", "message": {"role": "user", "content": "ls"}},
        {**base, "type": "assistant", "uuid": f"a1-{k}", "message": {
            "id": f"m-{k}", "role": "assistant", "content": [
                {"type": "tool_use", "id": f"t_{k}", "name": "Bash", "input": {"command": "ls"}}]}},
        {**base, "type": "user", "uuid": f"u2-{k}", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t_{k}", "content": "a.py"}]}}])


def _codex(tmp: Path, k: str) -> Path:
    def item(payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": "2025-09-19T09:02:12.000Z", "type": "response_item",
                "payload": payload}

    return write_jsonl(tmp / "rollout.jsonl", [
        {"timestamp": "2025-09-19T09:02:12.000Z", "type": "session_meta",
         "payload": {"id": f"r-{k}", "cwd": f"/tmp/{k}"}},
        item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "ls"}]}),
        item({"type": "function_call", "name": "shell", "call_id": f"f_{k}",
              "arguments": json.dumps({"command": ["ls"]})}),
        item({"type": "function_call_output", "call_id": f"f_{k}", "output": "a.py"})])


def _gemini_cli(tmp: Path, k: str) -> Path:
    path = tmp / "session.json"
    path.write_text(json.dumps({"sessionId": f"g-{k}", "projectHash": k, "messages": [
        {"id": f"1-{k}", "type": "user", "content": [{"text": "read a.txt"}]},
        {"id": f"2-{k}", "type": "gemini", "content": "", "toolCalls": [
            {"id": f"r_{k}", "name": "read_file", "args": {"file_path": "a.txt"},
             "status": "success", "result": [{"functionResponse": {
                 "id": f"r_{k}", "name": "read_file", "response": {"output": "x"}}}]}]}]}))
    return path


def _qwen_code(tmp: Path, k: str) -> Path:
    return write_jsonl(tmp / "chat.jsonl", [
        {"uuid": f"q1-{k}", "sessionId": f"s-{k}", "cwd": f"/tmp/{k}", "type": "user",
         "message": {"role": "user", "parts": [{"text": "hi"}]}},
        {"uuid": f"q2-{k}", "type": "assistant", "message": {"role": "model", "parts": [
            {"functionCall": {"id": f"c_{k}", "name": "ls", "args": {}}}]}},
        {"uuid": f"q3-{k}", "type": "tool_result", "message": {"role": "user", "parts": [
            {"functionResponse": {"id": f"c_{k}", "name": "ls",
                                  "response": {"output": "x"}}}]}}])


def _copilot(tmp: Path, k: str) -> Path:
    def ev(kind: str, **data: object) -> dict[str, object]:
        return {"type": kind, "data": data, "timestamp": "2026-04-23T17:11:16.000Z"}

    return write_jsonl(tmp / "events.jsonl", [
        ev("session.start", sessionId=f"cp-{k}", context={"cwd": f"/tmp/{k}"}),
        ev("user.message", content="look"),
        ev("assistant.message", content="", toolRequests=[
            {"toolCallId": f"t_{k}", "name": "view", "arguments": {"path": "/r"}}]),
        ev("tool.execution_start", toolCallId=f"t_{k}", toolName="view"),
        ev("tool.execution_complete", toolCallId=f"t_{k}", success=True,
           result={"content": "a"})])


def _goose_blocks(k: str) -> list[tuple[str, list[dict[str, object]]]]:
    return [("user", [{"type": "text", "text": "ls"}]),
            ("assistant", [{"type": "toolRequest", "id": f"r_{k}", "toolCall": {
                "status": "success", "value": {"name": "developer__shell",
                                               "arguments": {"command": "ls"}}}}]),
            ("user", [{"type": "toolResponse", "id": f"r_{k}", "toolResult": {
                "status": "success", "value": [{"type": "text", "text": "a.py"}]}}])]


def _goose_json(tmp: Path, k: str) -> Path:
    return write_goose_json(tmp / "goose.json", _goose_blocks(k), session_id=f"s-{k}",
                            working_dir=f"/tmp/{k}", id_suffix=f"-{k}")


def _goose_db(tmp: Path, k: str) -> Path:
    return write_goose_db(tmp / "sessions.db", _goose_blocks(k), session_id=f"s-{k}",
                          working_dir=f"/tmp/{k}", id_suffix=f"-{k}")


def _aider(tmp: Path, k: str) -> Path:  # text only: no ids, no working dir
    path = tmp / ".aider.chat.history.md"
    path.write_text(f"\n# aider chat started at 2025-08-06 12:06:30\n\n#### run with {k}  \n\n"
                    f"Ran it with {k}.\n")
    return path


def _console(tmp: Path, k: str) -> Path:  # text only
    path = tmp / "day.md"
    path.write_text(f"claude\n╭──╮\n│ ✻ Welcome │\n╰──╯\n\n> use {k}\n\n⏺ Used {k}.\n")
    return path


def _goosectx(tmp: Path, k: str) -> Path:
    lines = [  # the messages as an export writes them
        ("user", [{"type": "text", "text": "ls"}]),
        ("assistant", [{"type": "tool_request", "id": f"call_{k}", "name": "shell",
                        "arguments": {"command": "ls"}}]),
        ("user", [{"type": "tool_response", "id": f"call_{k}", "output": "a.py",
                   "is_error": False}])]
    path = tmp / "export.json"
    path.write_text(json.dumps({
        "format": "goosectx-session", "schema_version": 2,
        "session": {"id": "20250101_000000_abcd", "name": "src", "working_dir": f"/tmp/{k}",
                    "model": "openai/fake", "created": "2025-01-01T00:00:00+00:00",
                    "updated": "2025-01-01T00:00:00+00:00", "current_tokens": 10,
                    "current_is_estimate": True, "metadata": {k: "key", "note": k}},
        "messages": [{"id": f"msg_{i}_{k}", "role": role,
                      "created": "2025-01-01T00:00:00+00:00", "content": content,
                      "metadata": {"user_visible": True, "agent_visible": True}}
                     for i, (role, content) in enumerate(lines)],
        "usage_ledger": []}))
    return path


FORMATS: dict[str, Write] = {
    "goosectx": _goosectx, "goose-db": _goose_db, "goose-json": _goose_json,
    "openai": _openai, "swe-agent": _swe_agent, "claude-code": _claude_code, "codex": _codex,
    "gemini-cli": _gemini_cli, "qwen-code": _qwen_code, "copilot": _copilot, "aider": _aider,
    "console": _console,
}


def test_every_format_is_here() -> None:
    from goosectx.importers import FORMATS as KNOWN

    assert set(FORMATS) == set(KNOWN)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_secret_anywhere_in_an_import_is_never_printed_or_stored(
        fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    source = FORMATS[fmt](tmp_path, DUMMY_API_KEY)
    out, err = cli(capsys, "sessions", "import", str(source), "--format", fmt, "--name", "imp")
    assert DUMMY_API_KEY not in out + err
    assert "a secret of this environment was redacted" in out + err
    assert_not_in_sessions_db(DUMMY_API_KEY)
    exported = cli(capsys, "sessions", "export", "imp", "-f", "json")[0]
    assert DUMMY_API_KEY not in exported
    parts = [p for m in json.loads(exported)["messages"] for p in m["content"]]
    calls = [p["id"] for p in parts if p["type"] == "tool_request"]
    results = [p["id"] for p in parts if p["type"] == "tool_response"]
    assert calls == results  # a call and its result still pair
    assert len(calls) == (0 if fmt in ("aider", "console") else 1)
    assert all("REDACTED" in i for i in calls)
