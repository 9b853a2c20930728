"""SIGTERM, SIGHUP or Ctrl-C during ``run``'s start-up, before its turn began.

It exited 130 whatever the signal, said nothing and dropped the task. Now: 143 / 129 / 130,
the line a later cancel prints, and the task saved when its session was open by then.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.store import SessionStore


def cancel_at(point: str, signum: int, server: FakeServer, cwd: Path, tmp_path: Path,
              *args: str) -> tuple[int, str, str]:
    marker = tmp_path / "paused"
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": server.base_url,
           "OPENAI_API_KEY": "sk-test-start-cancel-0123", "GOOSECTX_TEST_PAUSE_AT": point,
           "GOOSECTX_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen(["goosectx", "run", "-t", "term me", "--mode", "auto", *args],
                            env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def stored_texts() -> list[list[str]]:
    store = SessionStore(load_settings().data_dir)
    try:
        return [[m.text for m in store.load(s.id).conversation] for s in store.list_sessions()]
    finally:
        store.close()


def test_sigterm_before_the_session_is_open_says_the_task_was_not_saved(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    code, out, err = cancel_at("run:starting", signal.SIGTERM, fake_model, workdir, tmp_path)
    assert code == 143 and out == ""
    assert err.startswith("goosectx: cancelled (SIGTERM)\n")
    assert "not saved" in err and stored_texts() == []


@pytest.mark.parametrize(("signum", "code", "said"), [
    (signal.SIGHUP, 129, "goosectx: cancelled (SIGHUP)\n"),
    (signal.SIGINT, 130, "goosectx: cancelled\n"),
    (signal.SIGTERM, 143, "goosectx: cancelled (SIGTERM)\n")])
def test_a_signal_once_the_session_is_open_saves_the_task(
        fake_model: FakeServer, workdir: Path, tmp_path: Path, signum: int, code: int,
        said: str) -> None:
    got, out, err = cancel_at("run:before-turn", signum, fake_model, workdir, tmp_path,
                              "--name", "early", "--output-format", "json")
    assert got == code and err.startswith(said), err
    assert "goosectx: session early saved · resume with: goosectx run --resume early" in err
    assert stored_texts() == [["term me"]]
    result = json.loads(out)
    assert (result["status"], result["exit_code"], result["session_name"]) == (
        "cancelled", code, "early")
    assert fake_model.requests == []  # the model was never called


def reading_stdin(pid: int) -> bool:
    """True while the process's main thread waits in read(2) on its standard input."""
    try:
        return Path(f"/proc/{pid}/syscall").read_text().startswith("0 0x0 ")
    except OSError:
        return False


def test_sigterm_while_piped_data_is_read_ends_with_the_result_and_the_line(
        fake_model: FakeServer, workdir: Path) -> None:
    # A CI step `producer | goosectx run -t ...` killed by its timeout while the producer still
    # writes: typer turned the interrupt into a silent exit 130 (no result, no line).
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": fake_model.base_url,
           "OPENAI_API_KEY": "sk-test-start-cancel-0123"}
    proc = subprocess.Popen(["goosectx", "run", "-t", "why?", "--output-format", "json"],
                            env=env, cwd=workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    proc.stdin.write("log line\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while not reading_stdin(proc.pid):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (out, err)
    assert err.startswith("goosectx: cancelled (SIGTERM)\n") and "not saved" in err
    result = json.loads(out)
    assert (result["status"], result["exit_code"]) == ("cancelled", 143)
    assert stored_texts() == [] and fake_model.requests == []
