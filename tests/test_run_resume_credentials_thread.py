"""``run --resume`` that fails after the key check started leaves no check running.

The check (cli/run_early.py) imports litellm on a thread while the session opens; a resume
that failed there (the session in use, a damaged one, a refused ``/command``) returned with the
thread still importing (docs/architecture.md §1, "Who writes"). The check now starts once the
session is locked (a session in use is refused without it), and an error after that waits for
it before the command returns.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from cli_support import cli, run_cli
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.providers.litellm_provider import LiteLLMProvider
from goosectx.store import SessionStore

CHECK_S = 0.5
"""How long the patched key check takes: longer than a failing resume needs to return."""


def _checks() -> list[threading.Thread]:
    return [t for t in threading.enumerate()
            if t.name == "goosectx-credentials" and t.is_alive()]


@pytest.fixture
def slow_check(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The key check takes :data:`CHECK_S`; the times each one ended."""
    ended: list[float] = []
    check = LiteLLMProvider.check_credentials

    def slow(self: LiteLLMProvider) -> dict[str, str]:
        time.sleep(CHECK_S)
        try:
            return check(self)
        finally:
            ended.append(time.monotonic())

    monkeypatch.setattr(LiteLLMProvider, "check_credentials", slow)
    return ended


def _session_id(name: str) -> str:
    store = SessionStore(load_settings().data_dir)
    try:
        return next(s.id for s in store.list_sessions() if s.name == name)
    finally:
        store.close()


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_resume_of_a_session_in_use_returns_with_no_check_running(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        slow_check: list[float], output_format: str) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "busy")
    sid = _session_id("busy")
    assert _checks() == []
    slow_check.clear()
    store = SessionStore(load_settings().data_dir)
    try:
        with store.lock(sid):  # another goosectx drives it
            code, out, err = run_cli(capsys, "run", "--resume", "busy", "-t", "more",
                                     "--output-format", output_format)
            assert _checks() == []  # was: still importing litellm
    finally:
        store.close()
    assert code == 1 and "in use" in err and len(err.strip().splitlines()) == 1, err
    if output_format == "json":
        assert json.loads(out)["status"] == "error"
    assert slow_check == []  # refused before the check started: no wait for litellm


def test_a_refused_slash_command_on_resume_leaves_no_check_running(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        slow_check: list[float]) -> None:
    fake_model.add({"text": "first answer"})
    cli(capsys, "run", "-t", "first", "--name", "cmds")
    slow_check.clear()
    code, _out, err = run_cli(capsys, "run", "--resume", "cmds", "-t", "/no-such-command-x")
    assert code == 2 and err.startswith("goosectx: error:"), err
    assert _checks() == []
    assert slow_check == []  # refused before the check started: no wait for litellm


def test_a_custom_command_on_resume_is_expanded_and_checked(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        slow_check: list[float]) -> None:
    fake_model.add({"text": "first answer"}, {"text": "reviewed"})
    cli(capsys, "run", "-t", "first", "--name", "custom")
    commands = workdir / ".goosectx" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review the code in $ARGUMENTS\n")
    slow_check.clear()
    code, out, err = run_cli(capsys, "run", "--resume", "custom", "-t", "/review src")
    assert code == 0, err
    assert "reviewed" in out and slow_check and _checks() == []
    assert "Review the code in src" in json.dumps(fake_model.requests[-1])
