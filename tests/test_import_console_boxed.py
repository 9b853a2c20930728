"""Gemini CLI console copies whose prompts are drawn in boxes (importers/console.py).

The fixture ``fixtures/console/gemini-boxed-prompts.txt`` follows Gemini CLI's layout: a sent
prompt in a rounded box with two columns of padding and ``> `` before its first line, tool
groups in boxes one column in, ``✦`` replies, and the input box (one column of padding, its
placeholder) with the status line under it at the bottom of the copied screen.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.errors import ImportFormatError
from goosectx.importers import load_sessions

FIXTURE = Path(__file__).parent / "fixtures" / "console" / "gemini-boxed-prompts.txt"
BOX_CHARS = set("╭╮╰╯│─")


def _turns(path: Path, fmt: str = "auto") -> list[tuple[str, str]]:
    (session,) = load_sessions(path, fmt=fmt, working_dir=path.parent)
    assert session.metadata["source_tool"] == "gemini-cli"
    return [(m.role, m.text) for m in session.conversation]


def test_boxed_prompts_are_the_users_messages_without_their_box() -> None:
    turns = _turns(FIXTURE)
    users = [text for role, text in turns if role == "user"]
    assert users == [
        "Why does test_parse_dates fail on the CI runner?",
        "Fix it without touching the parser. Keep the fixture dates as they are,\n"
        "and make the expected values time-zone aware.\n\nThen run the tests.",
        "/stats",
    ]
    assert not any(BOX_CHARS & set(text) for text in users)
    assert [role for role, _ in turns] == ["user", "assistant"] * 3
    # each reply is kept verbatim, its tool panels included
    assert "✔  ReadFile tests/test_dates.py" in turns[1][1]
    assert turns[1][1].rstrip().endswith("the runner is in UTC.")
    assert "3 passed in 0.02s" in turns[3][1]


def test_the_unsent_input_box_and_the_status_line_are_not_imported() -> None:
    last = _turns(FIXTURE)[-1][1]
    assert "Session Stats" in last
    assert "Type your message" not in last and "context left" not in last


def test_a_boxed_copy_imports_through_the_cli_detected_as_console(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "gemini-day.txt"
    shutil.copy(FIXTURE, copy)
    code, _, err = run_cli(capsys, "sessions", "import", str(copy))
    assert code == 0, err
    code, out, err = run_cli(capsys, "sessions", "list", "--json")
    assert code == 0, err
    assert len(json.loads(out)) == 1


def test_a_box_that_holds_no_prompt_is_still_not_a_console_transcript(tmp_path: Path) -> None:
    notice = tmp_path / "notice.txt"
    notice.write_text("╭──────────────────────────────╮\n"
                      "│ Gemini CLI update available! │\n"
                      "╰──────────────────────────────╯\n\n✦ hello\n")
    with pytest.raises(ImportFormatError, match="unsupported format"):
        load_sessions(notice, fmt="console")
    # a prompt box that never closes is read as a prompt: test_import_console_open_box.py
