"""What the model is sent after ``sessions import`` of another agent's transcript (round 15a).

An imported transcript reaches the model whole: one that starts mid-conversation (with the
assistant's reply), tool calls without results and results without calls (mended at import,
and said), and a secret of this environment inside an imported tool output (redacted at import).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db


def _sent(server: FakeServer) -> str:
    """Every message of the last request, as one text (roles, contents, tool calls)."""
    return json.dumps(server.requests[-1]["messages"][1:], ensure_ascii=False)


def _import(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[str, str]:
    return cli(capsys, "sessions", "import", str(path), "--name", "imp", *extra)


def test_a_transcript_that_starts_with_the_assistant_reaches_the_model(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "asst_first.json"
    source.write_text(json.dumps([
        {"role": "assistant", "content": "I already edited src/app.py: 3 failures remain",
         "tool_calls": [{"id": "a", "type": "function",
                         "function": {"name": "shell", "arguments": "{\"command\":\"pytest\"}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "3 failed"},
        {"role": "assistant", "content": "Next: fix test_b"}]))
    _import(capsys, source)
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue the fix")
    messages = fake_model.requests[-1]["messages"][1:]
    sent = _sent(fake_model)
    assert "I already edited src/app.py" in sent
    assert "3 failed" in sent and "Next: fix test_b" in sent
    assert messages[0]["role"] == "user" and "starts mid-way" in messages[0]["content"]
    assert messages[-1] == {"role": "user", "content": "continue the fix"}


def _unpaired(tmp_path: Path, fmt: str) -> Path:
    """A transcript in ``fmt``: a request, a call (shell) with no result, a result with no
    call (its output ``orphan output 42``), then the user's next message."""
    if fmt == "qwen-code":
        lines = [
            {"uuid": "1", "sessionId": "s", "type": "user",
             "message": {"role": "user", "parts": [{"text": "list the files"}]}},
            {"uuid": "2", "sessionId": "s", "type": "assistant", "message": {"role": "model", "parts": [
                {"text": "looking"}, {"functionCall": {"id": "f1", "name": "shell",
                                                       "args": {"command": "ls"}}}]}},
            {"uuid": "3", "sessionId": "s", "type": "tool_result", "message": {"role": "user", "parts": [
                {"functionResponse": {"id": "ORPH", "name": "x",
                                      "response": {"output": "orphan output 42"}}}]}},
            {"uuid": "4", "sessionId": "s", "type": "user",
             "message": {"role": "user", "parts": [{"text": "and then?"}]}}]
        path = tmp_path / "chat.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return path
    if fmt == "claude-code":
        lines = [
            {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "list the files"}},
            {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
                {"type": "text", "text": "looking"},
                {"type": "tool_use", "id": "t1", "name": "shell", "input": {"command": "ls"}}]}},
            {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "ORPH", "content": "orphan output 42"}]}},
            {"type": "user", "uuid": "u3", "message": {"role": "user", "content": "and then?"}}]
        path = tmp_path / "claude.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return path
    meta = {"userVisible": True, "agentVisible": True}
    conversation = [
        {"id": "m1", "role": "user", "created": 1_700_000_000, "metadata": meta,
         "content": [{"type": "text", "text": "list the files"}]},
        {"id": "m2", "role": "assistant", "created": 1_700_000_001, "metadata": meta,
         "content": [{"type": "text", "text": "looking"}, {"type": "toolRequest", "id": "t1", "toolCall": {
             "status": "success", "value": {"name": "shell", "arguments": {"command": "ls"}}}}]},
        {"id": "m3", "role": "user", "created": 1_700_000_002, "metadata": meta,
         "content": [{"type": "toolResponse", "id": "tORPH", "toolResult": {
             "status": "success", "value": [{"type": "text", "text": "orphan output 42"}]}}]},
        {"id": "m4", "role": "user", "created": 1_700_000_003, "metadata": meta,
         "content": [{"type": "text", "text": "and then?"}]}]
    path = tmp_path / "goose.json"
    path.write_text(json.dumps({"id": "g1", "name": "goose", "working_dir": "/nowhere",
                                "conversation": conversation}))
    return path


@pytest.mark.parametrize("fmt", ["goose-json", "qwen-code", "claude-code"])
def test_unpaired_tool_calls_and_results_are_mended_at_import_and_said(
        fmt: str, fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    out, err = _import(capsys, _unpaired(tmp_path, fmt), "--format", fmt)
    assert "1 tool call (shell) had no result in the transcript" in err, (out, err)
    assert "1 tool result had no call in the transcript" in err, (out, err)
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue")
    messages = fake_model.requests[-1]["messages"][1:]
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    assert [c["function"]["name"] for c in calls] == ["shell"]
    results = [m for m in messages if m["role"] == "tool"]
    assert len(results) == 1 and "has no result for this call" in results[0]["content"]
    assert results[0]["tool_call_id"] == calls[0]["id"]
    assert "orphan output 42" in _sent(fake_model)  # the result without a call, as text
    assert "and then?" in _sent(fake_model)


def test_a_huge_part_is_elided_whatever_came_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Codex reply's text appended after a call with no output was stored whole."""
    from goosectx.importers import builder

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builder, "MAX_MESSAGE_CHARS", 10_000)
    at = "2025-09-19T09:02:13Z"
    lines = [
        {"timestamp": at, "type": "session_meta", "payload": {"id": "s2", "cwd": "/tmp"}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "start " + "B" * 50_000 + " end"}]}}]
    source = tmp_path / "rollout.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _import(capsys, source)
    shown, _ = cli(capsys, "sessions", "export", "imp", "-f", "json")
    texts = [p["text"] for m in json.loads(shown)["messages"] for p in m["content"]
             if p["type"] == "text"]
    assert any("B" * 100 in t for t in texts)
    for text in texts:
        assert len(text) < 10_100, len(text)
    assert any("40,010 characters elided on import" in t for t in texts)


def test_a_gemini_record_reusing_an_earlier_id_keeps_both_messages_and_says_so(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [
        {"sessionId": "dupid", "projectHash": "h", "startTime": "2026-04-23T12:52:52Z"},
        {"id": "1", "timestamp": "2026-04-23T12:53:05Z", "type": "user",
         "content": [{"text": "please do the task dupid"}]},
        {"id": "1", "timestamp": "2026-04-23T12:53:06Z", "type": "gemini", "content": "reply",
         "toolCalls": [{"id": "tc1", "name": "read_file", "args": {"p": "a"}, "status": "success",
                        "result": [{"functionResponse": {"id": "tc1", "name": "read_file",
                                                         "response": {"output": "content"}}}]}]},
        {"id": "3", "timestamp": "2026-04-23T12:53:09Z", "type": "gemini",
         "content": "final answer dupid"}]
    source = tmp_path / "session.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, err = _import(capsys, source, "--format", "gemini-cli")
    assert "4 messages" in out
    assert "line 3 reuses the id of line 2 (another message): both are kept" in err
    shown, _ = cli(capsys, "sessions", "show", "imp")
    assert "please do the task dupid" in shown
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue")
    assert fake_model.requests[-1]["messages"][1]["content"] == "please do the task dupid"


def test_a_claude_code_record_reusing_a_uuid_for_another_message_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "first request"}},
        {"type": "assistant", "uuid": "u1", "message": {"role": "assistant", "content": "answer"}},
        {"type": "assistant", "uuid": "u1", "message": {"role": "assistant", "content": "again"}}]
    source = tmp_path / "claude.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, err = _import(capsys, source, "--format", "claude-code")
    assert "2 messages" in out  # line 3, of line 2's type, is line 2 written again
    assert "line 2 reuses the uuid of line 1 (another message): both are kept" in err
    shown, _ = cli(capsys, "sessions", "show", "imp")
    assert "first request" in shown and "answer" in shown


def test_a_secret_of_this_environment_in_an_imported_tool_output_is_redacted(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    source = tmp_path / "keytool.json"
    source.write_text(json.dumps([
        {"role": "user", "content": "check env"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function",
         "function": {"name": "shell", "arguments": "{\"command\":\"env\"}"}}]},
        {"role": "tool", "tool_call_id": "a",
         "content": f"HOME=/root\nOPENAI_API_KEY={DUMMY_API_KEY}\nPATH=/bin"},
        {"role": "assistant", "content": "done"}]))
    _out, err = _import(capsys, source)
    assert "a secret of this environment was redacted in 1 tool output" in err
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue")
    sent = _sent(fake_model)
    assert DUMMY_API_KEY not in sent and "OPENAI_API_KEY=[REDACTED]" in sent
    assert_not_in_sessions_db(DUMMY_API_KEY)
    shown, _ = cli(capsys, "sessions", "export", "imp", "-f", "json")
    assert DUMMY_API_KEY not in shown


@pytest.mark.parametrize("name", ["ctl.jsonl", "ctl.json"])
def test_a_raw_control_character_in_a_json_string_is_named_with_its_line_and_column(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from cli_support import run_cli

    monkeypatch.chdir(tmp_path)
    source = tmp_path / name
    source.write_text('{"type":"user","message":{"role":"user","content":"a\x01b"}}\n')
    code, _out, err = run_cli(capsys, "sessions", "import", str(source))
    assert code == 2
    assert (f"{name}: line 1 column 53: not valid JSON: a raw control character (U+0001) inside "
            "a string (JSON writes it as \\u0001)") in err, err
    assert " at)" not in err and len(err.strip().splitlines()) == 1


def test_a_secret_in_imported_tool_arguments_reasoning_and_text_is_redacted(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import DUMMY_API_KEY

    monkeypatch.chdir(tmp_path)
    curl = f"curl -H 'Authorization: Bearer {DUMMY_API_KEY}' https://api.example.com"
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "message": {
            "role": "user", "content": "call the API"}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s", "message": {
            "role": "assistant", "content": [
                {"type": "thinking", "thinking": f"the key is {DUMMY_API_KEY}",
                 "signature": "sig"},
                {"type": "text", "text": f"Using {DUMMY_API_KEY} now."},
                {"type": "tool_use", "id": "t1", "name": "Bash",
                 "input": {"command": curl}}]}},
        {"type": "user", "uuid": "u2", "sessionId": "s", "message": {
            "role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "200 OK"}]}},
        {"type": "assistant", "uuid": "a2", "sessionId": "s", "message": {
            "role": "assistant", "content": "done"}}]
    source = tmp_path / "claude.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _out, err = _import(capsys, source, "--format", "claude-code")
    assert ("a secret of this environment was redacted in 1 reasoning part, 1 text part, "
            "1 tool call") in " ".join(err.split())
    assert_not_in_sessions_db(DUMMY_API_KEY)
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--resume", "imp", "-t", "continue")
    assert DUMMY_API_KEY not in _sent(fake_model)
