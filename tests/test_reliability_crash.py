"""goosectx killed mid-turn, through the real CLI.

kill -9 while a tool call runs (or waits at the approval question) leaves the history ending
with a tool call nobody answered. Every resume path stores an "interrupted" answer for it, so
the transcript shows it and the model learns the command was started; a second resume adds
nothing. SIGTERM and SIGHUP (the terminal window closed) are handled like Ctrl-C: the partial
answer is kept and the exit status is 143 / 129.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import assert_sendable, cli, kill_while, load, model_env, start

from goosectx.approval import CANCELLED_TEXT, cancelled_text, stopped_running_text
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.store import SessionStore
from goosectx.turn import INTERRUPTED_TEXT, UNRECORDED_TEXT


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
        kill_while(job, env, "run", "--mode", "auto", "--name", "k", "-t", "make slept.txt",
                   cwd=work)
        again = cli(env, "run", "--resume", "k", "-t", "carry on", cwd=work)
        assert again.returncode == 0, again.stderr
        assert "note: 1 tool call (shell) was interrupted when goosectx last exited" in \
            again.stderr  # run draws no history: it says so on stderr
        sent = server.requests[-1]["messages"]
        # A second resume finds the call answered: nothing is added again.
        third = cli(env, "run", "--resume", "k", "-t", "and now?", cwd=work)
        assert third.returncode == 0, third.stderr
        assert "interrupted" not in third.stderr
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


# -- SIGTERM / SIGHUP: the same as Ctrl-C, then the conventional exit status -------------------

PARTIAL = {"text": "partial answer that never ends", "chunk_chars": 8}


def _repl(env: dict[str, str], work: Path, *args: str) -> subprocess.Popen[bytes]:
    """The REPL on pipes (plain look); the caller writes its input."""
    return subprocess.Popen([sys.executable, "-m", "goosectx", *args], env=env, cwd=work,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _read_until(proc: subprocess.Popen[bytes], needle: bytes) -> bytes:
    seen = b""
    while needle not in seen:
        chunk = os.read(proc.stdout.fileno(), 4096)
        assert chunk, seen
        seen += chunk
    return seen


def _partial_kept(home: Path, ref: str) -> None:
    user, partial = load(home, ref).conversation
    assert user.text == "talk"
    assert partial.role == "assistant" and partial.metadata.cancelled
    assert partial.text.startswith("partial ")
    assert_sendable(load(home, ref).conversation)


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_repl_signal_while_the_answer_streams_keeps_it(tmp_path, work, signum, status):
    home = tmp_path / "home"
    hold = threading.Event()
    with FakeServer([{**PARTIAL, "hold": hold}]) as server:
        proc = _repl(model_env(home, server.base_url), work, "--name", "t")
        try:
            proc.stdin.write(b"talk\n")
            proc.stdin.flush()
            _read_until(proc, b"partial ")  # the first chunk reached the user
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=60)
        finally:
            hold.set()
    assert proc.returncode == status, err
    assert b"Traceback" not in err
    assert b"resume with: goosectx --resume t" in out
    name = signal.Signals(signum).name.encode()
    assert b"turn cancelled (" + name + b")" in out and b"type to continue" not in out
    _partial_kept(home, "t")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_run_signal_while_the_answer_streams_keeps_it(tmp_path, work, signum, status):
    home = tmp_path / "home"
    hold = threading.Event()
    with FakeServer([{**PARTIAL, "hold": hold}]) as server:
        proc = start(model_env(home, server.base_url), "run", "--name", "r", "-t", "talk",
                     cwd=work)
        try:
            assert proc.stdout.read(8) == b"partial "
            proc.send_signal(signum)
            _, err = proc.communicate(timeout=60)
        finally:
            hold.set()
    assert proc.returncode == status, err
    assert b"Traceback" not in err
    assert f"cancelled ({signal.Signals(signum).name})".encode() in err
    _partial_kept(home, "r")


def test_closing_the_terminal_window_keeps_the_streamed_answer(tmp_path, work):
    pexpect = pytest.importorskip("pexpect")
    home = tmp_path / "home"
    hold = threading.Event()
    with FakeServer([{**PARTIAL, "hold": hold}]) as server:
        env = model_env(home, server.base_url, PROMPT_TOOLKIT_NO_CPR="1",
                        TERM="xterm-256color")
        env.pop("NO_COLOR")
        child = pexpect.spawn(sys.executable, ["-m", "goosectx", "--name", "w"], cwd=str(work),
                              env=env, dimensions=(40, 110), timeout=90)
        try:
            child.expect("❯".encode())
            child.send(b"talk\r")
            child.expect(b"partial ")
            os.close(child.child_fd)  # the window closes: SIGHUP, and the terminal is gone
            _, wait_status = os.waitpid(child.pid, 0)
        finally:
            hold.set()
    assert os.waitstatus_to_exitcode(wait_status) == 129
    _partial_kept(home, "w")


def test_repl_sigterm_at_the_approval_question_answers_the_call(tmp_path, work):
    home = tmp_path / "home"
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "touch made.txt"}}]}]
    with FakeServer(script) as server:
        proc = _repl(model_env(home, server.base_url), work, "--name", "a", "--mode", "approve")
        proc.stdin.write(b"talk\n")
        proc.stdin.flush()
        _read_until(proc, b"Run shell?")  # the question waits for an answer
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert b"Traceback" not in err
    assert not (work / "made.txt").exists()
    user, call, answer = load(home, "a").conversation
    assert call.tool_requests[0].arguments == {"command": "touch made.txt"}
    (response,) = answer.tool_responses
    assert response.id == call.tool_requests[0].id
    assert response.is_error and response.output.startswith(cancelled_text("SIGTERM"))  # not "the user"


def test_sigterm_at_the_terminals_approval_question_cancels_at_once(tmp_path, work):
    """The rich look's question (a prompt_toolkit application: it takes SIGINT as a key of
    its own) ended only when a key was pressed after the SIGTERM."""
    pexpect = pytest.importorskip("pexpect")
    home = tmp_path / "home"
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "touch made.txt"}}]}]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url, PROMPT_TOOLKIT_NO_CPR="1",
                        TERM="xterm-256color")
        env.pop("NO_COLOR")
        child = pexpect.spawn(sys.executable, ["-m", "goosectx", "--name", "q", "--mode",
                                               "approve"], cwd=str(work), env=env,
                              dimensions=(40, 110), timeout=60)
        try:
            child.expect("❯".encode())
            child.send(b"talk\r")
            child.expect(b"Run shell\\?")
            child.kill(signal.SIGTERM)
            child.expect(pexpect.EOF, timeout=20)  # no key pressed
        finally:
            child.close(force=True)
    assert child.exitstatus == 143
    assert not (work / "made.txt").exists()
    (response,) = load(home, "q").conversation.messages[-1].tool_responses
    assert response.is_error and response.output.startswith(cancelled_text("SIGTERM"))


def test_a_long_session_loaded_after_the_prompt_answers_the_interrupted_call(tmp_path, work):
    pexpect = pytest.importorskip("pexpect")
    from goosectx.cli.resume_load import BACKGROUND_FROM
    from goosectx.conversation import Conversation
    from goosectx.session import Session, new_session_id

    home = tmp_path / "home"
    messages = []
    for i in range(BACKGROUND_FROM // 2 + 10):
        messages += [Message.user(f"old question {i}"), Message.assistant(f"old answer {i}")]
    call = ToolRequest("call_9", "shell", {"command": "sleep 30; echo slept > slept.txt"})
    messages += [Message.user("make slept.txt"), Message("assistant", (call,))]
    store = SessionStore(home)
    try:
        now = messages[-1].created
        store.save_new_session(Session(new_session_id(now), "long", work.resolve(), None, now,
                                       now, Conversation(messages)))
    finally:
        store.close()
    env = model_env(home, "http://127.0.0.1:9", PROMPT_TOOLKIT_NO_CPR="1",
                    TERM="xterm-256color")
    env.pop("NO_COLOR")
    child = pexpect.spawn(sys.executable, ["-m", "goosectx", "--resume", "long"], cwd=str(work),
                          env=env, dimensions=(40, 110), timeout=90, encoding="utf-8")
    try:
        child.expect("❯")
        child.expect("shell interrupted")  # the tail, drawn above the prompt once loaded
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before
    (answer,) = _interrupted_answers(home, "long")
    assert answer.id == call.id


def test_sigterm_while_the_model_client_loads_keeps_the_typed_message(
        tmp_path, monkeypatch):
    """SIGTERM before the first request: the message typed stays in the session (a Ctrl-C
    there takes it back); the notice names the signal, not Ctrl-C."""
    import io

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console
    from test_repl import CTRL_D, ENTER, World

    from goosectx.cli import exit_signals
    from goosectx.cli.repl import Repl, ReplIO
    from goosectx.cli.startup import AgentLoader

    world = World(tmp_path)
    release = threading.Event()
    monkeypatch.setattr(AgentLoader, "_check", lambda self, provider: release.wait(20))
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGTERM))
    buf = io.StringIO()
    try:
        with exit_signals.as_ctrl_c(), create_pipe_input() as pipe:
            pipe.send_text("keep this" + ENTER + CTRL_D)
            repl = Repl(world.settings, world.store, world.session,
                        io=ReplIO(Console(file=buf, width=100), input=pipe,
                                  output=DummyOutput(), history=False),
                        mode=world.mode, agent_factory=world.agent_factory())
            timer.start()
            repl.run()
    finally:
        timer.cancel()
        release.set()
        exit_signals._received.clear()  # the next test's exit status is its own
    out = buf.getvalue()
    assert "stopped waiting (SIGTERM); nothing was sent" in out
    assert "kept in the session" in out
    assert [m.text for m in world.store.load(world.session.id).conversation] == ["keep this"]
    assert not world.provider.requests
    world.store.close()


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_run_cancelled_during_a_tool_run_keeps_its_output_so_far(tmp_path, work, signum,
                                                                 status):
    """As in the REPL: the command is killed and the model gets what it printed, marked
    cancelled (``run`` stored only "The user cancelled this tool call.")."""
    home = tmp_path / "home"
    command = "for i in 1 2 3; do echo tick$i; done; touch started; sleep 30"
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": command}}]}]
    with FakeServer(script) as server:
        proc = start(model_env(home, server.base_url), "run", "--mode", "auto", "--name", "c",
                     "-t", "count", cwd=work)
        try:
            for _ in range(600):
                if (work / "started").exists():
                    break
                threading.Event().wait(0.05)
            proc.send_signal(signum)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == status, err
    (response,) = load(home, "c").conversation.messages[-1].tool_responses
    told = CANCELLED_TEXT if signum == signal.SIGINT else stopped_running_text("SIGHUP")
    assert response.is_error and response.output.startswith(told)  # a hang-up is no user's
    assert "tick1" in response.output and "tick3" in response.output


def test_an_imported_transcript_ending_with_an_unanswered_call_says_it_has_no_result(
        tmp_path, work):
    """goosectx never ran such a call: its answer does not say goosectx exited during it."""
    _crashed_session(tmp_path / "source", work, "src")
    exported = tmp_path / "src.json"
    out = cli(model_env(tmp_path / "source", "http://127.0.0.1:9"), "sessions", "export",
              "src", "--format", "json", "-o", str(exported), cwd=work)
    assert out.returncode == 0, out.stderr
    for home in (tmp_path / "repl", tmp_path / "run"):
        imported = cli(model_env(home, "http://127.0.0.1:9"), "sessions", "import",
                       str(exported), cwd=work)
        assert imported.returncode == 0, imported.stderr
    shown = cli(model_env(tmp_path / "repl", "http://127.0.0.1:9"), "--resume", "src", cwd=work)
    assert shown.returncode == 0, shown.stderr
    assert "shell no result in the import" in shown.stdout
    assert "goosectx exited" not in shown.stdout
    (answer,) = [p for m in load(tmp_path / "repl", "src").conversation
                 for p in m.tool_responses]
    assert answer.output == UNRECORDED_TEXT and answer.is_error
    with FakeServer([{"text": "checked"}]) as server:
        ran = cli(model_env(tmp_path / "run", server.base_url), "run", "--resume", "src",
                  "-t", "carry on", cwd=work)
        assert ran.returncode == 0, ran.stderr
        assert "1 tool call (shell) had no result in the imported transcript" in ran.stderr
        assert server.requests[-1]["messages"][-2]["content"] == UNRECORDED_TEXT


def test_compacting_a_crashed_session_offline_keeps_the_interrupted_call(tmp_path, work):
    home = tmp_path / "home"
    store = SessionStore(home)
    try:
        session = store.create_session(work, name="c")
        for i in range(6):  # enough history for a compaction to shrink
            store.append_message(session.id, Message.user(f"request {i} " + "word " * 300))
            store.append_message(session.id, Message.assistant(f"answer {i} " + "text " * 300))
        store.append_message(session.id, Message.user("make slept.txt"))
        store.append_message(session.id, Message("assistant", (ToolRequest(
            "call_1", "shell", {"command": "sleep 30; echo slept > slept.txt"}),)))
    finally:
        store.close()
    env = model_env(home, "http://127.0.0.1:9")
    env.pop("GOOSE_MODEL", None)
    done = cli(env, "compact", "c", "--strategy", "extractive", cwd=work)
    assert done.returncode == 0, done.stderr
    (answer,) = _interrupted_answers(home, "c")  # answered before the summary was made
    view = load(home, "c").conversation.agent_view(for_sending=True)
    assert "sleep 30" in "\n".join(m.text for m in view)  # the model still learns of it
    again = cli(env, "--resume", "c", cwd=work)
    assert again.returncode == 0, again.stderr
    assert len(_interrupted_answers(home, "c")) == 1
    assert_sendable(load(home, "c").conversation)
