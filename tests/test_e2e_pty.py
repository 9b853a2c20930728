"""End to end: the real ``goosectx`` binary in a pseudo-terminal against the fake server.

Types a prompt, sees the streamed answer, approves a tool call, runs ``/compact`` (notice
and rule), ``/context`` and ``/exit``; then ``goosectx sessions show`` lists every message.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from fakeserver import FakeServer

pexpect = pytest.importorskip("pexpect")

TIMEOUT_S = 90  # the first turn waits for litellm's import, slow on a busy machine
READ_S = 1.0
"""A person reads the approval question before pressing a key: a key sooner after the question
is drawn, or sooner after another key, is taken as typed ahead and dropped (cli/answer_guard.py)."""


def press(child: object, key: str) -> None:
    """Answer the approval question on screen with one key, as a person does (after reading)."""
    time.sleep(READ_S)
    child.send(key)  # type: ignore[attr-defined]


def _env(tmp_path: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE", "_BASE_URL"))}
    (tmp_path / "no-config.toml").touch()
    env.update(
        GOOSECTX_HOME=str(tmp_path / "home"),
        GOOSECTX_CONFIG=str(tmp_path / "no-config.toml"),
        GOOSE_MODEL="openai/fake-model",
        OPENAI_API_BASE=base_url,
        OPENAI_API_KEY="sk-test-dummy",
        GOOSECTX_RETRY_BASE_DELAY_S="0.01",
        PROMPT_TOOLKIT_NO_CPR="1",
        TERM="xterm-256color",
        COLUMNS="110",
        LINES="40",
    )
    env.pop("NO_COLOR", None)
    return env


@pytest.mark.slow
def test_repl_in_a_pty_against_the_fake_server(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [
        {"text": "I will run **it**.", "tool_calls": [
            {"name": "shell", "arguments": {"command": "echo e2e-tool-ran"}}]},
        {"text": "The tool printed e2e-tool-ran. All done.", "chunk_chars": 4,
         "chunk_delay_s": 0.01},
        {"text": '{"user_intent": "run echo", "next_step": "nothing"}'},
    ]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        started = time.monotonic()
        child = pexpect.spawn("goosectx", ["session", "--name", "e2e"], cwd=str(work), env=env,
                              dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
        try:
            child.expect("❯")
            prompt_s = time.monotonic() - started
            # long enough that a summary is smaller (a compaction never grows the context)
            child.send("please run echo " + "lorem " * 200 + "\r")
            child.expect("I will run")
            child.expect(r"Run shell\?")
            press(child, "y")
            child.expect("shell: allow once")
            child.expect("e2e-tool-ran")  # the tool's output
            child.expect("All done.")  # the streamed answer
            child.expect("❯")
            child.send("/compact\r")
            child.expect("Compacting")
            child.expect(r"context compacted · [\d,]+ → [\d,]+ tokens")
            child.expect("❯")
            child.send("/context\r")
            child.expect("context limit")
            child.expect("auto-compaction at 80%")
            child.expect("❯")
            child.send("/exit\r")
            child.expect("resume with: goosectx --resume e2e")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0, child.before
        assert len(server.requests) == 3
    assert prompt_s < 10  # generous: a busy CI box; see the report for the measured figure

    shown = subprocess.run(["goosectx", "sessions", "show", "e2e"], env=env, capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    for text in ("please run echo", "I will run", "echo e2e-tool-ran", "e2e-tool-ran",
                 "All done.", "ompacted"):
        assert text in shown.stdout, text


def test_piped_stdin_gives_plain_output_and_exits_at_end_of_input(tmp_path: Path) -> None:
    env = _env(tmp_path, "http://127.0.0.1:9/v1")
    env.pop("GOOSE_MODEL")  # no model: nothing is sent anywhere
    done = subprocess.run(["goosectx"], input="hello\n/context\n/usage\n", env=env,
                          capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\x1b" not in out and "╭" not in out
    assert out.count("no model configured") == 1 and "GOOSE_MODEL" in out
    assert "> hello" in out and "no model is configured" in out
    assert "then send it again" in out  # no prompt to fill it back into
    assert "context limit" in out and "total" in out
    # nothing reached the session (no model), so it is removed: no resume hint for it
    assert "nothing to save" in out and "resume with" not in out
    assert list((tmp_path / "home" / "locks").iterdir()) == []  # nor its lock file
    listed = subprocess.run(["goosectx", "sessions", "list"], env=env, capture_output=True,
                            text=True, timeout=60, cwd=str(tmp_path))
    assert listed.returncode == 0 and "No sessions yet" in listed.stdout, listed.stdout


@pytest.mark.parametrize("extra", [{"TERM": "dumb"}, {"NO_COLOR": "1"}])
def test_dumb_terminal_or_no_color_reads_plain_lines(tmp_path: Path, extra: dict[str, str]
                                                     ) -> None:
    env = {**_env(tmp_path, "http://127.0.0.1:9/v1"), **extra}
    env.pop("GOOSE_MODEL")
    child = pexpect.spawn("goosectx", env=env, dimensions=(30, 100), encoding="utf-8",
                          timeout=TIMEOUT_S, cwd=str(tmp_path))
    seen: list[str] = []
    child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                          "flush": lambda _s: None})()
    try:
        child.expect("> ")
        child.sendline("/usage")
        child.expect("total")
        child.expect("> ")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert "\x1b" not in "".join(seen)


@pytest.mark.slow
def test_ctrl_c_while_an_answer_streams_cancels_the_turn_in_one_piece(tmp_path: Path) -> None:
    words = " ".join(f"word{i}" for i in range(600))
    script = [{"text": words, "chunk_chars": 8, "chunk_delay_s": 0.03},
              {"text": "Picking up where we stopped."}]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        child = pexpect.spawn("goosectx", ["session", "--name", "cc"], cwd=str(tmp_path),
                              env=env, dimensions=(40, 110), encoding="utf-8",
                              timeout=TIMEOUT_S)
        seen: list[str] = []
        child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                              "flush": lambda _s: None})()
        try:
            child.expect("❯")
            child.send("talk for a long time\r")
            child.expect("word40 ")
            child.sendintr()
            child.expect("turn cancelled")
            child.expect("❯")
            child.send("go on\r")
            child.expect("Picking up where we stopped.")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
        second = server.requests[1]["messages"]
    out = "".join(seen)
    assert "^C" not in out  # the terminal did not echo into the live answer
    assert out.count("╭─ goosectx") == 2 and "╰─ cancelled" in out  # one panel, then the next
    partial = [m for m in second if m["role"] == "assistant"]
    assert partial and "word40" in str(partial[0]["content"]) and "word599" not in str(partial)
    assert second[-1]["content"] == "go on" or "go on" in str(second[-1]["content"])


@pytest.mark.slow
def test_a_message_typed_before_any_model_is_offered_again_once_one_is_chosen(
        tmp_path: Path) -> None:
    with FakeServer([{"text": "Noted: milk."}]) as server:
        env = _env(tmp_path, server.base_url)
        env.pop("GOOSE_MODEL")  # the REPL opens without a model
        child = pexpect.spawn("goosectx", cwd=str(tmp_path), env=env, dimensions=(40, 110),
                              encoding="utf-8", timeout=TIMEOUT_S)
        try:
            child.expect("❯")
            child.send("remember the milk\r")
            child.expect("not sent: no model is configured")
            child.expect("comes back in the prompt")
            child.expect("❯")
            child.send("/model openai/fake-model\r")
            child.expect("model: openai/fake-model")
            child.expect("❯")
            child.send("\r")  # the message is in the prompt again: Enter sends it
            child.expect("Noted: milk.")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
        sent = [m for m in server.requests[0]["messages"] if m["role"] == "user"]
    assert len(server.requests) == 1 and len(sent) == 1 and "remember the milk" in str(sent[0])
