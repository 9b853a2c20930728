"""Reliability of ``goosectx run`` end to end against the fake OpenAI-compatible server:
provider failures, malformed and reused tool calls, hostile tool output, and secrets.

Each test runs the real CLI in a subprocess (litellm → HTTP → tests/fakeserver.py) and then
opens the saved session as the next process would.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import (
    GOOSECTX,
    assert_one_line_error,
    assert_sendable,
    cli,
    fill,
    load,
    model_env,
)

from goosectx.parts import SystemNotification
from goosectx.providers.litellm_provider import MAX_RETRIES

# -- provider failures: bounded retries, one clear line, history intact -------------------------

FAILURES = {
    "rate_limit": ({"error": "rate_limit"}, {}, "rate limited"),
    "server_error": ({"error": "server_error"}, {}, "answered 500"),
    "timeout": ({"delay_s": 3, "text": "too late"}, {"GOOSECTX_REQUEST_TIMEOUT_S": "0.3"},
                "no reply"),
}


@pytest.mark.parametrize("kind", list(FAILURES))
def test_provider_failure_retries_a_bounded_number_of_times_then_says_so(tmp_path, work, kind):
    reply, extra_env, wording = FAILURES[kind]
    home = tmp_path / "home"
    _, before_ids = fill(home, work, pairs=5)
    with FakeServer(default_reply=reply) as server:
        proc = cli(model_env(home, server.base_url, **extra_env),
                   "run", "--resume", "work", "-t", "one more question", cwd=work)
        attempts = len(server.requests)
    line = assert_one_line_error(1, proc.returncode, proc.stderr, wording)
    assert f"{MAX_RETRIES} retries" in line and " — " in line, line  # what, then the fix
    assert attempts == MAX_RETRIES + 1
    session = load(home, "work")
    assert [m.id for m in session.conversation][:len(before_ids)] == before_ids
    added = session.conversation.messages[len(before_ids):]
    sent = [m for m in added if m.metadata.agent_visible]
    assert [(m.role, m.text) for m in sent] == [("user", "one more question")]
    notices = [part.text for m in added if not m.metadata.agent_visible for part in m.content
               if isinstance(part, SystemNotification)]  # the transcript says why: no answer
    assert len(notices) == 1 and notices[0].startswith("The turn stopped: "), notices
    assert wording in notices[0], notices
    assert session.ledger.entries == []
    assert_sendable(session.conversation)


BROKEN_STREAMS = {
    "not json": ["not json at all"],
    "choices not a list": [json.dumps({"id": "x", "object": "chat.completion.chunk",
                                       "choices": "bogus"})],
    "no finish_reason": [json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 1,
                                     "model": "m", "choices": [{"index": 0,
                                                                "delta": {"content": "hi"}}]})],
}


@pytest.mark.parametrize("kind", list(BROKEN_STREAMS))
def test_a_broken_200_stream_is_not_reported_as_an_http_500(tmp_path, work, kind):
    with FakeServer(default_reply={"sse": BROKEN_STREAMS[kind]}) as server:
        proc = cli(model_env(tmp_path / "home", server.base_url), "run", "-t", "hi", cwd=work)
    line = assert_one_line_error(1, proc.returncode, proc.stderr,
                                 "the model's stream could not be read: ")
    assert "answered 500" not in line and "Original exception" not in line, line
    assert "APIConnectionError" not in line, line


def test_a_server_that_cannot_be_reached_is_named(tmp_path, work):
    with FakeServer() as server:
        base = server.base_url  # closed when the run starts: nothing listens there
    proc = cli(model_env(tmp_path / "home", base), "run", "-t", "hi", cwd=work)
    line = assert_one_line_error(1, proc.returncode, proc.stderr, f"could not connect to {base}")
    assert "answered 500" not in line and "Original exception" not in line, line


def test_unroutable_goose_model_is_a_one_line_exit_2(tmp_path, work):
    home = tmp_path / "home"
    with FakeServer() as server:
        env = {**model_env(home, server.base_url), "GOOSE_MODEL": "no-such-model-anywhere"}
        proc = cli(env, "run", "-t", "hi", cwd=work)
        assert server.requests == []
    assert_one_line_error(2, proc.returncode, proc.stderr, "GOOSE_MODEL",
                          "'no-such-model-anywhere'")
    assert not (home / "sessions.db").exists()


# -- malformed tool-call JSON, and a server that reuses tool-call ids --------------------------

def test_malformed_tool_arguments_and_reused_call_ids(tmp_path, work):
    home = tmp_path / "home"
    script = [
        {"tool_calls": [{"id": "call_0", "name": "shell",
                         "arguments": '{"command": "echo never run'}]},
        {"tool_calls": [{"id": "call_0", "name": "shell",
                         "arguments": {"command": "echo ran-once"}}]},
        {"tool_calls": [{"id": "call_0", "name": "shell",
                         "arguments": {"command": "echo ran-twice"}}]},
        {"text": "all done"},
    ]
    with FakeServer(script) as server:
        proc = cli(model_env(home, server.base_url), "run", "--mode", "auto", "--name", "m",
                   "-t", "go", cwd=work, timeout=60)
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    assert "all done" in proc.stdout
    # Request 2 told the model its arguments were not JSON, and nothing ran.
    told = [m for m in requests[1]["messages"] if m.get("role") == "tool"]
    assert len(told) == 1 and "not valid JSON" in told[0]["content"]
    assert "was not run" in told[0]["content"]
    # Every later request pairs each reused id with its own result, in order.
    last = requests[3]["messages"]
    calls = [(m["role"], [c["id"] for c in m.get("tool_calls") or []]) for m in last]
    assert [c for c in calls if c[0] == "assistant"] == [("assistant", ["call_0"])] * 3
    results = [m["content"] for m in last if m.get("role") == "tool"]
    assert "not valid JSON" in results[0]
    assert "ran-once" in results[1] and "ran-twice" in results[2]
    session = load(home, "m")
    bad = session.conversation.messages[1].tool_requests[0]
    assert bad.parse_error and bad.raw_arguments == '{"command": "echo never run'
    assert_sendable(session.conversation)


# -- hostile tool output: 20 MB, binary, invalid UTF-8 ------------------------------------------

def test_huge_binary_and_invalid_utf8_tool_output(tmp_path, work):
    home = tmp_path / "home"
    (work / "blob.bin").write_bytes(bytes(range(256)) * 400)
    (work / "bad.txt").write_bytes(b"before \xff\xfe\xc3\x28 after\n")
    big = "python3 -c \"import sys; sys.stdout.write('x' * 20_000_000 + '\\nEND-OF-BIG\\n')\""
    commands = [big, "cat blob.bin", "cat bad.txt"]
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": c}} for c in commands]},
              {"text": "survived"}]
    with FakeServer(script) as server:
        proc = cli(model_env(home, server.base_url), "run", "--mode", "auto", "--name", "big",
                   "-t", "make noise", cwd=work)
        second = server.requests[1]
    assert proc.returncode == 0, proc.stderr
    assert "survived" in proc.stdout
    results = [m["content"] for m in second["messages"] if m.get("role") == "tool"]
    assert len(results) == 3
    # Capped before it was stored or sent; the model is told where the full output is.
    assert all(len(r) < 60_000 for r in results)
    assert "END-OF-BIG" in results[0]
    overflow = [Path(w.strip(".,:;'\"`()[]")) for w in results[0].split()
                if "tool-output" in w]
    assert overflow and overflow[0].exists(), results[0][-500:]
    assert overflow[0].stat().st_size >= 20_000_000
    assert stat.S_IMODE(overflow[0].stat().st_mode) == 0o600
    assert "before" in results[2] and "after" in results[2] and "\ufffd" in results[2]
    session = load(home, "big")
    stored = [p.output for p in session.conversation.messages[2].tool_responses]
    assert stored == results
    assert (home / "sessions.db").stat().st_size < 2_000_000
    assert_sendable(session.conversation)


# -- an API key in the environment never lands in the database, an export or the log ------------

SECRET = "sk-test-SECRET123456"


def test_api_key_never_stored_exported_or_logged(tmp_path, work):
    home = tmp_path / "home"
    (work / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    commands = ["env", 'echo "key is [$OPENAI_API_KEY]"', "cat .env"]
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": c}} for c in commands]},
              {"text": "printed what I could"}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url, key=SECRET)
        proc = cli(env, "--debug", "run", "--mode", "auto", "--name", "sec", "-t", "show env",
                   cwd=work)
        sent = json.dumps(server.requests)
        keys_used = [h.get("authorization", "") for h in server.headers]
    assert proc.returncode == 0, proc.stderr
    assert all(SECRET in h for h in keys_used), "the key is meant for the provider only"
    assert "PATH=" in sent and "key is []" in sent and "OPENAI_API_KEY=" in sent
    exports = []
    for fmt in ("json", "md"):
        out = tmp_path / f"sec.{fmt}"
        exported = cli(env, "--debug", "sessions", "export", "sec", "-f", fmt, "-o", str(out))
        assert exported.returncode == 0, exported.stderr
        exports.append(out)
    shown = cli(env, "sessions", "show", "sec")
    logs = sorted(home.glob("goosectx.log*"))
    assert logs and logs[0].stat().st_size > 0
    stored = [*home.glob("sessions.db*"), *logs, *exports, *(home / "tool-output").glob("*")]
    for path in stored:
        assert SECRET.encode() not in path.read_bytes(), path.name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    for text in (sent, proc.stdout, proc.stderr, shown.stdout):
        assert SECRET not in text
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_run_on_a_full_disk_saves_the_answer_it_paid_for_and_exits_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with FakeServer([{"text": "the paid answer " * 400}]) as server:
        with open("/dev/full", "w") as full:
            done = subprocess.run([*GOOSECTX, "run", "--name", "f", "-t", "hello"],
                                  env=model_env(home, server.base_url), cwd=tmp_path,
                                  stdin=subprocess.DEVNULL, stdout=full,
                                  stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "cannot write the output: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr and "saved" in done.stderr
    assert [m.role for m in load(home, "f").conversation] == ["user", "assistant"]
    assert "the paid answer" in load(home, "f").conversation.messages[-1].text


def test_a_closed_stdout_is_one_line_before_anything_runs(tmp_path: Path) -> None:
    done = subprocess.run([*GOOSECTX, "run", "-t", "hello"], env=model_env(
        tmp_path / "home", "http://127.0.0.1:9"), cwd=tmp_path, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60,
        preexec_fn=lambda: os.close(1))
    assert done.returncode == 1
    assert done.stderr.startswith("goosectx: error: standard output is closed")
    assert "Traceback" not in done.stderr and not (tmp_path / "home" / "sessions.db").exists()
