"""``goosectx run``: task input, output formats, approval without a TTY, exit codes, sessions."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer

from goosectx.approval import NON_INTERACTIVE_DENIED_TEXT
from goosectx.cli.common import open_session
from goosectx.cli.run_cmd import EXIT_CANCELLED, EXIT_MAX_TURNS, run_task
from goosectx.config import load_settings
from goosectx.errors import (
    AuthFailed,
    ModelNotConfigured,
    SessionInUse,
    SessionNameTaken,
    UsageError,
)
from goosectx.store import SessionStore


def shell(command: str) -> dict:
    return {"tool_calls": [{"name": "shell", "arguments": {"command": command}}]}


class Run:
    """One in-process ``run`` with captured streams."""

    def __init__(self, stdin: str = "", **options: object) -> None:
        defaults: dict[str, object] = dict(
            text=None, input_file=None, name=None, resume=None, continue_=False,
            max_turns=None, output_format="text", mode=None, model=None)
        if "text" not in options and "input_file" not in options:
            options["text"] = "do the task"
        self.stdout, self.stderr = io.StringIO(), io.StringIO()
        self.code = run_task(load_settings(), **{**defaults, **options},  # type: ignore[arg-type]
                             stdin=io.StringIO(stdin), stdout=self.stdout, stderr=self.stderr)
        self.out, self.err = self.stdout.getvalue(), self.stderr.getvalue()


def store() -> SessionStore:
    return SessionStore(load_settings().data_dir)


def only_session() -> list:
    with_store = store()
    try:
        (summary,) = with_store.list_sessions()
        return list(with_store.load(summary.id).conversation)
    finally:
        with_store.close()


# -- the acceptance scenario, as a user runs it --------------------------------------------

@pytest.mark.slow
def test_acceptance_say_hi(fake_server: FakeServer, workdir: Path) -> None:
    fake_server.add(shell("echo hi"), {"text": "done"})
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": fake_server.base_url,
           "OPENAI_API_KEY": "sk-dummy-acceptance-key"}
    proc = subprocess.run(["goosectx", "run", "-t", "say hi", "--mode", "auto"], env=env,
                          cwd=workdir, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "done" in proc.stdout
    user, request, response, answer = only_session()
    assert user.text == "say hi"
    assert request.tool_requests[0].name == "shell"
    assert request.tool_requests[0].arguments == {"command": "echo hi"}
    assert "hi" in response.tool_responses[0].output
    assert answer.text == "done"
    assert b"sk-dummy-acceptance-key" not in b"".join(
        p.read_bytes() for p in load_settings().data_dir.glob("sessions.db*"))


@pytest.mark.slow
def test_ctrl_c_exits_130_and_keeps_the_partial_answer(fake_server: FakeServer,
                                                       workdir: Path) -> None:
    fake_server.add({"text": "streaming slowly " * 50, "chunk_chars": 6, "chunk_delay_s": 0.05})
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": fake_server.base_url,
           "OPENAI_API_KEY": "sk-dummy"}
    proc = subprocess.Popen(["goosectx", "run", "-t", "talk"], env=env, cwd=workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    first = proc.stdout.read(6)  # the answer has started streaming
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_CANCELLED, err
    assert b"cancelled" in err
    partial = only_session()[-1]
    assert partial.role == "assistant" and partial.metadata.cancelled
    assert partial.text.startswith("stream") and first == b"stream"
    assert len(partial.text) < len("streaming slowly " * 50)


@pytest.mark.slow
def test_missing_model_is_one_clear_line(workdir: Path) -> None:
    proc = subprocess.run(["goosectx", "run", "-t", "hi"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2  # a configuration problem, like a bad GOOSE_* value
    assert proc.stderr.count("\n") == 1 and "GOOSE_MODEL" in proc.stderr
    assert not (load_settings().data_dir / "sessions.db").exists()


def test_missing_model_still_answers_in_json(workdir: Path) -> None:
    proc = subprocess.run(["goosectx", "run", "-t", "hi", "--output-format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    result = json.loads(proc.stdout)
    assert result["status"] == "error" and "GOOSE_MODEL" in result["error"]


# -- in-process runs ------------------------------------------------------------------------

def test_text_output(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({**shell("echo hi"), "text": "Checking."}, {"text": "It said hi."})
    run = Run(mode="auto")
    assert run.code == 0
    assert run.out == "Checking.\nIt said hi.\n"
    assert '> shell {"command":"echo hi"}' in run.err
    assert "saved" in run.err


def test_json_output(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add(shell("echo hi"), {"text": "ok", "usage": {"prompt_tokens": 70,
                                                               "completion_tokens": 2}})
    run = Run(mode="auto", output_format="json")
    data = json.loads(run.out)
    assert data["status"] == "done" and data["answer"] == "ok"
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "user", "assistant"]
    assert data["usage"]["current_tokens"] == 72
    assert data["usage"]["input_tokens"] >= 70
    with_store = store()
    assert with_store.resolve(data["session_id"]) == data["session_id"]
    with_store.close()


def test_stream_json_output(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add(shell("echo hi"), {"text": "ok"})
    run = Run(mode="auto", output_format="stream-json")
    lines = [json.loads(line) for line in run.out.splitlines()]
    types = [line["type"] for line in lines]
    assert types[-2] == "turn_finished" and lines[-2]["status"] == "done"
    # first the session id, last one result (issue 18)
    assert types[0] == "session_started" and types.count("result") == 1
    assert lines[-1]["type"] == "result" and lines[-1]["session_id"] == lines[0]["session_id"]
    for kind in ("message_completed", "tool_call_started", "tool_call_finished",
                 "usage_updated", "message_delta"):
        assert kind in types
    started = next(line for line in lines if line["type"] == "tool_call_started")
    assert started["request"]["name"] == "shell"
    # The session id to resume with is on stderr, outside the event stream.
    assert "--resume " in run.err and "saved" in run.err


def test_without_a_tty_approval_is_denied_with_a_warning(fake_model: FakeServer,
                                                         workdir: Path) -> None:
    fake_model.add(shell("touch created"), {"text": "I could not run it."})
    run = Run()  # default mode smart_approve; stdin is not a terminal
    assert run.code == 0
    assert "--mode auto" in run.err and "warning" in run.err
    assert not (workdir / "created").exists()
    tool_message = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"][0]
    assert tool_message["content"] == NON_INTERACTIVE_DENIED_TEXT


def test_error_exit_code_and_message(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add(*[{"error": "server_error"}] * 4)
    run = Run()
    assert run.code == 1
    assert "goosectx: error:" in run.err and "after 3 retries" in run.err


def test_max_turns_exit_code(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add(shell("echo 1"), shell("echo 2"))
    run = Run(mode="auto", max_turns=2)
    assert run.code == EXIT_MAX_TURNS
    assert "stopped after 2 model calls" in run.err and "--resume" in run.err


def test_a_limit_of_one_model_call_reads_in_the_singular(fake_model: FakeServer,
                                                         workdir: Path) -> None:
    fake_model.add(shell("echo 1"))
    run = Run(mode="auto", max_turns=1)
    assert run.code == EXIT_MAX_TURNS
    assert "stopped after 1 model call " in run.err and "1 model calls" not in run.err


def test_task_from_file_and_stdin(fake_model: FakeServer, workdir: Path) -> None:
    (workdir / "task.txt").write_text("task from a file")
    fake_model.add({"text": "a"}, {"text": "b"})
    Run(input_file="task.txt")
    Run(input_file="-", stdin="task from stdin")
    users = [r["messages"][-1]["content"] for r in fake_model.requests]
    assert users == ["task from a file", "task from stdin"]


@pytest.mark.parametrize("options", [
    {"text": "a", "input_file": "b"}, {"text": None}, {"text": "   "},
    {"input_file": "missing.txt"},
])
def test_bad_task_options(fake_model: FakeServer, workdir: Path, options: dict) -> None:
    with pytest.raises(UsageError):
        Run(**options)


def test_resume_and_continue_carry_the_history(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "first answer"}, {"text": "second"}, {"text": "third"})
    Run(text="first question", name="work")
    assert Run(text="second question", resume="work").code == 0
    assert Run(text="third question", continue_=True).code == 0
    sent = [m["content"] for m in fake_model.requests[2]["messages"][1:]]
    assert sent == ["first question", "first answer", "second question", "second",
                    "third question"]
    with_store = store()
    assert len(with_store.list_sessions()) == 1
    with_store.close()


def test_a_taken_name_suggests_resume(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "a"})
    Run(name="taken")
    with pytest.raises(SessionNameTaken) as info:
        Run(name="taken")
    assert "--resume taken" in info.value.one_line()
    assert info.value.exit_code == 2  # a bad argument (--name), as the other bad input exits


def test_missing_model_or_key_creates_no_session(workdir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelNotConfigured):
        Run()
    monkeypatch.setenv("GOOSE_MODEL", "anthropic/claude-sonnet-4-20250514")
    with pytest.raises(AuthFailed) as info:
        Run()
    assert "ANTHROPIC_API_KEY" in info.value.one_line()
    assert not (load_settings().data_dir / "sessions.db").exists()


def test_the_session_is_locked_while_running(fake_model: FakeServer, workdir: Path) -> None:
    hold = threading.Event()
    fake_model.add({"text": "slow answer", "chunk_chars": 2, "hold": hold})
    runner = threading.Thread(target=lambda: Run(name="busy"))
    runner.start()
    try:
        while len(fake_model.requests) < 1:
            hold.wait(0.01)
        with pytest.raises(SessionInUse):
            open_session(load_settings(), name=None, resume="busy", continue_=False)
    finally:
        hold.set()
        runner.join(30)
    opened = open_session(load_settings(), name=None, resume="busy", continue_=False)
    opened.close()


def test_an_answer_cut_at_the_output_limit_says_so_and_is_kept(fake_model: FakeServer,
                                                                 workdir: Path) -> None:
    fake_model.add({"text": "The three steps are: first, open the", "finish_reason": "length"})
    run = Run(mode="auto")
    assert run.code == 0
    assert run.out == "The three steps are: first, open the\n"
    (cut,) = [line for line in run.err.splitlines() if "cut off" in line]
    assert "output limit" in cut and "max_output_tokens" in cut and FAKE_MODEL in cut
    assert [m.text for m in only_session()][-1] == "The three steps are: first, open the"


def test_json_and_stream_json_say_an_answer_was_cut_at_the_output_limit(
        fake_model: FakeServer, workdir: Path) -> None:
    import json

    fake_model.add({"text": "first, open the", "finish_reason": "length"},
                   {"text": "first, open the", "finish_reason": "length"}, {"text": "Done."})
    (notice,) = json.loads(Run(mode="auto", output_format="json").out)["notices"]
    assert "cut off at the" in notice and "max_output_tokens" in notice
    lines = [json.loads(line) for line in Run(mode="auto", output_format="stream-json")
             .out.splitlines()]
    assert any(d["type"] == "notification" and "cut off" in d["text"] for d in lines)
    assert json.loads(Run(mode="auto", output_format="json").out)["notices"] == []


def test_a_complete_answer_says_nothing_about_a_limit(fake_model: FakeServer,
                                                      workdir: Path) -> None:
    fake_model.add({"text": "Done."})
    run = Run(mode="auto")
    assert run.code == 0 and "cut off" not in run.err


def test_a_resumed_run_saves_the_task_before_the_model_client_has_loaded(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.providers.litellm_provider import LiteLLMProvider

    fake_model.add({"text": "first answer"}, {"text": "slow answer"})
    Run(text="first question", name="work")
    seen: list[bool] = []
    check = LiteLLMProvider.check_credentials

    def slow_check(self: LiteLLMProvider) -> dict[str, str]:  # litellm's import: a kill -9
        for _ in range(100):  # lands here; the task must already be stored
            if "slow one" in [m.text for m in only_session()]:
                break
            threading.Event().wait(0.05)
        seen.append("slow one" in [m.text for m in only_session()])
        return check(self)

    monkeypatch.setattr(LiteLLMProvider, "check_credentials", slow_check)
    assert Run(text="slow one", resume="work").code == 0
    assert seen[0] is True
    assert [m.text for m in only_session()] == ["first question", "first answer", "slow one",
                                                "slow answer"]
    sent = [m["content"] for m in fake_model.requests[1]["messages"][1:]]
    assert sent == ["first question", "first answer", "slow one"]


def test_a_resumed_run_without_a_key_leaves_the_session_unchanged(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_model.add({"text": "first answer"})
    Run(text="first question", name="work")
    monkeypatch.setenv("GOOSE_MODEL", "anthropic/claude-sonnet-4-20250514")
    with pytest.raises(AuthFailed):
        Run(text="never sent", resume="work")
    assert [m.text for m in only_session()] == ["first question", "first answer"]
    assert Run(text="and now?", resume="work", model=FAKE_MODEL).code != 2  # not left locked


def test_a_failing_shell_call_shows_its_first_meaningful_line(fake_model: FakeServer,
                                                              workdir: Path) -> None:
    fake_model.add(shell("echo 'ValueError: BOOM' >&2; exit 3"), {"text": "It failed."})
    run = Run(mode="auto")
    assert run.code == 0
    assert "  error: ValueError: BOOM\n" in run.err  # not the "[stderr]" header of its output
    assert "[stderr]" not in run.err


def test_a_traceback_shows_its_error_line_not_its_first(fake_model: FakeServer,
                                                        workdir: Path) -> None:
    fake_model.add(shell("python3 -c 'raise ValueError(\"BOOM-17 in parser\")'"),
                   {"text": "It failed."})
    run = Run(mode="auto")
    assert run.code == 0
    assert "  error: ValueError: BOOM-17 in parser\n" in run.err
    assert "Traceback" not in run.err


@pytest.mark.parametrize(("mode", "label"), [("smart_approve", "denied: no terminal to ask"),
                                             ("approve", "denied: no terminal to ask"),
                                             ("chat", "not run: chat mode")])
def test_a_call_that_was_not_run_is_named_on_stderr(fake_model: FakeServer, workdir: Path,
                                                    mode: str, label: str) -> None:
    fake_model.add(shell("touch created"), {"text": "Not run."})
    run = Run(mode=mode)
    lines = run.err.splitlines()
    at = lines.index(f"  {label}")
    assert lines[at - 1] == '> shell {"command":"touch created"}'  # which call, as for one run
    assert not (workdir / "created").exists()


def test_a_long_tool_error_line_on_stderr_ends_with_an_ellipsis_at_a_word(
        fake_model: FakeServer, work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cli_support import cli

    monkeypatch.chdir(work)
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": "{not json"}]},
                   {"text": "ok"})
    _, err = cli(capsys, "run", "-t", "go", "--mode", "auto")
    line = next(x for x in err.splitlines() if "not valid JSON" in x)
    assert line.endswith("…"), line  # cut, and says so
    full = next(m["content"] for m in fake_model.requests[1]["messages"] if m["role"] == "tool")
    shown = line.removeprefix("  error: ").removesuffix("…").rstrip()
    assert full.startswith(shown) and full[len(shown)] == " "  # cut between words
    assert len(line) <= 210
