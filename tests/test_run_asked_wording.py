"""``run``'s warning says what was asked about: reading, editing or running the command.

It said "so reading it is asked about" for every ask with a reason — also for an edit of
``.env`` after ``--allow text_editor`` and for a shell command an allow rule does not cover.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer

FIX = "is asked about: answer it in the REPL, or use --mode auto"


def _notice(fake_model: FakeServer, capsys: pytest.CaptureFixture[str], name: str,
            arguments: dict[str, str], *args: str) -> str:
    fake_model.add({"tool_calls": [{"name": name, "arguments": arguments}]}, {"text": "ok"})
    code, out, err = run_cli(capsys, "run", "--output-format", "json", *args, "-t", "go")
    assert code == 0, err
    (said,) = json.loads(out)["notices"]
    return str(said)


def test_an_edit_of_env_says_editing(fake_model: FakeServer, workdir: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / ".env").write_text("X=1\n")
    said = _notice(fake_model, capsys, "text_editor",
                   {"command": "str_replace", "path": ".env", "old_str": "X=1", "new_str": "X=2"},
                   "--allow", "text_editor")
    assert f"which the allow rule text_editor does not cover, so editing it {FIX}" in said
    assert "reading" not in said
    assert (workdir / ".env").read_text() == "X=1\n"


def test_a_view_of_env_still_says_reading(fake_model: FakeServer, workdir: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / ".env").write_text("X=1\n")
    said = _notice(fake_model, capsys, "text_editor", {"command": "view", "path": ".env"},
                   "--allow", "text_editor")
    assert f"does not cover, so reading it {FIX}" in said


@pytest.mark.parametrize("command", ["cat .env", "cat /etc/hosts"])
def test_a_shell_command_says_running_the_command(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    (workdir / ".env").write_text("X=1\n")
    said = _notice(fake_model, capsys, "shell", {"command": command}, "--allow", "shell(cat*)")
    assert f"which the allow rule shell(cat*) does not cover, so running the command {FIX}" in said
