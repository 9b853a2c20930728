"""Reliability of the session database through the real CLI: corrupt and truncated files,
two processes on one database, and a process killed in the middle of a compaction.

A damaged database must give one clear line and stay byte-for-byte as it was (the user may
still rescue it); a crash must leave the old or the new history, never a mix.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.store import SessionStore


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GOOSE_", "GOOSECTX_")) and not k.endswith("_API_KEY")}
    env.update(GOOSECTX_HOME=str(home), GOOSECTX_CONFIG=str(home.parent / "no-config.toml"),
               NO_COLOR="1", TERM="dumb")
    env.update(extra)
    return env


def cli(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "goosectx", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def fill(home: Path, workdir: Path, *, name: str = "work", pairs: int = 60) -> str:
    """A session of ``pairs`` × (request, tool call, tool result, answer) messages."""
    store = SessionStore(home)
    session = store.create_session(workdir, name=name)
    for i in range(pairs):
        store.append_message(session.id, Message.user(f"question {i}: " + "why? " * 40))
        store.append_message(session.id, Message(
            "assistant", (ToolRequest(f"c{i}", "shell", {"command": f"echo {i}"}),)))
        store.append_message(session.id, Message(
            "user", (ToolResponse(f"c{i}", f"{i}\n" + "output line\n" * 30),)))
        store.append_message(session.id, Message.assistant(f"answer {i}: " + "because " * 40))
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return session.id


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
    fill(home, tmp_path)
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
