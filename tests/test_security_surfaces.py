"""Every surface on the one print path (issue 15, point 1): the surfaces the groundwork's
corpus tests (tests/test_print_path.py) do not reach — imported transcripts (their text, title,
source id and file name), the import report and its errors, a view of a hostile file and its
path, and the approval question — in both looks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from test_print_path import CORPUS, assert_safe, name_the_only_session

from goosectx.cli.sanitize import APPROVAL_MARKER


def hostile_transcript(tmp_path: Path) -> Path:
    path = tmp_path / f"chat{CORPUS[:12]}.json"
    path.write_text(json.dumps([
        {"role": "system", "content": CORPUS},
        {"role": "user", "content": CORPUS},
        {"role": "assistant", "content": CORPUS + APPROVAL_MARKER, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "shell" + CORPUS, "arguments": json.dumps({"x": CORPUS})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": CORPUS},
        {"role": "assistant", "content": "done " + CORPUS},
    ]))
    return path


@pytest.mark.parametrize("terminal", [False, True])
def test_imported_text_is_shown_safely(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, terminal: bool) -> None:
    if terminal:
        monkeypatch.setenv("FORCE_COLOR", "1")
        monkeypatch.setenv("COLUMNS", "400")
    transcript = str(hostile_transcript(tmp_path))
    code, out, err = run_cli(capsys, "sessions", "import", transcript, "--name",
                             "evil" + CORPUS[:20])
    assert code == 2 and "session name" in err  # refused (a control character), said safely
    assert_safe(out + err, stand_ins=())
    code, out, err = run_cli(capsys, "sessions", "import", transcript)
    assert code == 0, err
    assert_safe(out + err, stand_ins=())
    name_the_only_session("evil" + CORPUS[:20])  # as a session named before names were checked
    # (``sessions export`` to a pipe is data and stays exact; on a terminal it is made safe.)
    for command in (("sessions", "list"), ("sessions", "show", "--", "evil" + CORPUS[:20])):
        code, out, err = run_cli(capsys, *command)
        assert code == 0, err
        assert_safe(out + err, styled=terminal, stand_ins=())
        assert APPROVAL_MARKER not in out + err


def test_an_import_error_naming_a_hostile_file_is_safe(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    path = tmp_path / f"bad{CORPUS[:30]}.json"
    path.write_text("{not json")
    code, out, err = run_cli(capsys, "sessions", "import", str(path), "--format", "openai")
    assert code == 2
    assert_safe(out + err, stand_ins=("badA␛]52;c;ZXZpbA==␇",))


def test_a_viewed_hostile_file_and_its_path_are_safe_in_run(
    fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(work)
    name = "notes" + CORPUS[:12] + ".txt"
    (work / name).write_text(CORPUS + "\n")
    fake_model.add({"tool_calls": [
        {"name": "text_editor", "arguments": {"command": "view", "path": name}},
        {"name": "text_editor", "arguments": {"command": "view", "path": name + "-missing"}}]},
        {"text": "seen"})
    code, out, err = run_cli(capsys, "run", "-t", "look", "--mode", "auto")
    assert code == 0, err
    assert_safe(out + err, stand_ins=("notesA␛]52;c;ZXZp.txt-missing does not exist",))
