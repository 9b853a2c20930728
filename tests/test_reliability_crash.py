"""goosectx dying mid-turn (kill -9), then resumed, through the real CLI.

A crash while a tool call runs (or waits at the approval question) leaves the history ending
with a tool call nobody answered. Every resume path stores an "interrupted" answer for it, so
the transcript shows it and the model learns the command was started; a second resume adds
nothing.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from agent_harness import host_pid
from fakeserver import FakeServer
from reliability_support import assert_sendable, cli, load, model_env, start

from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.store import SessionStore
from goosectx.turn import INTERRUPTED_TEXT


def _interrupted_answers(home: Path, ref: str) -> list[ToolResponse]:
    return [p for m in load(home, ref).conversation for p in m.tool_responses
            if p.output == INTERRUPTED_TEXT]


def _crashed_session(home: Path, work: Path, name: str) -> ToolRequest:
    """A session as kill -9 leaves it during a tool call: the call stored, no answer."""
    store = SessionStore(home)
    try:
        session = store.create_session(work, name=name)
        call = ToolRequest("call_1", "shell", {"command": "sleep 30; echo slept > slept.txt"})
        store.append_message(session.id, Message.user("make slept.txt"))
        store.append_message(session.id, Message("assistant", (call,)))
    finally:
        store.close()
    return call


def test_kill_9_while_a_tool_runs_then_run_resume_tells_the_model(tmp_path, work):
    home = tmp_path / "home"
    job = ["sleep", f"{300 + random.random():.9f}"]
    command = f"{' '.join(job)}; echo slept > slept.txt"
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": command}}]},
              {"text": "I will check slept.txt first"}, {"text": "still fine"}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        proc = start(env, "run", "--mode", "auto", "--name", "k", "-t", "make slept.txt",
                     cwd=work)
        pid = host_pid(job, timeout_s=60)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        try:
            os.kill(pid, signal.SIGKILL)  # without a PID namespace the command outlives it
        except ProcessLookupError:
            pass
        again = cli(env, "run", "--resume", "k", "-t", "carry on", cwd=work)
        assert again.returncode == 0, again.stderr
        sent = server.requests[-1]["messages"]
        # A second resume finds the call answered: nothing is added again.
        third = cli(env, "run", "--resume", "k", "-t", "and now?", cwd=work)
        assert third.returncode == 0, third.stderr
    assert [m["role"] for m in sent][-4:] == ["user", "assistant", "tool", "user"]
    assert sent[-3]["tool_calls"][0]["function"]["name"] == "shell"
    assert sent[-2]["content"] == INTERRUPTED_TEXT
    assert sent[-2]["tool_call_id"] == sent[-3]["tool_calls"][0]["id"]
    (answer,) = _interrupted_answers(home, "k")
    assert answer.is_error
    assert_sendable(load(home, "k").conversation)


def test_repl_continue_shows_and_stores_the_interrupted_call(tmp_path, work):
    home = tmp_path / "home"
    call = _crashed_session(home, work, "r")
    env = model_env(home, "http://127.0.0.1:9")
    shown = cli(env, "-c", cwd=work)  # stdin closed: the REPL draws the tail and leaves
    assert shown.returncode == 0, shown.stderr
    assert "shell interrupted" in shown.stdout
    assert "goosectx exited during this call" in shown.stdout
    (answer,) = _interrupted_answers(home, "r")
    assert answer.id == call.id and answer.is_error
    again = cli(env, "--resume", "r", cwd=work)
    assert again.returncode == 0, again.stderr
    assert len(_interrupted_answers(home, "r")) == 1
    assert_sendable(load(home, "r").conversation)


def test_slash_resume_answers_the_interrupted_call(tmp_path, work):
    home = tmp_path / "home"
    call = _crashed_session(home, work, "s")
    env = model_env(home, "http://127.0.0.1:9")
    done = subprocess.run([sys.executable, "-m", "goosectx", "--name", "other"], env=env,
                          cwd=work, input="/resume s\n", capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "shell interrupted" in done.stdout
    (answer,) = _interrupted_answers(home, "s")
    assert answer.id == call.id
