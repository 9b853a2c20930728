"""A command that must wait for another goosectx writing the session database says so.

SQLite's busy wait prints nothing (Python's sqlite3 has no busy handler to print from): after
about a second of waiting one stderr line tells the user why nothing happens; no line when
there is no wait; a wait that ends in failure still ends with the "busy" error and its hint.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer

from goosectx.config import load_settings
from goosectx.store import SessionStore

WAITING = "waiting for another goosectx that is writing the session database"


def _seeded(work: Path) -> Path:
    """A store with one session named ``fix-io``; returns the database path."""
    store = SessionStore(load_settings().data_dir)
    try:
        store.create_session(work, name="fix-io")
    finally:
        store.close()
    return load_settings().data_dir / "sessions.db"


def _hold_write_lock(db: Path, seconds: float) -> threading.Timer:
    """Another writer: a second connection holds a write transaction for ``seconds``."""
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    lock, done = threading.Lock(), []

    def release() -> None:  # once, whichever timer comes first
        with lock:
            if not done:
                done.append(True)
                other.execute("COMMIT")
                other.close()

    timer = threading.Timer(seconds, release)
    timer.start()
    return timer


def _released_after_the_notice(monkeypatch: pytest.MonkeyPatch, timer: threading.Timer,
                               delay: float = 0.5) -> None:
    """The other writer finishes ``delay`` after the waiting line (not at a fixed time from
    the start, which a slow start-up on a loaded machine could reach first)."""
    from goosectx.cli import common

    shown = common.waiting_notice

    def notice(text: str) -> None:
        shown(text)
        threading.Timer(delay, timer.function).start()

    monkeypatch.setattr(common, "waiting_notice", notice)


def test_a_rename_that_waits_for_another_writer_says_so_once_then_succeeds(
        capsys: pytest.CaptureFixture[str], work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    timer = _hold_write_lock(_seeded(work), 4.5)
    _released_after_the_notice(monkeypatch, timer)
    started = time.monotonic()
    code, _out, err = run_cli(capsys, "sessions", "rename", "fix-io", "later")
    timer.join()
    assert code == 0, err
    assert time.monotonic() - started >= 1.4
    assert err.count(WAITING) == 1
    assert err.splitlines()[0] == f"goosectx: {WAITING}…"
    code, out, _err = run_cli(capsys, "sessions", "list")
    assert code == 0 and "later" in out


def test_a_run_that_waits_for_another_writer_says_so_and_answers(
        capsys: pytest.CaptureFixture[str], work: Path, fake_model: FakeServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    db = _seeded(work)
    fake_model.add({"text": "warm"}, {"text": "hello there"})
    assert run_cli(capsys, "run", "-t", "first")[0] == 0  # litellm loaded: the wait is the store's
    timer = _hold_write_lock(db, 4.5)
    _released_after_the_notice(monkeypatch, timer)
    code, out, err = run_cli(capsys, "run", "-t", "hi")
    timer.join()
    assert code == 0, err
    assert "hello there" in out
    assert err.count(WAITING) == 1


def test_no_wait_no_line(capsys: pytest.CaptureFixture[str], work: Path) -> None:
    _seeded(work)
    code, _out, err = run_cli(capsys, "sessions", "rename", "fix-io", "later")
    assert code == 0 and WAITING not in err


def test_a_wait_that_ends_in_failure_still_says_busy_with_its_hint(
        capsys: pytest.CaptureFixture[str], work: Path) -> None:
    timer = _hold_write_lock(_seeded(work), 7)
    code, _out, err = run_cli(capsys, "sessions", "rename", "fix-io", "later")
    timer.join()
    assert code == 1
    assert err.count(WAITING) == 1
    assert "is busy" in err and "retry in a moment" in err
