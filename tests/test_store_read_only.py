"""A session database on read-only media (fresh-eyes round 10).

What the user sees: ``sessions list/show/export/search`` read it (SQLite ``mode=ro``, or
``immutable=1`` when not even the ``-shm`` file can be made); a command that writes says the
database is on a read-only file system and how to go on — not "cannot write session database
…: unable to open database file" for a read.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli

from goosectx.conversation import Message
from goosectx.store import SessionStore, database

ROUTE = "port the parser"


def _saved_session(home: Path) -> str:
    store = SessionStore(home)
    try:
        session = store.create_session(Path("."), name="parser")
        store.append_message(session.id, Message.user(ROUTE))
        return session.id
    finally:
        store.close()


@pytest.fixture
def read_only_media(monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite as on a read-only mount: no open may write, not even the -shm WAL index."""
    connect = sqlite3.connect

    def refusing(target: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if "immutable=1" not in str(target):
            raise sqlite3.OperationalError("unable to open database file")
        return connect(target, *args, **kwargs)

    monkeypatch.setattr(database.sqlite3, "connect", refusing)
    monkeypatch.setattr(database, "on_read_only_file_system", lambda path: True)


def _reads(capsys: pytest.CaptureFixture[str], session_id: str) -> None:
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    assert code == 0, err
    assert [row["name"] for row in json.loads(out)] == ["parser"]
    code, out, err = run_cli(capsys, "sessions", "show", "parser")
    assert code == 0 and ROUTE in out, err
    code, out, err = run_cli(capsys, "sessions", "export", session_id, "--format", "json")
    assert code == 0, err
    assert [m["content"][0]["text"] for m in json.loads(out)["messages"]] == [ROUTE]
    code, out, err = run_cli(capsys, "sessions", "search", "parser")
    assert code == 0 and session_id in out, err


def _write_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "sessions", "rename", "parser", "lexer")
    assert code != 0
    [line] = [line for line in err.splitlines() if line.strip()]
    assert "is on a read-only file system" in line
    assert "copy it to a writable place and point GOOSECTX_HOME there" in line
    assert "unable to open" not in line


def test_read_commands_read_a_database_on_read_only_media(
        capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest) -> None:
    session_id = _saved_session(Path(os.environ["GOOSECTX_HOME"]))
    request.getfixturevalue("read_only_media")
    _reads(capsys, session_id)


def test_a_writing_command_says_the_database_is_on_a_read_only_file_system(
        capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest) -> None:
    _saved_session(Path(os.environ["GOOSECTX_HOME"]))
    request.getfixturevalue("read_only_media")
    _write_refused(capsys)


@pytest.fixture
def read_only_mount(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """``(writable dir, the same dir mounted read-only)``; skipped where mount is not allowed."""
    writable, mounted = tmp_path / "rw", tmp_path / "ro"
    writable.mkdir()
    mounted.mkdir()
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "--bind", str(writable), str(mounted)], capture_output=True).returncode:
        pytest.skip("needs root and a bind mount")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(mounted)],
                          capture_output=True).returncode:
            pytest.skip("cannot remount read-only")
        yield writable, mounted
    finally:
        subprocess.run(["umount", str(mounted)], capture_output=True)


def test_a_real_read_only_mount_reads_and_refuses_writes_with_the_fix(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        read_only_mount: tuple[Path, Path]) -> None:
    writable, mounted = read_only_mount
    session_id = _saved_session(writable)
    monkeypatch.setenv("GOOSECTX_HOME", str(mounted))
    _reads(capsys, session_id)
    _write_refused(capsys)
