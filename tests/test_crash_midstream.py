"""goosectx killed while an answer streams, through the real CLI.

fresh19b #03: kill -9 during a streamed answer left only the request in the session: the
text the user had read was gone from ``sessions show``, and after a resume the model got the
old and the new request merged into one user message, never learning it had started to
answer. The answer is now saved as it streams (the first text at once, then at most once a
second), so what was saved is kept, shown as cut off, and sent to the model marked as cut off.
"""

from __future__ import annotations

import signal
from pathlib import Path

from fakeserver import FakeServer
from reliability_support import assert_sendable, cli, load, model_env, start, wait_for

from goosectx.answer_draft import AnswerDraft
from goosectx.conversation import EXITED_MARK

ANSWER = "STREAMED-PART " + "alpha beta gamma " * 400


def _saved_answer(home: Path, ref: str) -> str:
    """The text of the stored assistant message, as another process reads it ("" if none)."""
    try:
        session = load(home, ref)
    except Exception:  # not created yet
        return ""
    return "".join(m.text for m in session.conversation if m.role == "assistant")


def test_kill_9_while_the_answer_streams_keeps_what_was_saved_and_tells_the_model(
        tmp_path: Path, work: Path) -> None:
    home = tmp_path / "home"
    script = [{"text": ANSWER, "chunk_delay_s": 0.02}, {"text": "second"}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        proc = start(env, "run", "--mode", "auto", "--name", "k", "-t",
                     "Task A: explain the build.", cwd=work)
        wait_for("the answer saved as it streams",
                 lambda: "alpha beta gamma alpha" in _saved_answer(home, "k"), proc, timeout_s=30)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        saved = _saved_answer(home, "k")
        assert saved.startswith("STREAMED-PART alpha") and len(saved) < len(ANSWER)
        shown = cli(env, "sessions", "show", "k", cwd=work)
        assert shown.returncode == 0, shown.stderr
        assert "STREAMED-PART alpha" in shown.stdout
        assert "goosectx exited" in shown.stdout  # the answer is labelled as cut off
        again = cli(env, "run", "--resume", "k", "-t", "go on", cwd=work)
        assert again.returncode == 0, again.stderr
        assert "the last answer was cut off when goosectx last exited" in again.stderr
        sent = server.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1]["content"] == "Task A: explain the build."
    assert sent[2]["content"].startswith(saved) and sent[2]["content"].endswith(EXITED_MARK)
    assert sent[3]["content"] == "go on"
    assert_sendable(load(home, "k").conversation)


def test_a_long_stream_is_saved_once_a_second_not_once_a_chunk() -> None:
    # issue #14: no per-chunk work that grows. 3,000 chunks 125 ms apart (375 seconds) are
    # saved 375 times — the first chunk, then once a second — and each save holds everything
    # received up to it.
    now = [0.0]

    def clock() -> float:
        now[0] += 0.125
        return now[0]

    draft = AnswerDraft(clock)
    saves = [draft.message().text for i in range(3000) if draft.add(f"w{i:04d} ")]
    assert len(saves) == 375
    assert saves[0] == "w0000 " and saves[-1].startswith("w0000 w0001 ")
    assert draft.message().text == "".join(f"w{i:04d} " for i in range(3000))
    assert draft.message().metadata.cut_short == "cut off: goosectx exited"


def test_sessions_show_while_the_answer_streams_says_it_is_being_written(
        tmp_path: Path, work: Path) -> None:
    """``sessions show`` in another terminal labelled the live draft "cut off: goosectx exited
    while this answer was being written" though goosectx was still writing it; so did
    ``sessions export`` (Markdown, to stdout or a file) until fresh20c #3."""
    home = tmp_path / "home"
    script = [{"text": ANSWER, "chunk_delay_s": 0.02}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        proc = start(env, "run", "--mode", "auto", "--name", "k", "-t",
                     "Task A: explain the build.", cwd=work)
        try:
            wait_for("the answer saved as it streams",
                     lambda: "alpha beta gamma alpha" in _saved_answer(home, "k"), proc,
                     timeout_s=30)
            shown = cli(env, "sessions", "show", "k", cwd=work)
            agent = cli(env, "sessions", "show", "k", "--agent", cwd=work)
            exported = cli(env, "sessions", "export", "k", cwd=work)  # fresh20c #3: "exited"
            to_file = cli(env, "sessions", "export", "k", "-o", "k.md", cwd=work)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
        after = cli(env, "sessions", "show", "k", cwd=work)
        exported_after = cli(env, "sessions", "export", "k", cwd=work)
    assert shown.returncode == 0 and agent.returncode == 0, (shown.stderr, agent.stderr)
    assert exported.returncode == 0 and to_file.returncode == 0, exported.stderr
    for out in (shown.stdout, agent.stdout, exported.stdout, (work / "k.md").read_text()):
        assert "STREAMED-PART alpha" in out
        assert "goosectx exited" not in out, out[-600:]
        assert f"being written by goosectx (PID {proc.pid})" in out, out[-600:]
    for out in (after.stdout, exported_after.stdout):
        assert "cut off: goosectx exited" in out  # killed: now it was cut off


def test_a_draft_an_earlier_process_left_stays_cut_off_while_another_holds_the_session(
        tmp_path: Path, work: Path) -> None:
    """A session resumed after a kill -9 (its REPL waiting at the prompt) holds the lock while
    its last message is still the dead process's draft: that one was cut off, not being
    written."""
    from goosectx.store import SessionStore

    home = tmp_path / "home"
    with FakeServer([{"text": ANSWER, "chunk_delay_s": 0.02}]) as server:
        env = model_env(home, server.base_url)
        proc = start(env, "run", "--mode", "auto", "--name", "k", "-t", "explain", cwd=work)
        wait_for("the answer saved as it streams",
                 lambda: "alpha beta gamma alpha" in _saved_answer(home, "k"), proc,
                 timeout_s=30)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    store = SessionStore(home)
    try:
        with store.lock(load(home, "k").id):  # as a resumed REPL at its prompt holds it
            shown = cli(env, "sessions", "show", "k", cwd=work)
            agent = cli(env, "sessions", "show", "k", "--agent", cwd=work)
    finally:
        store.close()
    assert "(cut off: goosectx exited)" in shown.stdout
    assert EXITED_MARK in agent.stdout
    assert "being written by goosectx" not in shown.stdout + agent.stdout
