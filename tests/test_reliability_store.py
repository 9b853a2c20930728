"""Reliability of the session database through the real CLI: corrupt and truncated files,
two processes on one database, and a process killed in the middle of a compaction.

A damaged database must give one clear line and stay byte-for-byte as it was (the user may
still rescue it); a crash must leave the old or the new history, never a mix.
"""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest
from reliability_support import (
    assert_one_line_error,
    assert_sendable,
    clean_env,
    cli,
    fill,
    held_reply,
    history_state,
    load,
    model_env,
    paused_env,
    start,
    wait_for,
)

from goosectx.store import SessionStore


def _checkpoint(home: Path) -> None:
    """Move the WAL into the main file, so damaging the file damages the data."""
    store = SessionStore(home)
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()


def damage(db: Path, how: str) -> None:
    data = bytearray(db.read_bytes())
    if how == "garbage":
        db.write_bytes(b"definitely not an SQLite file\n" * 400)
    elif how == "truncated":
        db.write_bytes(bytes(data[: len(data) // 3]))
    elif how == "scribbled":
        # Keep the header and the first pages (schema), overwrite the message pages.
        page = int.from_bytes(data[16:18], "big")
        start = page * 3
        data[start:] = bytes((i * 37 + 11) % 256 for i in range(len(data) - start))
        db.write_bytes(bytes(data))
    else:
        raise AssertionError(how)


READ_COMMANDS = [
    ["sessions", "list"],
    ["sessions", "show", "work"],
    ["sessions", "show", "work", "--agent"],
    ["sessions", "export", "work", "-f", "json"],
    ["sessions", "export", "work", "-f", "md"],
    ["sessions", "remove", "work", "--yes"],
]


@pytest.mark.parametrize("how", ["garbage", "truncated", "scribbled"])
def test_damaged_database_gives_one_line_and_is_left_byte_identical(tmp_path, how):
    home = tmp_path / "home"
    fill(home, tmp_path, pairs=60)
    _checkpoint(home)
    db = home / "sessions.db"
    damage(db, how)
    before = db.read_bytes()
    for command in READ_COMMANDS:
        proc = cli(clean_env(home), *command)
        assert db.read_bytes() == before, command
        if command == ["sessions", "list"] and proc.returncode == 0:
            continue  # the sessions table may survive; reading messages must not pretend
        assert proc.returncode == 1, (command, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("goosectx: error: "), proc.stderr
        assert str(db) in lines[0] and "unreadable" in lines[0], lines[0]
    assert sorted(p.name for p in home.iterdir()) == ["sessions.db"]


# -- a process killed or interrupted in the middle of `goosectx compact` ------------------------

SUMMARY_REPLY = json.dumps({"user_intent": "answer questions", "current_work": "answering",
                            "next_step": "wait for the user"})


@pytest.mark.parametrize(("point", "expected"), [
    ("replace_history:before_commit", "old"),
    ("replace_history:after_commit", "new"),
])
def test_sigkill_during_compact_leaves_old_or_new_history(tmp_path, point, expected):
    home = tmp_path / "home"
    sid, ids = fill(home, tmp_path)
    marker = tmp_path / "paused"
    proc = start(clean_env(home, **paused_env(marker, point)),
                 "compact", "work", "--strategy", "extractive")
    wait_for(point, marker.exists, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert history_state(home, "work", ids) == expected
    # The killed process's lock died with it: the session can be compacted again at once.
    again = cli(clean_env(home), "compact", "work", "--strategy", "extractive", "--json")
    if again.returncode == 1 and expected == "new":
        # Already compacted, nothing new since: refused as "nothing to compact" (not "in
        # use"): the lock was free.
        assert "nothing to compact" in again.stderr, again.stderr
        return
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["session_id"] == sid


def test_sigkill_while_the_summary_is_being_written(tmp_path):
    from fakeserver import FakeServer

    home = tmp_path / "home"
    _, ids = fill(home, tmp_path)
    arrived, hold, summary = held_reply(SUMMARY_REPLY, 10)

    with FakeServer([summary]) as server:
        proc = start(model_env(home, server.base_url), "compact", "work")
        try:
            wait_for("the summary call", arrived.is_set, proc)
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
        finally:
            hold.set()
    assert history_state(home, "work", ids) == "old"
    assert load(home, "work").ledger.entries == []


def test_llm_compact_that_completes_is_stored_in_full(tmp_path):
    from fakeserver import FakeServer

    home = tmp_path / "home"
    _, ids = fill(home, tmp_path)
    with FakeServer([{"text": SUMMARY_REPLY}]) as server:
        proc = cli(model_env(home, server.base_url), "compact", "work", "--json")
    assert proc.returncode == 0, proc.stderr
    assert history_state(home, "work", ids) == "new"
    session = load(home, "work")
    assert [e.is_compaction for e in session.ledger.entries] == [True]
    summary = next(m for m in session.conversation if m.metadata.is_summary)
    assert "answer questions" in summary.text


def test_ctrl_c_inside_the_write_back_rolls_it_back(tmp_path):
    home = tmp_path / "home"
    _, ids = fill(home, tmp_path)
    marker = tmp_path / "paused"
    point = "replace_history:before_commit"
    proc = start(clean_env(home, **paused_env(marker, point)),
                 "compact", "work", "--strategy", "extractive")
    wait_for(point, marker.exists, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"Traceback" not in err
    assert history_state(home, "work", ids) == "old"


# -- two processes on one database -------------------------------------------------------------

def _open_together(home: Path, count: int) -> list[BaseException]:
    """Open ``count`` stores on ``home`` at the same instant; return what they raised."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def open_it() -> None:
        barrier.wait()
        try:
            SessionStore(home).close()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_many_openers_of_a_new_database_at_once(tmp_path):
    """The first start-up of several goosectx at once: one creates the schema, all succeed."""
    for attempt in range(40):
        assert _open_together(tmp_path / f"h{attempt}", 4) == []


def test_second_process_on_a_running_session_is_told_the_pid(tmp_path):
    from fakeserver import FakeServer

    home = tmp_path / "home"
    work = tmp_path / "w"
    work.mkdir()
    arrived, hold = threading.Event(), threading.Event()

    def slow(body):  # noqa: ANN001, ANN202
        arrived.set()
        return {"text": "a slow answer, streamed", "chunk_chars": 4, "hold": hold}

    with FakeServer([slow, {"text": "other answer"}]) as server:
        env = model_env(home, server.base_url)
        first = start(env, "run", "--name", "shared", "-t", "first task", cwd=work)
        try:
            wait_for("the first run's model call", arrived.is_set, first)
            second = cli(env, "run", "--resume", "shared", "-t", "second task", cwd=work)
            assert_one_line_error(1, second.returncode, second.stderr,
                                  f"in use by PID {first.pid}")
            # A different session of the same database is written meanwhile (WAL, busy timeout).
            other = cli(env, "run", "--name", "other", "-t", "other task", cwd=work)
            assert other.returncode == 0, other.stderr
            assert len(server.requests) == 2, "the refused run must not call the model"
        finally:
            hold.set()
        _, err = first.communicate(timeout=60)
        assert first.returncode == 0, err
    shared = load(home, "shared")
    assert [m.text for m in shared.conversation] == ["first task", "a slow answer, streamed"]
    store = SessionStore(home)
    store.lock(shared.id).release()  # free again once the first run is over
    store.close()
    assert [m.text for m in load(home, "other").conversation] == ["other task", "other answer"]


STEPS = 12


def _steps(body):  # noqa: ANN001, ANN202
    """A model that calls the shell STEPS times, then answers (stateless: reads the request)."""
    done = sum(1 for m in body["messages"] if m.get("role") == "tool")
    if done < STEPS:
        return {"tool_calls": [{"name": "shell", "arguments": {"command": f"echo step {done}"}}]}
    return {"text": "all steps done"}


def test_two_processes_writing_different_sessions_at_once(tmp_path):
    from fakeserver import FakeServer

    home = tmp_path / "home"
    work = tmp_path / "w"
    work.mkdir()
    with FakeServer(default_reply=_steps) as server:
        env = model_env(home, server.base_url)
        procs = [start(env, "run", "--mode", "auto", "--name", f"s{i}", "-t", f"task {i}",
                       cwd=work) for i in range(2)]
        results = [p.communicate(timeout=120) for p in procs]
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
    for i in range(2):
        session = load(home, f"s{i}")
        # task, then STEPS × (call, result), then the answer: every write landed.
        assert len(session.conversation) == 2 + 2 * STEPS
        assert session.conversation.messages[-1].text == "all steps done"
        assert len(session.ledger.entries) == STEPS + 1
        assert_sendable(session.conversation)
