"""``sessions export`` to stdout of a session with a damaged row: unmistakably incomplete.

The export streams (memory flat at 100k messages), so the rows before the damaged one are
already out when it is reached. A user who piped it into a file saw only the store's error:
nothing said the file above was cut short. Now the error names the message's position, says
the output above is incomplete and gives the fix; the JSON is never closed after it and the
Markdown ends with a line saying it is incomplete.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.store import SessionStore


def _hurt(work: Path) -> None:
    """A session ``hurt`` of 8 messages whose 5th row does not parse."""
    store = SessionStore(load_settings(None).data_dir)
    try:
        session = store.create_session(work, name="hurt")
        for i in range(4):
            store.append_message(session.id, Message.user(f"question {i}"))
            store.append_message(session.id, Message.assistant(f"answer {i}"))
        db = store.path
    finally:
        store.close()
    conn = sqlite3.connect(db)
    rows = [r[0] for r in conn.execute("SELECT rowid FROM messages ORDER BY rowid")]
    with conn:
        conn.execute("UPDATE messages SET content_json=? WHERE rowid=?",
                     (json.dumps([{"type": "text", "text": 123}]), rows[4]))
    conn.close()


def _says_incomplete(err: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("goosectx: error: "), err
    assert "incomplete" in err and "message 5 of 8" in err
    assert "--skip-damaged" in err and "-o FILE" in err


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_a_damaged_row_to_stdout_says_the_output_is_incomplete(
        work: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    _hurt(work)
    code, out, err = run_cli(capsys, "sessions", "export", "hurt", "-f", fmt)
    assert code == 1
    _says_incomplete(err)
    assert "answer 1" in out and "question 2" not in out and "answer 3" not in out
    if fmt == "json":
        with pytest.raises(json.JSONDecodeError):
            json.loads(out)
        assert out.rstrip().endswith('"agent_visible":true}}')  # the array is not closed
    else:
        assert out.rstrip().splitlines()[-1].startswith("[export incomplete")


def test_a_damaged_row_of_a_session_another_process_holds_keeps_the_message_before_it(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A held session's transcript is read one message ahead (is the newest one a live
    draft?): the message before a damaged row was lost with it, under a line saying the
    export stops at the damaged one."""
    _hurt(work)
    store = SessionStore(load_settings(None).data_dir)
    try:
        with store.lock(store.resolve("hurt")):  # as a REPL at its prompt holds it
            code, out, err = run_cli(capsys, "sessions", "export", "hurt")
            shown_code, shown, _ = run_cli(capsys, "sessions", "show", "hurt")
    finally:
        store.close()
    assert code == 1 and shown_code == 1
    _says_incomplete(err)
    for text in (out, shown):
        assert "answer 1" in text and "question 2" not in text


def test_to_a_file_nothing_is_written_and_skip_damaged_saves_the_rest(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _hurt(work)
    saved = work / "saved.json"
    code, _, err = run_cli(capsys, "sessions", "export", "hurt", "-f", "json", "-o", str(saved))
    assert code == 1 and not saved.exists()
    assert "incomplete" not in err  # nothing was written: the store's own line
    code, out, err = run_cli(capsys, "sessions", "export", "hurt", "-f", "json",
                             "--skip-damaged")
    assert code == 0 and len(json.loads(out)["messages"]) == 7
