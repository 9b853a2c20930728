"""A failed run cut in the middle to fit the window still says what failed.

Fresh eyes (round 17, 20_long_task): in a turn too big for an 8,000-token window the failed
test run's result was kept cut in the middle — "Traceback (most recent call last):", the
marker, "… got 3" — and the next compaction's errors fact read "Traceback (most recent call
last):". The model is now sent the exception line with the cut, and the fact names it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import is_summary_call, shell_call_turn

FAILED = "AssertionError: total(3) expected 6 got 3"


def test_an_elided_failed_run_keeps_its_exception_line(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text("tool_output_max_chars = 40000\n")  # results larger than
    # the 8k window, as before the cap followed the window: their elision is under test
    (tmp_path / "t.py").write_text(
        "def total(n):\n    return sum(range(1, n))\n\n\n"
        'assert total(3) == 6, f"total(3) expected 6 got {total(3)}"\n')
    commands = ["python3 t.py", *(f"seq {n}00000 {n}03000" for n in range(1, 5))]
    err = shell_call_turn(fake_model, tmp_path, monkeypatch, commands, limit=8000,
                          task="Fix the off-by-one so t.py passes.", name="el", answer="DONE",
                          storm_pause=False)
    assert "context compacted" in err
    main = [r for r in fake_model.requests if not is_summary_call(r)]
    results = [m["content"] for r in main for m in r["messages"] if m["role"] == "tool"]
    cut = [r for r in results if "Traceback" in r and "elided" in r]
    assert cut, "the failed run was never cut: the repro's shape changed"
    assert all(FAILED in r for r in cut), cut
    facts = [m["content"] for r in main for m in r["messages"]
             if "## Errors (from the transcript)" in json.dumps(m["content"])]
    assert facts
    for text in facts:
        errors = json.dumps(text).split("## Errors (from the transcript)")[1].split("##")[0]
        assert FAILED in errors and "most recent call last" not in errors, errors
