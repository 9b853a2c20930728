"""The auto-compaction pause notice through the real CLI: ``run`` is told how to compact
outside the REPL (its text was the REPL's alone: "/compact compacts by hand")."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer


def test_runs_pause_notice_names_the_command_that_compacts_outside_the_repl(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "1000")  # the fixed part alone is over it
    fake_model.default_reply = {"text": "ok"}
    _, err = cli(capsys, "run", "-t", "x")
    flat = " ".join(err.split())
    assert "Auto-compaction is paused" in flat, err
    # the fixed part alone is over the limit: compacting cannot help, so no /compact advice
    # (the notice named it before), but what takes the room and what to do
    assert "system prompt and tool definitions" in flat and "/compact" not in flat, err
    assert "project instructions, extension instructions" in flat, err


def test_the_pause_fix_names_the_command_that_compacts_outside_the_repl() -> None:
    from goosectx.compaction.decide import pause_notice

    flat = pause_notice(8_000, 9_000, 10_000)
    assert "(/compact in the REPL, goosectx compact SESSION otherwise)" in flat
