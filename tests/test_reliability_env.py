"""Reliability through the real CLI: bad environment values, unusable data dirs, file modes.

Every bad value must end the command with exit code 2 (configuration) or 1 (store) and ONE
line on stderr naming what is wrong — no traceback, and no data written. CI runs as root, so
nothing here relies on access being refused: the data dir is made unusable by putting a file
where a directory should be, and privacy is checked on mode bits.
"""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_support import assert_one_line_error as _one_line
from reliability_support import clean_env, cli

from goosectx.conversation import Message
from goosectx.store import SessionStore


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    _one_line(code, proc.returncode, proc.stderr, *needles)
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


BAD_VALUES = [
    ("GOOSE_MODE", "fast"),
    ("GOOSE_MODE", "auto-ish"),
    ("GOOSE_AUTO_COMPACT_THRESHOLD", "abc"),
    ("GOOSE_AUTO_COMPACT_THRESHOLD", "nan"),
    ("GOOSE_AUTO_COMPACT_THRESHOLD", "inf"),
    ("GOOSE_AUTO_COMPACT_THRESHOLD", "80%"),
    ("GOOSE_CONTEXT_LIMIT", "0"),
    ("GOOSE_CONTEXT_LIMIT", "-5"),
    ("GOOSE_CONTEXT_LIMIT", "lots"),
    ("GOOSE_CONTEXT_LIMIT", "1.5"),
    ("GOOSE_MAX_TURNS", "0"),
    ("GOOSE_MAX_TURNS", "ten"),
    ("GOOSE_TOOL_PAIR_SUMMARIZATION", "maybe"),
    ("GOOSE_TOOL_CALL_CUTOFF", "-1"),
    ("GOOSE_TOOL_CALL_CUTOFF", "many"),
]


@pytest.mark.parametrize(("var", "value"), BAD_VALUES)
def test_bad_environment_value_is_a_one_line_exit_2(tmp_path, var, value):
    home = tmp_path / "home"
    proc = cli(clean_env(home, **{var: value}), "info")
    assert_one_line_error(proc, 2, var, repr(value))
    assert not home.exists(), "a rejected configuration must not create the data dir"


@pytest.mark.parametrize("command", [
    ["sessions", "list"],
    ["sessions", "export", "anything"],
    ["run", "-t", "hello"],
    ["compact", "anything"],
])
def test_every_command_validates_the_environment_first(tmp_path, command):
    home = tmp_path / "home"
    proc = cli(clean_env(home, GOOSE_AUTO_COMPACT_THRESHOLD="half"), *command)
    assert_one_line_error(proc, 2, "GOOSE_AUTO_COMPACT_THRESHOLD", "'half'")
    assert not home.exists()


@pytest.mark.parametrize("command", [["info"], ["sessions", "list"], ["run", "-t", "hi"],
                                     ["compact", "x"]])
def test_goosectx_home_pointing_at_a_file(tmp_path, command):
    target = tmp_path / "not-a-dir"
    target.write_text("keep me\n")
    proc = cli(clean_env(target), *command)
    assert_one_line_error(proc, 2, "GOOSECTX_HOME", str(target))
    assert target.read_text() == "keep me\n"


def test_goosectx_home_below_a_file_is_a_clear_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = cli(clean_env(blocker / "sub"), "sessions", "export", "x")
    # Nothing saved there yet: a read command says so (a bad argument: exit 2) instead of
    # failing on the path.
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert blocker.read_text() == "x"


def test_a_goosectx_home_that_cannot_be_created_is_a_configuration_error(tmp_path):
    proc = cli(clean_env(Path("/proc/nope"), GOOSE_MODEL="openai/x", OPENAI_API_KEY="sk-x"),
               "run", "-t", "hi")
    assert_one_line_error(proc, 2, "cannot create data dir /proc/nope", "GOOSECTX_HOME")


@pytest.fixture
def saved(tmp_path):
    """A data dir with one saved session named ``work`` (two messages)."""
    home = tmp_path / "home"
    store = SessionStore(home)
    session = store.create_session(tmp_path, name="work")
    store.append_message(session.id, Message.user("hello"))
    store.append_message(session.id, Message.assistant("hi there"))
    store.close()
    return home, session.id


def test_a_file_where_the_locks_dir_should_be(saved):
    home, session_id = saved
    (home / "locks").write_text("not a directory")
    db_before = (home / "sessions.db").read_bytes()
    proc = cli(clean_env(home), "sessions", "remove", "work", "--yes")
    assert_one_line_error(proc, 1, "lock", str(home / "locks"))
    assert (home / "locks").read_text() == "not a directory"
    assert (home / "sessions.db").read_bytes() == db_before
    store = SessionStore(home)
    assert len(store.load(session_id).conversation) == 2
    store.close()


def test_a_directory_where_the_database_should_be(tmp_path):
    home = tmp_path / "home"
    (home / "sessions.db").mkdir(parents=True)
    for command in (["sessions", "list"], ["sessions", "show", "x"]):
        proc = cli(clean_env(home), *command)
        assert_one_line_error(proc, 1, str(home / "sessions.db"))
    assert (home / "sessions.db").is_dir() and not any((home / "sessions.db").iterdir())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_data_dir_database_exports_and_debug_log_are_private(saved, tmp_path):
    home, session_id = saved
    # The CLI creates a fresh data dir 0700 and its log 0600, whatever the umask.
    fresh = tmp_path / "fresh"
    env = clean_env(fresh)
    proc = subprocess.run(
        [sys.executable, "-c", "import os, sys; os.umask(0); from goosectx.cli.app import main;"
         " sys.argv[0] = 'goosectx'; main(['--debug', 'sessions', 'export', 'x'])"],
        env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr  # no session 'x': a bad argument
    assert mode(fresh) == 0o700
    assert mode(fresh / "goosectx.log") == 0o600

    out_dir = tmp_path / "exports"
    out_dir.mkdir()
    for fmt in ("json", "md"):
        target = out_dir / f"work.{fmt}"
        proc = cli(clean_env(home), "--debug", "sessions", "export", "work", "-f", fmt,
                   "-o", str(target))
        assert proc.returncode == 0, proc.stderr
        assert mode(target) == 0o600, fmt
    assert mode(home) == 0o700
    assert mode(home / "goosectx.log") == 0o600
    assert mode(home / "sessions.db") == 0o600
    extras = list(home.glob("sessions.db-*"))
    for extra in extras:
        assert mode(extra) == 0o600, extra.name


def test_a_log_lock_and_tool_output_left_wider_are_made_private_again(tmp_path):
    # Files copied in, or made under a umask of 022 by an older version: the next run takes
    # group and other access off them, as it does for the database.
    from fakeserver import FakeServer
    from reliability_support import model_env

    home = tmp_path / "home"
    with FakeServer([{"text": "one"}, {"text": "two"}]) as server:
        env = model_env(home, server.base_url)
        assert cli(env, "run", "--name", "p", "-t", "hi", cwd=tmp_path).returncode == 0
        locks = home / "locks"
        (lock,) = locks.glob("*.lock")
        log = home / "goosectx.log"
        log.write_text("old\n")
        rotated = home / "goosectx.log.1"
        rotated.write_text("older\n")
        overflow = home / "tool-output"
        overflow.mkdir(exist_ok=True)
        kept = overflow / "20250101-000000-abcd1234.stdout.txt"
        kept.write_text("output\n")
        for path in (log, rotated, lock, kept):
            path.chmod(0o644)
        for path in (locks, overflow):
            path.chmod(0o755)
        proc = cli(env, "--debug", "run", "--resume", "p", "-t", "again", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    assert {p.name: mode(p) for p in (log, rotated, lock, kept)} == dict.fromkeys(
        (p.name for p in (log, rotated, lock, kept)), 0o600)
    assert mode(locks) == 0o700 and mode(overflow) == 0o700
