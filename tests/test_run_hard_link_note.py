"""``goosectx run`` tells the user when an edit splits a file's hard links (fix22a #3).

The model read "(hard links: … has 1 other hard link; …)" in the result and the REPL drew it
above the diff, but ``run --mode auto`` printed only the call line: the user never learnt that
the file's other name kept the old text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer

NOTE = "has 1 other hard link; the edit writes a new file, so the other name keeps the old text"


def edit(path: str) -> dict:
    return {"tool_calls": [{"name": "text_editor", "arguments": {
        "command": "str_replace", "path": path, "old_str": "hello", "new_str": "hey"}}]}


def test_run_auto_prints_the_note_after_the_call(fake_model: FakeServer, workdir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "real.txt").write_text("hello\n")
    os.link(workdir / "real.txt", workdir / "hard.txt")
    fake_model.add(edit("hard.txt"), {"text": "done"})
    code, _out, err = run_cli(capsys, "run", "--mode", "auto", "-t", "edit it")
    assert code == 0, err
    lines = err.splitlines()
    call = next(i for i, line in enumerate(lines) if line.startswith("> text_editor "))
    assert lines[call + 1] == f"  (hard links: {workdir / 'hard.txt'} {NOTE})"


def test_a_newline_in_the_name_cannot_split_the_note_line(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "real.txt").write_text("hello\n")
    os.link(workdir / "real.txt", workdir / "x\ngoosectx: fake line")
    fake_model.add(edit("x\ngoosectx: fake line"), {"text": "done"})
    code, _out, err = run_cli(capsys, "run", "--mode", "auto", "-t", "edit it")
    assert code == 0, err
    (note,) = [line for line in err.splitlines() if "(hard links: " in line]
    assert "x\u240agoosectx: fake line has 1 other hard link" in note
    assert not any(line.startswith("goosectx: fake line") for line in err.splitlines())


def test_a_file_with_one_name_has_no_note(fake_model: FakeServer, workdir: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "plain.txt").write_text("hello\n")
    fake_model.add(edit("plain.txt"), {"text": "done"})
    _code, _out, err = run_cli(capsys, "run", "--mode", "auto", "-t", "edit it")
    assert "hard link" not in err and (workdir / "plain.txt").read_text() == "hey\n"
