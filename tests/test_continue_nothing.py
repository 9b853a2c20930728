"""``-c`` / ``--continue`` where no session was worked in says it starts a new one.

``goosectx run -c -t "continue the migration"`` from a fresh checkout path started a new
session silently (exit 0, no line): a CI "continue" step lost its context unnoticed.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer

NOTE = ("note: no session to continue in {dir} (none was worked in here): this is a new one; "
        "to go on with another, goosectx sessions list, then --resume SESSION")


def test_run_continue_with_nothing_to_continue_says_so_on_stderr(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"text": "fresh answer"}, {"text": "second answer"})
    out, err = cli(capsys, "run", "-c", "-t", "continue where we left off")
    assert out == "fresh answer\n"
    assert f"goosectx: {NOTE.format(dir=workdir.resolve())}\n" in err
    _out, err = cli(capsys, "run", "-c", "-t", "and now?")  # there is one now: no note
    assert "no session to continue" not in err
    assert [m["content"] for m in fake_model.requests[1]["messages"][1:]] == [
        "continue where we left off", "fresh answer", "and now?"]


def test_the_repl_continue_with_nothing_to_continue_says_so_under_the_banner(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("/exit\n"))
    out, _err = cli(capsys, "-c")
    lines = out.splitlines()
    assert "new session" in lines[0]
    assert f"-- {NOTE.format(dir=workdir.resolve())}" in lines, out
