"""goosectx killed in the middle of a reply's tool calls, through the real CLI.

fresh19b #05: one reply with three calls (write a.txt — done —, a slow shell call — running —,
write c.txt — not started), kill -9 during the shell call. On resume all three were answered
"[interrupted: … may have run in part or not at all]": the write that had finished lost its
real result (a.txt was changed on disk) and the call that never started was also said to have
maybe run. Now each result is stored as it finishes, and the resume answers only the running
call as interrupted and the later one as not started.
"""

from __future__ import annotations

import random
from pathlib import Path

from fakeserver import FakeServer
from reliability_support import assert_sendable, cli, kill_while, load, model_env

from goosectx.turn import INTERRUPTED_TEXT, NOT_STARTED_TEXT


def _write(path: str, text: str) -> dict[str, object]:
    return {"name": "text_editor",
            "arguments": {"command": "write", "path": path, "file_text": text}}


def test_kill_9_between_a_replys_calls_keeps_the_finished_result(tmp_path: Path,
                                                                  work: Path) -> None:
    home = tmp_path / "home"
    (work / "a.txt").write_text("original\n")
    job = ["sleep", f"{300 + random.random():.9f}"]
    calls = [_write("a.txt", "CHANGED\n"),
             {"name": "shell", "arguments": {"command": " ".join(job)}},
             _write("c.txt", "c\n")]
    script = [{"text": "Parallel.", "tool_calls": calls}, {"text": "after resume"}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        kill_while(job, env, "run", "--mode", "auto", "--name", "k", "-t", "do three things",
                   cwd=work)
        assert (work / "a.txt").read_text() == "CHANGED\n"
        assert not (work / "c.txt").exists()
        again = cli(env, "run", "--resume", "k", "-t", "what happened?", cwd=work)
        assert again.returncode == 0, again.stderr
        sent = server.requests[-1]["messages"]
    assert ("note: 1 tool call (shell) was interrupted when goosectx last exited, "
            "1 (text_editor) not started; the model is told") in again.stderr
    results = [m for m in sent if m["role"] == "tool"]
    assert len(results) == 3
    assert results[0]["content"].startswith("Overwrote ") and "a.txt" in results[0]["content"]
    assert results[1]["content"] == INTERRUPTED_TEXT
    assert results[2]["content"] == NOT_STARTED_TEXT
    ids = [c["id"] for c in next(m for m in sent if m.get("tool_calls"))["tool_calls"]]
    assert [r["tool_call_id"] for r in results] == ids
    assert_sendable(load(home, "k").conversation)
    shown = cli(env, "--resume", "k", cwd=work)  # stdin closed: the REPL draws the tail
    assert shown.returncode == 0, shown.stderr
    assert "Overwrote " in shown.stdout and "shell interrupted" in shown.stdout
    assert "text_editor not run: goosectx exited before it started" in shown.stdout


def test_a_finished_reply_is_stored_as_one_message_of_results(tmp_path: Path,
                                                              work: Path) -> None:
    """The results stored one by one as they came are replaced by the message answering them."""
    home = tmp_path / "home"
    script = [{"tool_calls": [_write("a.txt", "a\n"), _write("b.txt", "b\n")]},
              {"text": "done"}]
    with FakeServer(script) as server:
        done = cli(model_env(home, server.base_url), "run", "--mode", "auto", "--name", "n",
                   "-t", "write two files", cwd=work)
    assert done.returncode == 0, done.stderr
    messages = load(home, "n").conversation.messages
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert len(messages[2].tool_responses) == 2
