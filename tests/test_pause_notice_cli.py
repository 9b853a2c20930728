"""The auto-compaction pause notice through the real CLI: ``run`` is told how to compact
outside the REPL (its text was the REPL's alone: "/compact compacts by hand")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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
    assert "project instructions (/context shows the parts)" in flat, err  # no extension


def test_the_pause_fix_names_the_command_that_compacts_outside_the_repl() -> None:
    from goosectx.compaction.decide import pause_notice

    flat = pause_notice(8_000, 9_000, 10_000, 0.8)
    assert "(/compact in the REPL, goosectx compact SESSION otherwise)" in flat


def paused_run(fake_model: FakeServer, capsys: pytest.CaptureFixture[str],
               after_tokens: int, *extra: str) -> str:
    """Two ``run`` turns in a 2,000-token window: the first reports 95 %, so the second
    compacts first, and its reply reports ``after_tokens``. The second run's output."""
    from test_compaction_e2e import is_summary_call, usage
    from test_compaction_loops import SUMMARY_JSON

    def second(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            return {"text": SUMMARY_JSON, "usage": usage(400, 60)}
        return {"text": "done", "usage": usage(after_tokens, 10)}

    fake_model.add({"text": "first", "usage": usage(1900, 10)}, second, second)
    cli(capsys, "run", "-t", "first " + "word " * 300, "--name", "w")
    out, err = cli(capsys, "run", "--resume", "w", "-t", "more " + "word " * 300, *extra)
    return out + err


def test_a_pause_with_the_request_still_over_the_limit_leads_with_that(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """It read "the request went from 2,097,965 to only 165,546 tokens (92% less), 129% of the
    limit": a success, by its words; the reason to pause came last."""
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "2000")
    flat = " ".join(paused_run(fake_model, capsys, 2100).split())
    notice = flat[flat.index("Auto-compaction is paused"):]
    assert re.match(r"Auto-compaction is paused: the request is still 105% of "
                    r"the 2,000-token limit after the last compaction \(the provider reported "
                    r"[\d,]+ → 2,100 tokens\)\. Over the whole window, the next request may not "
                    r"fit: send less at once", notice), notice
    assert "only" not in notice and "less)" not in notice


def test_stream_json_says_still_over_the_threshold_first(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "2000")
    out = paused_run(fake_model, capsys, 1700, "--output-format", "stream-json")
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    (text,) = [e["text"] for e in events
               if e["type"] == "notification" and "paused" in e["text"]]
    assert text.startswith("Auto-compaction is paused: the request is still "
                           "85% of the 2,000-token limit after the last compaction"), text
    assert "Over the whole window" not in text  # 85 %: under the window, over the threshold


def test_the_repl_shows_the_same_reason_first(tmp_path: Path) -> None:
    from compaction_support import SUMMARY_JSON
    from test_repl import CTRL_D, ENTER, World

    from goosectx.providers.scripted import ScriptedReply
    from goosectx.usage import Usage

    world = World(tmp_path)
    try:
        world.provider.context_limit_tokens = 2000
        world.provider.add(ScriptedReply("first", usage=Usage.of(1900, 10)),
                           ScriptedReply(SUMMARY_JSON, usage=Usage.of(400, 60)),
                           ScriptedReply("done", usage=Usage.of(2100, 10)))
        out = world.run("first " + "word " * 300 + ENTER + "more " + "word " * 300 + ENTER
                        + CTRL_D, width=400)
    finally:
        world.store.close()
    flat = " ".join(out.split())
    notice = flat[flat.index("Auto-compaction is paused"):]
    assert re.match(r"Auto-compaction is paused: the request is still 105% of "
                    r"the 2,000-token limit after the last compaction \(the provider reported "
                    r"[\d,]+ → 2,100 tokens\)\. Over the whole window", notice), notice
