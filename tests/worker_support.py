"""Helpers of the tests of the encoder worker (``goosectx.encoder_worker``), a forked process.

The worker starts only in a process with no other thread (a fork copies no thread). Earlier
tests of a whole-suite run leave threads behind (servers, pools), so there a worker test file
is skipped and run again, all of it, in a fresh interpreter by its own first test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from goosectx.conversation import Message

ALONE = "GOOSECTX_WORKER_TESTS_ALONE"
"""Set in the process :func:`run_alone` starts."""
RUN_ALONE = "test_the_worker_tests_pass_in_a_process_of_their_own"
"""The name of each worker test file's test that runs the file in a process of its own."""


def skip_unless_alone(request: pytest.FixtureRequest) -> None:
    """Skip a worker test in a process where other threads run (:func:`run_alone` runs it)."""
    if request.node.name == RUN_ALONE:
        return
    if threading.active_count() > 1 and os.environ.get(ALONE) != "1":
        pytest.skip(f"other threads run in this process: run by {RUN_ALONE}")


def run_alone(test_file: str) -> None:
    """Run ``test_file``'s tests in a fresh interpreter; assert they all passed there."""
    if os.environ.get(ALONE) == "1" or threading.active_count() == 1:
        pytest.skip("this process has no other thread: the tests below run here")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file],
        env={**os.environ, ALONE: "1"}, capture_output=True, text=True, timeout=600,
        check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " skipped" not in proc.stdout.replace(
        "1 skipped", ""), proc.stdout[-2000:]


def gone(pid: int) -> bool:
    """True when ``pid`` is neither running nor a zombie of ours."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return not Path(f"/proc/{pid}").exists() or _state(pid) != "Z"
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def store_sessions(monkeypatch: pytest.MonkeyPatch, names: Sequence[str],
                   history: Callable[[], Sequence[Message]], model: str) -> None:
    """Sessions ``names``, each holding ``history()``, and ``model`` configured with no server.

    For ``compact --strategy extractive`` through the CLI: no model call is made.
    """
    from conftest import DUMMY_API_KEY

    from goosectx.config import load_settings
    from goosectx.store import SessionStore

    monkeypatch.setenv("GOOSE_MODEL", model)
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")  # no call is made
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    store = SessionStore(load_settings().data_dir)
    try:
        for name in names:
            session = store.create_session(Path.cwd(), name=name)
            for m in history():
                store.append_message(session.id, m)
    finally:
        store.close()
