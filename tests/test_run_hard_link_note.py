"""``goosectx run`` tells the user when an edit splits a file's hard links (fix22a #3).

The model read "(hard links: … has 1 other hard link; …)" in the result and the REPL drew it
above the diff, but ``run --mode auto`` printed only the call line: the user never learnt that
the file's other name kept the old text.
"""

from __future__ import annotations

import json
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


def test_json_output_carries_the_note_in_notices(fake_model: FakeServer, workdir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "real.txt").write_text("hello\n")
    os.link(workdir / "real.txt", workdir / "hard.txt")
    fake_model.add(edit("hard.txt"), {"text": "done"})
    code, out, err = run_cli(capsys, "run", "--mode", "auto", "--output-format", "json",
                             "-t", "edit it")
    assert code == 0, err
    note = f"(hard links: {workdir / 'hard.txt'} {NOTE})"
    assert json.loads(out)["notices"] == [note]
    assert f"goosectx: {note}" in err.splitlines()  # on stderr as it comes, as notices are


def test_stream_json_carries_the_note_as_a_notification_after_the_call(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "real.txt").write_text("hello\n")
    os.link(workdir / "real.txt", workdir / "x\ngoosectx: fake line")
    fake_model.add(edit("x\ngoosectx: fake line"), {"text": "done"})
    code, out, err = run_cli(capsys, "run", "--mode", "auto", "--output-format", "stream-json",
                             "-t", "edit it")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    types = [e["type"] for e in events]
    notes = [e for e in events if e["type"] == "notification"]
    note = f"(hard links: {workdir / 'x'}\ngoosectx: fake line {NOTE})"
    assert [e["text"] for e in notes] == [note]  # the name exact: JSON escapes its newline
    assert types[types.index("tool_call_finished") + 1] == "notification"


def test_json_has_no_note_for_a_file_with_one_name(fake_model: FakeServer, workdir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "plain.txt").write_text("hello\n")
    fake_model.add(edit("plain.txt"), {"text": "done"})
    _code, out, _err = run_cli(capsys, "run", "--mode", "auto", "--output-format", "json",
                               "-t", "edit it")
    assert json.loads(out)["notices"] == [] and (workdir / "plain.txt").read_text() == "hey\n"
