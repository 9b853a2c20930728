"""Ctrl-C (or SIGTERM / SIGHUP) during ``sessions import``: one line, exit 130 (143 / 129),
and no session of the file left in the store, half written or whole.

It exited 130 saying nothing (SIGTERM: killed at once). The signal is sent at a pause point
of the product (goosectx.testhooks): inside the transaction of a large generated file's
session, and between the sessions of a goose sessions.db.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from reliability_support import (
    assert_one_line_error,
    clean_env,
    cli,
    paused_env,
    start,
    wait_for,
)
from test_import_formats import goose_db


def large_claude_code(path: Path, messages: int) -> Path:
    """A generated Claude Code session of ``messages`` records (~1 KB each)."""
    with path.open("w") as fh:
        for i in range(messages):
            role = "user" if i % 2 == 0 else "assistant"
            text = f"message {i} " + "lorem ipsum " * 80
            content: object = text if role == "user" else [{"type": "text", "text": text}]
            fh.write(json.dumps({"type": role, "uuid": f"u{i}", "sessionId": "big",
                                 "timestamp": "2026-08-05T10:00:00Z",
                                 "message": {"role": role, "content": content}}) + "\n")
    return path


def interrupted(home: Path, tmp_path: Path, point: str, signum: int, source: Path
                ) -> tuple[int, str, str]:
    """Import ``source``, send ``signum`` when the product first reaches ``point``."""
    marker = tmp_path / "paused"
    proc = start(clean_env(home, **paused_env(marker, point)), "sessions", "import",
                 str(source), cwd=tmp_path)
    wait_for(point, lambda: marker.exists() and marker.read_text() != "", proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out.decode(), err.decode()


def stored_rows(home: Path) -> tuple[int, int]:
    """(sessions, messages) in the store, its integrity checked."""
    conn = sqlite3.connect(home / "sessions.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return (conn.execute("SELECT count(*) FROM sessions").fetchone()[0],
                conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_ctrl_c_inside_a_large_sessions_transaction_saves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = large_claude_code(tmp_path / "big.jsonl", 6_000)
    code, out, err = interrupted(home, tmp_path, "save_new_session:before_commit",
                                 signal.SIGINT, source)
    assert_one_line_error(130, code, err, f"import stopped (Ctrl-C): nothing was saved from "
                                          f"{source}")
    assert out == ""
    assert stored_rows(home) == (0, 0)
    listed = cli(clean_env(home), "sessions", "list", "--json")
    assert json.loads(listed.stdout) == []
    # and the file imports whole afterwards
    again = cli(clean_env(home), "sessions", "import", str(source), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert stored_rows(home) == (1, 6_000)


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code", "by"), [
    (signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM"),
    (signal.SIGHUP, 129, "SIGHUP")])
def test_a_signal_between_the_sessions_of_a_goose_db_takes_back_the_ones_saved(
        tmp_path: Path, signum: int, code: int, by: str) -> None:
    home = tmp_path / "home"
    db = goose_db(tmp_path / "g.db")
    got, out, err = interrupted(home, tmp_path, "import:session-saved", signum, db)
    assert_one_line_error(code, got, err, f"import stopped ({by}): nothing was saved from {db}")
    assert stored_rows(home) == (0, 0)


@pytest.mark.slow
def test_ctrl_c_typed_in_a_terminal_erases_the_progress_line_and_says_nothing_was_saved(
        tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    home = tmp_path / "home"
    source = large_claude_code(tmp_path / "big.jsonl", 3_000)
    marker = tmp_path / "paused"
    env = clean_env(home, **paused_env(marker, "save_new_session:before_commit"))
    child = pexpect.spawn(sys.executable, ["-m", "goosectx", "sessions", "import", str(source)],
                          cwd=str(tmp_path), env=env, dimensions=(24, 100), encoding="utf-8",
                          timeout=60)
    try:
        child.expect(r"importing big\.jsonl \(\d+\.\d MB\): saving 3,000 messages")
        child.sendcontrol("c")
        child.expect(r"\r +\r")  # the line erased first
        child.expect(r"goosectx: error: import stopped \(Ctrl-C\): nothing was saved from ")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130
    assert stored_rows(home) == (0, 0)
