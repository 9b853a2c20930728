"""Importers on small hand-written transcripts (no corpus needed), and import errors.

Each fixture is a minimal file in the shape the tool writes (see the importer modules'
docstrings); they were written for these tests.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_support import run_cli as run
from import_support import GOOSE_DB_TABLES

from goosectx.config import load_settings
from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.errors import ImportFormatError
from goosectx.importers import load_sessions
from goosectx.session import Session
from goosectx.store import SessionStore
from goosectx.usage import LedgerEntry, Usage


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def only(path: Path, fmt: str = "auto") -> Session:
    sessions = load_sessions(path, fmt=fmt, working_dir=path.parent)
    assert len(sessions) == 1
    return sessions[0]


def shape(session: Session) -> list[tuple[str, list[str]]]:
    return [(m.role, [p.type for p in m.content]) for m in session.conversation]


def pairs(session: Session) -> list[tuple[str, str]]:
    out = []
    for m in session.conversation:
        out += [(p.id, p.name) for p in m.tool_requests]
    answered = {p.id for m in session.conversation for p in m.tool_responses}
    assert {i for i, _ in out} == answered
    return out


def test_openai_chat_list_with_tool_calls_and_reused_ids(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    call = {"id": "c1", "type": "function", "function": {"name": "shell",
                                                         "arguments": '{"command": "ls"}'}}
    path.write_text(json.dumps([
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": [{"type": "text", "text": "list files"}]},
        {"role": "assistant", "content": None, "tool_calls": [call],
         "reasoning_content": "I should run ls"},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
        {"role": "assistant", "content": "again", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py b.py"},
        {"role": "assistant", "content": "Two files."},
    ]))
    session = only(path)
    assert session.metadata["source"] == "openai"
    assert session.metadata["system_prompt"] == "You are terse."
    assert shape(session) == [
        ("user", ["text"]), ("assistant", ["thinking", "tool_request"]),
        ("user", ["tool_response"]), ("assistant", ["text", "tool_request"]),
        ("user", ["tool_response"]), ("assistant", ["text"])]
    assert pairs(session) == [("c1", "shell"), ("c1#2", "shell")]
    second = session.conversation.messages[4].tool_responses[0]
    assert (second.id, second.output) == ("c1#2", "a.py b.py")


def test_claude_code_blocks_thinking_results_and_usage(tmp_path: Path) -> None:
    base = {"sessionId": "s1", "cwd": "/repo", "isSidechain": False}
    path = write_jsonl(tmp_path / "session.jsonl", [
        {**base, "type": "summary", "summary": "Fix the bug", "leafUuid": "x"},
        {**base, "type": "user", "uuid": "u1", "timestamp": "2025-01-02T03:04:05.000Z",
         "message": {"role": "user", "content": "fix a.py"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2025-01-02T03:04:06Z",
         "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [
             {"type": "thinking", "thinking": "look first", "signature": "sig"}],
             "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 5}}},
        {**base, "type": "assistant", "uuid": "a2", "timestamp": "2025-01-02T03:04:07Z",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Edit",
              "input": {"file_path": "a.py", "old_string": "x", "new_string": "y"}}],
             "usage": {"input_tokens": 10, "output_tokens": 5}}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2025-01-02T03:04:08Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
              "content": [{"type": "text", "text": "rejected"}]}]}},
        {**base, "type": "user", "uuid": "u2", "message": {"role": "user", "content": "dup"}},
        {**base, "isSidechain": True, "type": "user", "uuid": "s9",
         "message": {"role": "user", "content": "sub-agent prompt"}},
    ])
    session = only(path)
    assert session.metadata["source"] == "claude-code"
    assert session.metadata["source_title"] == "Fix the bug"
    assert session.metadata["source_model"] == "claude-x"
    assert shape(session) == [("user", ["text"]), ("assistant", ["thinking"]),
                              ("assistant", ["tool_request"]), ("user", ["tool_response"])]
    messages = session.conversation.messages
    assert messages[0].created == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert messages[1].content[0] == ThinkingContent("look first", "sig")
    assert messages[1].metadata.usage == Usage(100, 5, 105, 90, None)
    assert messages[2].metadata.usage is None  # same API message: counted once
    assert messages[3].tool_responses[0] == ToolResponse("t1", "rejected", True)


def test_codex_rollout_apply_patch_is_a_tool_request(tmp_path: Path) -> None:
    def item(payload: dict) -> dict:
        return {"timestamp": "2025-09-19T09:02:12.000Z", "type": "response_item",
                "payload": payload}

    path = write_jsonl(tmp_path / "rollout.jsonl", [
        {"timestamp": "2025-09-19T09:02:12.000Z", "type": "session_meta",
         "payload": {"id": "r1", "cwd": "/p", "instructions": "Be careful."}},
        item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]}),
        item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "bump go.mod"}]}),
        {"timestamp": "x", "type": "event_msg", "payload": {"type": "user_message"}},
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}],
              "encrypted_content": "ENC"}),
        item({"type": "function_call", "name": "shell", "call_id": "f1",
              "arguments": json.dumps({"command": ["bash", "-lc", "false"]})}),
        item({"type": "function_call_output", "call_id": "f1",
              "output": json.dumps({"output": "boom", "metadata": {"exit_code": 1}})}),
        item({"type": "custom_tool_call", "name": "apply_patch", "call_id": "p1",
              "input": "*** Begin Patch\n*** Update File: go.mod\n*** End Patch"}),
        item({"type": "custom_tool_call_output", "call_id": "p1", "output": "Done"}),
        item({"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Bumped."}]}),
    ])
    session = only(path)
    assert session.metadata["system_prompt"] == "Be careful."
    assert shape(session) == [
        ("user", ["text"]), ("user", ["text"]),
        ("assistant", ["thinking", "tool_request"]), ("user", ["tool_response"]),
        ("assistant", ["tool_request"]), ("user", ["tool_response"]), ("assistant", ["text"])]
    env = session.conversation.messages[0]
    assert (env.metadata.user_visible, env.metadata.extra["source_kind"]) == (False, "harness")
    assert pairs(session) == [("f1", "shell"), ("p1", "apply_patch")]
    failed = session.conversation.messages[3].tool_responses[0]
    assert (failed.output, failed.is_error) == ("boom", True)


def test_gemini_cli_json_and_qwen_code(tmp_path: Path) -> None:
    gemini = tmp_path / "session.json"
    gemini.write_text(json.dumps({"sessionId": "g1", "projectHash": "h", "messages": [
        {"id": "1", "type": "user", "timestamp": "2026-01-01T00:00:00Z",
         "content": [{"text": "read a.txt"}]},
        {"id": "2", "type": "gemini", "content": "", "model": "gemini-x",
         "thoughts": [{"subject": "Plan", "description": "read it"}],
         "tokens": {"input": 10, "output": 2, "thoughts": 3, "total": 15},
         "toolCalls": [{"id": "r1", "name": "read_file", "args": {"file_path": "a.txt"},
                        "status": "error", "result": [{"functionResponse": {
                            "id": "r1", "name": "read_file",
                            "response": {"error": "not found"}}}]}]},
        {"id": "3", "type": "info", "content": "Request cancelled."},
    ]}))
    session = only(gemini)
    assert session.metadata["source"] == "gemini-cli"
    assert shape(session) == [("user", ["text"]), ("assistant", ["thinking", "tool_request"]),
                              ("user", ["tool_response"]), ("assistant", ["system_notification"])]
    assert session.conversation.messages[2].tool_responses[0].is_error
    assert session.conversation.messages[1].metadata.usage == Usage(10, 5, 15)
    assert not session.conversation.messages[3].metadata.agent_visible

    qwen = write_jsonl(tmp_path / "chat.jsonl", [
        {"uuid": "q1", "sessionId": "s", "type": "user", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "parts": [{"text": "hi"}]}},
        {"uuid": "q2", "type": "system", "subtype": "ui_telemetry", "systemPayload": {}},
        {"uuid": "q3", "type": "assistant", "model": "qwen", "message": {"role": "model",
         "parts": [{"text": "hmm", "thought": True},
                   {"functionCall": {"id": "c", "name": "ls", "args": {}}}]}},
        {"uuid": "q4", "type": "tool_result", "message": {"role": "user", "parts": [
            {"functionResponse": {"id": "c", "name": "ls", "response": {"output": "x"}}}]}},
    ])
    session = only(qwen)
    assert session.metadata["source"] == "qwen-code"
    assert shape(session) == [("user", ["text"]), ("assistant", ["thinking", "tool_request"]),
                              ("user", ["tool_response"])]


def test_copilot_events_and_an_unannounced_tool_run(tmp_path: Path) -> None:
    def ev(kind: str, **data: object) -> dict:
        return {"type": kind, "data": data, "timestamp": "2026-04-23T17:11:16.000Z"}

    path = write_jsonl(tmp_path / "events.jsonl", [
        ev("session.start", sessionId="cp", context={"cwd": "/r"}),
        ev("system.message", role="system", content="You are Copilot."),
        ev("user.message", content="research docs", transformedContent="<x>research docs"),
        ev("assistant.message", content="", reasoningText="think",
           toolRequests=[{"toolCallId": "t1", "name": "view", "arguments": {"path": "/r"}}]),
        ev("tool.execution_start", toolCallId="t1", toolName="view"),
        ev("tool.execution_complete", toolCallId="t1", success=True, result={"content": "a"}),
        ev("tool.execution_start", toolCallId="t2", toolName="glob",
           arguments={"pattern": "*.rs"}),
        ev("tool.execution_complete", toolCallId="t2", success=False,
           error={"message": "bad glob"}),
        ev("assistant.message", content="Done."),
    ])
    session = only(path)
    assert session.metadata["system_prompt"] == "You are Copilot."
    assert shape(session) == [
        ("user", ["text"]), ("assistant", ["thinking", "tool_request"]),
        ("user", ["tool_response"]), ("assistant", ["tool_request"]), ("user", ["tool_response"]),
        ("assistant", ["text"])]
    assert pairs(session) == [("t1", "view"), ("t2", "glob")]
    assert session.conversation.messages[4].tool_responses[0] == ToolResponse(
        "t2", "bad glob", True)


def test_aider_history_and_console_copies_are_text_turns(tmp_path: Path) -> None:
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "\n# aider chat started at 2025-08-06 12:06:30\n\n> Aider v0.85.2  \n\n"
        "#### make app.py  \n#### print hi  \n\nPlan: write it.\n\n> Tokens: 1k sent  \n\n"
        "#### Plan: write it.  \n\napp.py\n```python\nprint('hi')\n```\n\n"
        "> Applied edit to app.py  \n\n#### /clear  \n")
    session = only(history)
    assert session.metadata["source"] == "aider"
    users = [m for m in session.conversation if m.role == "user"]
    assert [(m.text, m.metadata.extra.get("source_kind"), m.metadata.agent_visible)
            for m in users] == [("make app.py\nprint hi", None, True),
                                ("Plan: write it.", "harness", True),
                                ("/clear", "command", False)]
    notes = [m for m in session.conversation if not m.metadata.agent_visible
             and m.role == "assistant"]
    assert [m.content[0].text for m in notes] == [
        "Aider v0.85.2", "Tokens: 1k sent", "Applied edit to app.py"]
    assert session.conversation.messages[0].created == datetime(2025, 8, 6, 12, 6, 30,
                                                                tzinfo=UTC)

    console = tmp_path / "day.md"
    console.write_text("claude\n╭──╮\n│ ✻ Welcome │\n╰──╯\n\n> fix the test\n  please\n\n"
                       "⏺ Update(a.py)\n  ⎿  Updated a.py\n\n> /model opus\n\n  ⎿  Set model\n\n"
                       "> thanks\n\n⏺ You're welcome.\n")
    session = only(console)
    assert session.metadata["source_tool"] == "claude-code"
    assert [(m.role, m.text.splitlines()[0]) for m in session.conversation] == [
        ("user", "fix the test"), ("assistant", "⏺ Update(a.py)"), ("user", "/model opus"),
        ("assistant", "  ⎿  Set model"), ("user", "thanks"), ("assistant", "⏺ You're welcome.")]
    assert session.conversation.messages[0].text == "fix the test\nplease"


def test_early_codex_rollouts_and_legacy_goose_jsonl(tmp_path: Path) -> None:
    codex = write_jsonl(tmp_path / "rollout-old.jsonl", [
        {"id": "r0", "timestamp": "2025-05-01T00:00:00Z", "instructions": None},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "name": "shell", "call_id": "c", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"},
    ])
    session = only(codex)
    assert session.metadata["source"] == "codex"
    assert shape(session) == [("user", ["text"]), ("assistant", ["tool_request"]),
                              ("user", ["tool_response"])]
    goose = write_jsonl(tmp_path / "old-goose.jsonl", [
        {"working_dir": "/w", "description": "old session", "message_count": 2},
        {"role": "user", "created": 1717000000, "content": [{"type": "text", "text": "hey"}]},
        {"role": "assistant", "created": 1717000001, "content": [{"type": "text", "text": "yo"}]},
    ])
    session = only(goose)
    assert session.metadata["source"] == "goose-json"
    assert session.metadata["source_title"] == "old session"
    assert [m.text for m in session.conversation] == ["hey", "yo"]


def goose_db(path: Path, *, broken_row: bool = False) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(GOOSE_DB_TABLES + """
        CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT,
            created_timestamp INTEGER, model TEXT, input_tokens INTEGER, output_tokens INTEGER,
            total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER,
            cost REAL, is_compaction INTEGER);
    """)
    for n in (1, 2):
        conn.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?)",
                     (f"s{n}", f"Task {n}", "", "/work", f"2026-08-05 21:0{n}:00",
                      f"2026-08-05 21:0{n}:30", "ollama", '{"model_name": "qwen3"}'))
        rows = [
            ("user", [{"type": "text", "text": f"task {n}"}], {"userVisible": True,
                                                                "agentVisible": True}),
            ("assistant", [{"type": "thinking", "thinking": "Ok", "signature": ""},
                           {"type": "thinking", "thinking": "ay", "signature": ""},
                           {"type": "toolRequest", "id": f"r{n}", "toolCall": {
                               "status": "success", "value": {"name": "developer__shell",
                                                              "arguments": {"command": "ls"}}}}],
             {"userVisible": True, "agentVisible": True,
              "usage": {"inputTokens": 7, "outputTokens": 3, "totalTokens": 10}}),
            ("user", [{"type": "toolResponse", "id": f"r{n}", "toolResult": {
                "status": "error", "error": "-32002: Tool 'ls' not found"}}],
             {"userVisible": False, "agentVisible": True}),
        ]
        for i, (role, content, meta) in enumerate(rows):
            text = json.dumps(content)
            if broken_row and n == 2 and i == 1:
                text = "{not json"
            conn.execute("INSERT INTO messages (message_id, session_id, role, content_json,"
                         " created_timestamp, metadata_json) VALUES (?,?,?,?,?,?)",
                         (f"m{n}{i}", f"s{n}", role, text, 1785964761 + i, json.dumps(meta)))
        conn.execute("INSERT INTO usage_ledger (session_id, created_timestamp, model,"
                     " input_tokens, output_tokens, total_tokens, is_compaction)"
                     " VALUES (?,?,?,?,?,?,0)", (f"s{n}", 1785964762, "qwen3", 7, 3, 10))
    conn.commit()
    conn.close()
    return path


def test_goose_db_every_session_visibility_thinking_and_ledger(tmp_path: Path) -> None:
    sessions = load_sessions(goose_db(tmp_path / "sessions.db"), working_dir=tmp_path)
    assert [s.metadata["source_session_id"] for s in sessions] == ["s1", "s2"]
    first = sessions[0]
    assert first.metadata["source_title"] == "Task 1"
    assert first.metadata["source_model"] == "qwen3"
    reply = first.conversation.messages[1]
    assert reply.content[0] == ThinkingContent("Okay")  # streamed blocks joined
    assert reply.tool_requests[0] == ToolRequest("r1", "developer__shell", {"command": "ls"})
    assert reply.metadata.usage == Usage(7, 3, 10)
    result = first.conversation.messages[2]
    assert (result.metadata.user_visible, result.metadata.agent_visible) == (False, True)
    assert result.tool_responses[0].is_error
    assert [e.usage.total_tokens for e in first.ledger.entries] == [10]
    (only_second,) = load_sessions(tmp_path / "sessions.db", source_session="s2")
    assert only_second.metadata["source_session_id"] == "s2"
    with pytest.raises(ImportFormatError, match="no session 'nope'") as err:
        load_sessions(tmp_path / "sessions.db", source_session="nope")
    assert "s1, s2" in (err.value.hint or "")


def test_broken_records_are_named(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text('{"type": "session_meta", "payload": {}}\n\n{"type": oops}\n')
    with pytest.raises(ImportFormatError, match=r"rollout.jsonl: line 3 column \d+: not valid JSON: "):
        load_sessions(path, fmt="codex")
    with pytest.raises(ImportFormatError, match=r"session s2 message row 5: bad JSON"):
        load_sessions(goose_db(tmp_path / "g.db", broken_row=True))
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}, {"oops": 1}]}))
    with pytest.raises(ImportFormatError, match=r"messages\[1\]: expected a message"):
        load_sessions(chat)
    text = tmp_path / "notes.txt"
    text.write_text("just some notes\n")
    with pytest.raises(ImportFormatError, match="cannot tell the format of notes.txt"):
        load_sessions(text)
    with pytest.raises(ImportFormatError, match="unsupported format"):
        load_sessions(text, fmt="console")
    with pytest.raises(ImportFormatError, match="--session applies to goose"):
        load_sessions(chat, source_session="s1")


def stored(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    code, out, _ = run(capsys, "sessions", "list", "--json")
    assert code == 0
    return json.loads(out)


def test_a_failed_import_leaves_nothing_behind(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sessions", "import", str(goose_db(tmp_path / "b.db",
                                                                   broken_row=True)))
    assert code != 0 and "message row 5: bad JSON" in err
    assert stored(capsys) == []
    db = goose_db(tmp_path / "ok.db")
    code, out, _ = run(capsys, "sessions", "import", str(db), "--session", "s1", "--name", "g-2")
    assert code == 0
    code, _, err = run(capsys, "sessions", "import", str(db), "--name", "g")
    assert code == 2 and "'g-2' already exists" in err  # a bad argument, as --format is
    assert [r["name"] for r in stored(capsys)] == ["g-2"]  # g-1 was not saved either
    # The list shows the estimated context of an imported session, not 0.
    assert stored(capsys)[0]["current_tokens"] > 0


def test_a_second_import_of_a_goose_db_names_every_session_it_became(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = goose_db(tmp_path / "g.db")
    assert run(capsys, "sessions", "import", str(db), "--name", "g")[0] == 0
    code, out, err = run(capsys, "sessions", "import", str(db))
    assert code == 2 and out == ""
    assert "g.db was already imported as 2 sessions: g-1, g-2 (same content)" in err, err
    assert len(stored(capsys)) == 2

def test_own_json_export_imports_back_unchanged(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(load_settings(None).data_dir)
    original = store.create_session(tmp_path, name="orig", model="openai/gpt-4o",
                                    metadata={"note": "kept"})
    messages = [
        Message.user("hello"),
        Message("assistant", (ThinkingContent("hm", "sig"), TextContent("hi"),
                              ToolRequest("t1", "shell", {"command": "ls"}))),
        Message("user", (ToolResponse("t1", "a.py"),), MessageMetadata.user_only()),
        Message.user("summary", MessageMetadata.agent_only()).with_metadata(is_summary=True),
    ]
    for m in messages:
        store.append_message(original.id, m)
    store.add_usage(original.id, LedgerEntry(Usage.of(100, 20, 0.01), "openai/gpt-4o"),
                    current_tokens=120, is_estimate=False)
    before = store.load(original.id)
    store.close()
    export = tmp_path / "export.json"
    assert run(capsys, "sessions", "export", "orig", "--format", "json", "-o", str(export))[0] == 0

    # into the same store while the original is still there: a copy with fresh message ids
    code, out, _ = run(capsys, "sessions", "import", str(export), "--name", "copy")
    assert code == 0 and "(copy): 4 messages, 1 tool call from goosectx" in out
    store = SessionStore(load_settings(None).data_dir)
    copy = store.load(store.resolve("copy"))
    store.close()
    assert [m.content for m in copy.conversation] == [m.content for m in before.conversation]
    assert not {m.id for m in copy.conversation} & {m.id for m in before.conversation}
    assert run(capsys, "sessions", "remove", "orig", "--yes")[0] == 0
    assert run(capsys, "sessions", "remove", "copy", "--yes")[0] == 0

    # into a store without it: everything exactly as it was
    code, out, _ = run(capsys, "sessions", "import", str(export))
    assert code == 0
    store = SessionStore(load_settings(None).data_dir)
    after = store.load(store.resolve("orig"))
    store.close()
    assert after.id == before.id
    assert after.conversation.to_list() == before.conversation.to_list()
    assert [e.to_dict() for e in after.ledger.entries] == [
        e.to_dict() for e in before.ledger.entries]
    # the import adds its stamp and the source's working dir (issue 18), nothing else changes
    stamped = {k: v for k, v in after.metadata.items()
               if k not in ("imported_at", "source_working_dir")}
    assert (stamped, after.model, after.state, after.ledger.current_tokens) == (
        before.metadata, before.model, before.state, before.ledger.current_tokens)
    assert after.metadata["source_working_dir"] == str(before.working_dir)


@pytest.mark.parametrize(("change", "said"), [
    (lambda d: d.update(messages="notalist"), '"messages" must be a list of messages, not text'),
    (lambda d: d["messages"][0].update(content=123),
     'message #1: "content" must be a list of parts, not a number'),
    (lambda d: d["messages"][0].update(content=[5]),
     "message #1: a content part must be an object, not a number"),
    (lambda d: d.update(messages=[3]), "message #1: must be an object, not a number"),
    (lambda d: d.update(session=[]), '"session" must be an object, not a list'),
    (lambda d: d.update(usage_ledger=[1]), "usage_ledger entry #1: must be an object"),
    (lambda d: d["messages"][0]["content"][0].update(text=123),
     'message #1: text part: "text" must be text, not a number'),
    (lambda d: d["messages"][0]["content"].append(
        {"type": "tool_response", "id": "t1", "output": ["x"]}),
     'message #1: tool_response part: "output" must be text, not a list'),
    (lambda d: d["messages"].append(dict(d["messages"][0])),
     "message #2: its id 'm1' is also message #1's"),
    (lambda d: d["messages"][0].update(metadata={"compaction_id": [1], "is_summary": True}),
     'message #1: "metadata.compaction_id" must be text, not a list'),
    (lambda d: d["messages"][0].update(metadata={"extra": "x"}),
     'message #1: "metadata.extra" must be an object, not text'),
])
def test_own_json_export_with_a_wrong_field_type_names_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change, said) -> None:
    doc = {"format": "goosectx-session", "schema_version": 2,
           "session": {"id": "", "created": "2026-01-01T00:00:00+00:00",
                       "updated": "2026-01-01T00:00:00+00:00"},
           "messages": [{"role": "user", "id": "m1", "created": "2026-01-01T00:00:00+00:00",
                         "content": [{"type": "text", "text": "hi"}]}]}
    change(doc)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "sessions", "import", str(path))
    assert code == 2 and f"export.json: {said}" in err
    assert "object has no attribute" not in err and "not iterable" not in err
    assert len(err.strip().splitlines()) == 1
    assert stored(capsys) == []


@pytest.mark.parametrize("second_id", ["", "20250202_000000_cafe"])
def test_an_export_whose_messages_are_stored_under_another_session_imports_as_a_copy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], second_id: str) -> None:
    doc = {"format": "goosectx-session", "schema_version": 2,
           "session": {"id": "20250101_000000_beef", "created": "2026-01-01T00:00:00+00:00",
                       "updated": "2026-01-01T00:00:00+00:00"},
           "messages": [{"role": "user", "id": "m1", "created": "2026-01-01T00:00:00+00:00",
                         "content": [{"type": "text", "text": "port the parser"}]}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    assert run(capsys, "sessions", "import", str(path), "--name", "a")[0] == 0
    doc["session"]["id"] = second_id  # the same messages, said to be another (or no) session
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "sessions", "import", str(path), "--name", "b", "--force")
    assert code == 0 and "(b): 1 message" in out and "unreadable" not in err
    assert sorted(r["name"] for r in stored(capsys)) == ["a", "b"]
    for name in ("a", "b"):
        code, out, _ = run(capsys, "sessions", "show", name)
        assert code == 0 and "port the parser" in out


def test_a_source_field_of_the_wrong_type_is_refused_before_anything_is_saved(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Claude Code's thinking signature as an object: stored, the session could not be read
    # back ("message … is unreadable" on every later command).
    path = write_jsonl(tmp_path / "session.jsonl", [
        {"sessionId": "s1", "cwd": "/repo", "type": "user", "uuid": "u1",
         "timestamp": "2025-01-02T03:04:05Z", "message": {"role": "user", "content": "fix"}},
        {"sessionId": "s1", "cwd": "/repo", "type": "assistant", "uuid": "a1",
         "timestamp": "2025-01-02T03:04:06Z", "message": {"id": "m1", "role": "assistant",
         "content": [{"type": "thinking", "thinking": "look", "signature": {"type": "x"}},
                     {"type": "text", "text": "done"}]}},
    ])
    code, out, err = run(capsys, "sessions", "import", str(path), "--format", "claude-code")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert 'session.jsonl: unexpected claude-code content' in err
    assert '"signature" must be text, not an object' in err
    assert stored(capsys) == []


def test_a_format_that_cannot_take_the_file_says_what_the_file_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(load_settings(None).data_dir)
    session = store.create_session(tmp_path, name="orig")
    store.append_message(session.id, Message.user("hello"))
    store.close()
    export = tmp_path / "export.json"
    assert run(capsys, "sessions", "export", "orig", "--format", "json", "-o", str(export))[0] == 0
    for fmt in ("claude-code", "codex", "qwen-code", "copilot", "gemini-cli", "goose-json",
                "aider", "console", "goose-db"):
        with pytest.raises(ImportFormatError) as raised:
            load_sessions(export, fmt=fmt)
        said = raised.value.one_line()
        a = "an" if fmt[0] in "aeiou" else "a"  # "an aider file", never "a aider file"
        assert said.startswith(f"export.json is not {a} {fmt} file: it reads as a goosectx "
                               "file"), said  # not "the JSON ends … (is the file cut short?)"
        assert raised.value.hint == "import it with --format goosectx, or leave --format out"
    code, _, err = run(capsys, "sessions", "import", str(export), "--format", "claude-code")
    assert code == 2 and "is not a claude-code file" in err and "cut short" not in err


def test_a_goosectx_export_named_as_another_format_is_refused_with_the_right_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(load_settings(None).data_dir)
    session = store.create_session(tmp_path, name="orig")
    store.append_message(session.id, Message.user("hello"))
    store.append_message(session.id, Message.assistant("hi there"))
    store.close()
    export = tmp_path / "export.json"
    assert run(capsys, "sessions", "export", "orig", "--format", "json", "-o", str(export))[0] == 0
    before = stored(capsys)
    for fmt in ("openai", "swe-agent", "gemini-cli", "claude-code"):  # openai took it as chat
        code, out, err = run(capsys, "sessions", "import", str(export), "--format", fmt)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (fmt, err)
        a = "an" if fmt == "openai" else "a"
        assert f"export.json is not {a} {fmt} file: it reads as a goosectx file" in err, err
        assert "import it with --format goosectx, or leave --format out" in err
    assert stored(capsys) == before  # nothing imported


def test_a_goose_ledger_entry_without_a_model_imports_labelled_unknown_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = goose_db(tmp_path / "g.db")
    conn = sqlite3.connect(db)
    with conn:  # goose left the model of a call unrecorded: NULL in one session, '' in the other
        conn.execute("UPDATE usage_ledger SET model=NULL WHERE session_id='s1'")
        conn.execute("UPDATE usage_ledger SET model='' WHERE session_id='s2'")
    conn.close()
    code, out, err = run(capsys, "sessions", "import", str(db))
    assert code == 0 and out.count("imported") == 2, err
    for row in stored(capsys):
        code, out, err = run(capsys, "sessions", "export", row["id"], "-f", "json")
        assert code == 0, err
        (entry,) = json.loads(out)["usage_ledger"]
        assert entry["model"] == "(unknown model)" and entry["total_tokens"] == 10
    # exported so, it imports again as it was
    saved = tmp_path / "again.json"
    saved.write_text(out)
    code, out, err = run(capsys, "sessions", "import", str(saved))
    assert code == 0, err


def test_an_export_ledger_entry_with_an_empty_model_imports_labelled(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(load_settings().data_dir)
    session = store.create_session(tmp_path, name="src")
    store.append_message(session.id, Message.user("hi"))
    store.close()
    code, out, _ = run(capsys, "sessions", "export", "src", "-f", "json")
    data = json.loads(out)
    data["session"]["id"] = "20260101_000000_beef"
    data["usage_ledger"] = [{"model": "", "purpose": "reply", "input_tokens": 5,
                             "output_tokens": 1, "total_tokens": 6}]
    path = tmp_path / "e.json"
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, "sessions", "import", str(path))
    assert code == 0, err
    code, out, err = run(capsys, "sessions", "export", "20260101_000000_beef", "-f", "json")
    assert code == 0, err
    assert [e["model"] for e in json.loads(out)["usage_ledger"]] == ["(unknown model)"]


def claude_lines(count: int) -> list[dict]:
    base = {"sessionId": "s1", "cwd": "/repo", "isSidechain": False}
    return [{**base, "type": "user" if i % 2 == 0 else "assistant", "uuid": f"u{i}",
             "timestamp": f"2025-01-02T03:04:{i:02d}Z",
             "message": {"role": "user" if i % 2 == 0 else "assistant",
                         "content": f"message {i} " + "words " * 40}}
            for i in range(count)]


def test_a_jsonl_whose_last_line_was_cut_off_imports_its_complete_lines_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # tester 28b: `head -c -40 session.jsonl > cut.jsonl` (an agent killed mid-write) was
    # refused whole: "line 4 column 671: not valid JSON", exit 2
    whole = write_jsonl(tmp_path / "session.jsonl", claude_lines(4))
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(whole.read_bytes()[:-40])
    code, out, err = run(capsys, "sessions", "import", str(cut), "--name", "cut")
    assert code == 0, err
    left = len(whole.read_bytes().splitlines()[-1]) - 39
    assert (f"the last line (line 4) was cut off ({left:,} bytes, no newline at its end); "
            "imported the 3 complete lines before it") in out + err
    code, shown, _ = run(capsys, "sessions", "show", "cut")
    assert "message 2 " in shown and "message 3 " not in shown
    # a cut line that is not the last one, or a last line that ends with its newline, is
    # still refused whole (a file damaged in the middle is not silently shortened)
    middle = tmp_path / "middle.jsonl"
    lines = whole.read_bytes().splitlines(keepends=True)
    middle.write_bytes(lines[0] + lines[1][:50] + b"\n" + lines[2] + lines[3])
    ended = tmp_path / "ended.jsonl"
    ended.write_bytes(whole.read_bytes()[:-40] + b"\n")
    for bad in (middle, ended):
        code, _, err = run(capsys, "sessions", "import", str(bad), "--format", "claude-code")
        assert code == 2 and "not valid JSON" in err or "cut short" in err, err
    assert [r["name"] for r in stored(capsys)] == ["cut"]
