"""``sessions remove`` on a full disk (fresh26 A5).

The error said "disk full … free some space and retry", and removing a session — the way to
free space in goosectx — failed the same way: SQLite writes even a deletion to its write-ahead
log first, and on a disk with no room at all it cannot (tried: a checkpoint, another journal
mode; each needs room too). The message now names the way out that works: room freed on that
disk, or the data dir moved with its ``-wal`` file; it says nothing was removed and what not
to delete (the ``-wal`` file holds the newest changes; ``sessions.db`` holds every session).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli, run_cli


def test_removing_a_session_on_a_full_disk_names_a_way_out_and_keeps_everything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: dict) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "hello"}]))
    cli(capsys, "sessions", "import", str(chat))
    (session,) = json.loads(cli(capsys, "sessions", "list", "--json")[0])
    home = isolated_env["home"]
    db = sqlite3.connect(home / "sessions.db")  # SQLite's own error, as a full disk gives it
    db.execute("CREATE TRIGGER full BEFORE DELETE ON messages "
               "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    db.commit()
    code, _out, err = run_cli(capsys, "sessions", "remove", session["id"], "--yes")
    db.execute("DROP TRIGGER full")
    db.commit()
    db.close()
    assert code == 1
    assert err.count("\n") == 1, err  # one line
    assert f"cannot remove session {session['id']}" in err and "nothing was removed" in err
    assert str(home) in err and "free space on that disk" in err
    assert "GOOSECTX_HOME" in err and "sessions.db-wal" in err  # move it with its -wal file
    assert "never delete" in err
    assert [s["id"] for s in json.loads(cli(capsys, "sessions", "list", "--json")[0])] == [
        session["id"]]
