"""Ctrl-C (SIGINT) at each stage of a ``goosectx run`` turn, through the real CLI.

Stages: while the answer streams, while a tool runs, while the compaction summary is being
written, and inside the compaction's write-back transaction. Every time the process exits
130 with no traceback and the saved session is valid: nothing lost, every tool call
answered, the partial answer kept and marked cancelled, a compaction stored fully or not at all.
"""

from __future__ import annotations

import random
import signal
import threading
from pathlib import Path

from agent_harness import host_pid
from fakeserver import FakeServer
from reliability_support import (
    assert_sendable,
    cli,
    fill,
    held_reply,
    load,
    model_env,
    paused_env,
    start,
    wait_for,
)

from goosectx.approval import CANCELLED_TEXT
from goosectx.tools.shell import group_alive


def interrupt(proc) -> bytes:  # noqa: ANN001
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert b"Traceback" not in err
    return err


def test_ctrl_c_while_the_answer_streams(tmp_path, work):
    home = tmp_path / "home"
    hold = threading.Event()
    with FakeServer([{"text": "partial answer that never ends", "chunk_chars": 8,
                      "hold": hold}]) as server:
        proc = start(model_env(home, server.base_url), "run", "--name", "c", "-t", "talk",
                     cwd=work)
        try:
            assert proc.stdout.read(8) == b"partial "  # the first chunk reached the user
            interrupt(proc)
        finally:
            hold.set()
    user, partial = load(home, "c").conversation
    assert user.text == "talk"
    assert partial.role == "assistant" and partial.metadata.cancelled
    assert partial.text == "partial "
    assert_sendable(load(home, "c").conversation)


def test_ctrl_c_while_a_tool_runs_then_resume(tmp_path, work):
    home = tmp_path / "home"
    # The command ignores SIGTERM, so only the SIGKILL that follows stops it. As root it runs
    # in a PID namespace ($$ is not a host pid): its job is found by a unique command line.
    job = ["sleep", f"{300 + random.random():.9f}"]
    command = f"trap '' TERM; {' '.join(job)}"
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": command}}]},
              {"text": "recovered"}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        proc = start(env, "run", "--mode", "auto", "--name", "t", "-t", "run it", cwd=work)
        tool_group = _group_of(host_pid(job, timeout_s=60))
        assert group_alive(tool_group)
        interrupt(proc)
        # The tool's whole process group was killed before goosectx exited.
        assert not group_alive(tool_group)
        user, call, answer = load(home, "t").conversation
        assert call.tool_requests[0].arguments == {"command": command}
        (response,) = answer.tool_responses
        assert response.id == call.tool_requests[0].id
        assert response.is_error and response.output.startswith(CANCELLED_TEXT)
        # The next run resumes from a valid history: the model sees the pair, answered.
        again = cli(env, "run", "--resume", "t", "-t", "carry on", cwd=work)
        assert again.returncode == 0, again.stderr
        sent = server.requests[-1]["messages"]
    assert [m["role"] for m in sent][-4:] == ["user", "assistant", "tool", "user"]
    assert CANCELLED_TEXT in sent[-2]["content"]
    assert_sendable(load(home, "t").conversation)


def _group_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])


# A context window this small makes the first model call of the turn compact first.
SMALL_WINDOW = {"GOOSE_CONTEXT_LIMIT": "6000", "GOOSE_AUTO_COMPACT_THRESHOLD": "0.5"}


def test_ctrl_c_while_the_compaction_summary_is_written(tmp_path, work):
    home = tmp_path / "home"
    _, ids = fill(home, work, name="k", pairs=12)
    arrived, hold, summary = held_reply('{"user_intent": "questions"}', 5)

    with FakeServer([summary]) as server:
        proc = start(model_env(home, server.base_url, **SMALL_WINDOW),
                     "run", "--resume", "k", "-t", "next question", cwd=work)
        try:
            wait_for("the summary call", arrived.is_set, proc)
            assert "conversation" in str(server.requests[0]["messages"])  # it IS the summary
            interrupt(proc)
        finally:
            hold.set()
    session = load(home, "k")
    assert [m.id for m in session.conversation][:len(ids)] == ids
    assert all(m.metadata.agent_visible for m in session.conversation.messages[:len(ids)])
    assert not any(m.metadata.is_summary for m in session.conversation)
    assert session.conversation.messages[len(ids)].text == "next question"
    assert_sendable(session.conversation)


def test_ctrl_c_inside_the_compaction_write_back(tmp_path, work):
    home = tmp_path / "home"
    _, ids = fill(home, work, name="w", pairs=12)
    marker = tmp_path / "paused"
    point = "replace_history:before_commit"
    script = [{"text": '{"user_intent": "questions"}'}, {"text": "answer after compaction"}]
    with FakeServer(script) as server:
        proc = start(model_env(home, server.base_url, **SMALL_WINDOW, **paused_env(marker, point)),
                     "run", "--resume", "w", "-t", "next question", cwd=work)
        wait_for(point, marker.exists, proc)
        interrupt(proc)
    # Old or new — never a mix — plus the turn's own messages after it.
    session = load(home, "w")
    original = [m for m in session.conversation if m.id in set(ids)]
    assert len(original) == len(ids)
    summaries = [m for m in session.conversation if m.metadata.is_summary]
    flags = {m.metadata.agent_visible for m in original}
    assert (flags, len(summaries)) in (({True}, 0), ({False}, 1))
    assert "next question" in [m.text for m in session.conversation]
    assert_sendable(session.conversation)
