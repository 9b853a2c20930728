"""An auto-compaction at the start of a turn keeps the newest messages verbatim.

DESIGN §4.5(1): the tail is the newest messages within ``keep_recent_ratio`` × limit, cut only
at a user-message boundary or between complete tool pairs. fresh18b #10 and #08: when the new
request came after a finished turn too big for the tail (a native turn of 8 tool pairs, an
imported SWE-agent trajectory), the tail could only start at a user request, so it held the
new request alone: the model lost its last answer and every tool result, where a manual
compaction at the same point kept the answer and the newest pairs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli
from compaction_support import SUMMARY_JSON
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

ANSWER = "All rows checked. MARK-1 NEXT STEP: compare rows 100 and 200."


def after_the_summary(server: FakeServer) -> list[dict[str, Any]]:
    """The messages of the first model request after the (only) summary call."""
    at = next(i for i, r in enumerate(server.requests) if is_summary_call(r))
    assert not any(is_summary_call(r) for r in server.requests[at + 1:])
    return next(r for r in server.requests[at + 1:] if not is_summary_call(r))["messages"]


def test_a_new_request_after_a_long_finished_turn_keeps_the_last_answer_and_newest_pairs(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    monkeypatch.setenv("GOOSE_TOOL_PAIR_SUMMARIZATION", "false")
    (tmp_path / "data.txt").write_text("".join(f"row {i} value {i * i} ok\n"
                                               for i in range(400)))
    commands = [f"sed -n {i * 50 + 1},{i * 50 + 60}p data.txt" for i in range(8)]
    replies: list[dict[str, Any]] = [
        *({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]} for c in commands),
        {"text": ANSWER}]
    fake_model.add(*replies)
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.95")
    assert in_process_run("read data.txt in 8 chunks", name="rows", mode="auto")[0] == 0
    assert not any(is_summary_call(r) for r in fake_model.requests)
    # the next turn starts over the threshold: it compacts before its first model call
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.5")
    fake_model.add({"text": SUMMARY_JSON}, {"text": "Comparing them now."})
    code, _, err = in_process_run("next?", resume="rows", mode="auto")
    assert code == 0, err
    assert "context compacted (auto)" in err
    sent = after_the_summary(fake_model)
    assert sent[-2] == {"role": "assistant", "content": ANSWER}  # the last answer, verbatim
    assert sent[-1]["content"] == "next?"
    tool_results = [m["content"] for m in sent if m["role"] == "tool"]
    assert tool_results
    assert "row 351 value 123201 ok" in tool_results[-1]  # the newest pair, verbatim
    assert "read data.txt in 8 chunks" in json.dumps(sent)  # the task, re-sent


def trajectory(path: Path, steps: int) -> Path:
    """A SWE-agent trajectory: its task, then ``steps`` actions, each with a ~400-token
    observation; the last one views autowrap.py at line 501."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "SETTING: you are an autonomous programmer."},
        {"role": "user", "content": "ISSUE: autowrap with cython fails when an array argument "
                                    "does not appear in the expression. Fix it."}]
    for i in range(steps):
        line = 501 if i == steps - 1 else 10 + i * 20
        history += [
            {"role": "assistant", "content": f"Let me look further.\n```\ngoto {line}\n```",
             "action": f"goto {line}"},
            {"role": "user", "content": "".join(f"{line + k}:    code_line_{i}_{k} = "
                                                f"helper_{k}(arg_{k})\n" for k in range(40))}]
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}))
    return path


def test_resuming_an_imported_trajectory_keeps_its_newest_steps(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "16000")
    cli(capsys, "sessions", "import", str(trajectory(tmp_path / "s.traj", 40)), "--name", "sy")
    fake_model.add({"text": SUMMARY_JSON}, {"text": "The fix is in progress."})
    code, _, err = in_process_run("what's the state of the autowrap fix?", resume="sy",
                                  mode="auto")
    assert code == 0, err
    assert "context compacted (auto)" in err
    sent = after_the_summary(fake_model)
    newest = json.dumps(sent[-1]["content"])  # the last observation, merged with the question
    assert newest.endswith('what\'s the state of the autowrap fix?"')
    assert "501:    code_line_39_0" in newest  # the newest observation, verbatim
    text = json.dumps(sent)
    assert "goto 501" in text  # and the action it answers
    assert "ISSUE: autowrap with cython" in text  # the task, re-sent
