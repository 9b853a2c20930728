"""A shell command the user ran in Codex (``!cmd``) is imported as the user's, not the model's.

Codex runs it with no model call: an ``exec_command_end`` event with ``source: "user_shell"``
and a call id no ``function_call`` made, and (newer Codex) a user message
``<user_shell_command>`` recording the command and its result for the model. Both were imported
as an assistant ``shell`` call (or raw markup): now it is one user message like our own
``!command`` — the command and its output, user-visible, agent-visible — whichever record the
rollout holds, never twice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli

from goosectx.importers import load_sessions
from goosectx.shell_escape import escape_command, escape_failed, escape_output, is_shell_escape

CWD = "/proj/app"
RECORD = ("<user_shell_command>\n<command>\nls -la src\n</command>\n<result>\nExit code: 0\n"
          "Duration: 0.0123 seconds\nOutput:\nmain.go\nutil.go\n</result>\n"
          "</user_shell_command>")


def record(kind: str, payload: dict, second: int = 0) -> dict:
    return {"timestamp": f"2025-10-19T09:09:{second:02d}.000Z", "type": kind,
            "payload": payload}


def user_shell_end(call_id: str, script: str, code: int, output: str, second: int) -> dict:
    return record("event_msg", {
        "type": "exec_command_end", "call_id": call_id, "source": "user_shell",
        "command": ["/bin/bash", "-lc", script], "cwd": CWD, "exit_code": code,
        "stdout": output, "stderr": "", "aggregated_output": output,
        "formatted_output": output}, second)


def rollout(path: Path, *, with_record: bool = True, with_event: bool = True) -> Path:
    records = [
        record("session_meta", {"id": "r1", "cwd": CWD}),
        record("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "tidy the src folder"}]}),
    ]
    if with_event:
        records.append(user_shell_end("0b9c6a52-5a0e-4c1e-9a43-3f0d8e0d2b11", "ls -la src", 0,
                                      "main.go\nutil.go\n", 1))
    if with_record:
        records.append(record("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": RECORD}]}, 1))
    records += [
        user_shell_end("5d1e2f3a-0000-4000-8000-000000000002", "go vet ./...", 1,
                       "vet: bad format\n", 2),
        record("response_item", {"type": "function_call", "name": "shell", "call_id": "call_A1",
                                 "arguments": json.dumps({"command": ["go", "fmt", "./..."]})},
               3),
        record("event_msg", {"type": "exec_command_end", "call_id": "call_A1",
                             "source": "agent", "command": ["go", "fmt", "./..."],
                             "exit_code": 0, "aggregated_output": ""}, 4),
        record("response_item", {"type": "function_call_output", "call_id": "call_A1",
                                 "output": "formatted"}, 4),
        record("response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Tidied."}]}, 5),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(("with_record", "with_event"), [(True, True), (False, True),
                                                         (True, False)])
def test_a_user_shell_command_is_the_users_message_with_its_output(
        tmp_path: Path, with_record: bool, with_event: bool) -> None:
    path = rollout(tmp_path / "rollout.jsonl", with_record=with_record, with_event=with_event)
    (session,) = load_sessions(path, fmt="codex", working_dir=tmp_path)
    messages = list(session.conversation)
    requests = [p for m in messages for p in m.tool_requests]
    assert [(r.name, r.arguments) for r in requests] == [
        ("shell", {"command": ["go", "fmt", "./..."]})]  # only the model's call
    escapes = [m for m in messages if is_shell_escape(m)]
    assert [escape_command(m) for m in escapes] == ["ls -la src", "go vet ./..."]
    ls, vet = escapes
    assert all(m.role == "user" and m.metadata.user_visible and m.metadata.agent_visible
               for m in escapes)
    assert "main.go\nutil.go" in escape_output(ls) and not escape_failed(ls)
    assert "vet: bad format" in escape_output(vet) and escape_failed(vet)
    assert not any("<user_shell_command>" in m.text for m in messages)  # no raw markup
    assert messages.index(ls) == 1  # in its place: after the request, before the model's call


def test_sessions_show_draws_it_as_a_command_of_the_user(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: dict) -> None:
    cli(capsys, "sessions", "import", str(rollout(tmp_path / "rollout.jsonl")))
    session_id = json.loads(cli(capsys, "sessions", "list", "--json")[0])[0]["id"]
    shown, _ = cli(capsys, "sessions", "show", session_id)
    assert "**!command** `ls -la src`" in shown and "main.go" in shown
    agent, _ = cli(capsys, "sessions", "show", session_id, "--agent")
    assert "ls -la src" in agent  # the model reads it too, as with our own !command


def _secret_rollout(path: Path, script: str) -> Path:
    records = [record("session_meta", {"id": "r2", "cwd": CWD}),
               record("response_item", {"type": "message", "role": "user", "content": [
                   {"type": "input_text", "text": "why does the app not start?"}]}),
               user_shell_end("9f1e2f3a-0000-4000-8000-000000000009", script, 0,
                              "DB_PASSWORD=hunter2-in-plain-sight\n", 1),
               user_shell_end("9f1e2f3a-0000-4000-8000-00000000000a", "ls src", 0,
                              "main.go\n", 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("script", ["cat .env", "grep PASSWORD config/.env.local",
                                    "cat ~/.aws/credentials",
                                    # a glob, the files it ran on not here (test28f MEDIUM 1)
                                    "cat .[e]nv", "cat ./.e?v", "cat .en*", "cat config/.e*.local",
                                    "grep url .git/c?nfig", "cat ~/.ss[h]/id_*"])
def test_a_user_shell_command_naming_a_sensitive_file_is_shown_to_the_user_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: dict,
        script: str) -> None:
    """Our own ``!cat .env`` keeps its output from the model; Codex's ``!cat .env`` imported
    went to the model as any other command."""
    path = _secret_rollout(tmp_path / "rollout.jsonl", script)
    (session,) = load_sessions(path, fmt="codex", working_dir=tmp_path)
    secret, plain = [m for m in session.conversation if is_shell_escape(m)]
    assert escape_command(secret) == script and secret.metadata.user_visible
    assert not secret.metadata.agent_visible and plain.metadata.agent_visible
    seen = " ".join(m.text for m in session.conversation.agent_messages())
    assert "hunter2" not in seen and "main.go" in seen
    cli(capsys, "sessions", "import", str(path))
    session_id = json.loads(cli(capsys, "sessions", "list", "--json")[0])[0]["id"]
    shown, _ = cli(capsys, "sessions", "show", session_id)
    assert f"**!command** `{script}`" in shown  # the user still sees what was run
    agent, _ = cli(capsys, "sessions", "show", session_id, "--agent")
    assert script not in agent and "ls src" in agent


def test_a_glob_that_matches_no_sensitive_name_still_reaches_the_model(tmp_path: Path) -> None:
    path = _secret_rollout(tmp_path / "rollout.jsonl", "cat src/*.go")
    (session,) = load_sessions(path, fmt="codex", working_dir=tmp_path)
    assert all(m.metadata.agent_visible for m in session.conversation if is_shell_escape(m))
