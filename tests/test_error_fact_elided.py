"""The error fact of a result an earlier compaction cut in its middle names the exception.

fresh17b #20: a long turn in an 8k window. A compaction kept a failing test's result in its
tail cut to its first and last lines ("Traceback (most recent call last):", a marker, the end
of the message); the next compaction read the error from that copy and the facts said
"shell `python3 t.py`: Traceback (most recent call last):" — not what failed. The original
result is in the conversation (hidden); the facts now read the error from it. (A copy cut now
keeps a failed result's telling line after the marker — not one longer than
``KEEP_LINE_MAX_CHARS``, as here, nor a copy an older goosectx cut.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import contents, is_summary_call, shell_call_turn

TEST = ('def totals(n):\n    return [sum(range(1, k)) for k in range(n)]\n\n'
        'def check():\n    want = [sum(range(k + 1)) for k in range(120)]\n'
        '    assert totals(120) == want, f"totals expected {want} got {totals(120)}"\n\n'
        'check()\n')


def test_the_error_fact_of_an_elided_result_is_its_exception_line(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text("tool_output_max_chars = 40000\n")  # results larger than
    # the 8k window, as before the cap followed the window: their elision is under test
    (tmp_path / "t.py").write_text(TEST)
    commands = ["python3 t.py", *(f"seq {k}00000 {k}03000" for k in range(1, 8))]
    err = shell_call_turn(fake_model, tmp_path, monkeypatch, commands, limit=8000,
                          task="make t.py pass", name="el", answer="DONE",
                          storm_pause=False)
    assert err.count("context compacted") >= 2
    main = [r for r in fake_model.requests if not is_summary_call(r)]
    elided = [n for n, r in enumerate(main) if any(
        "Traceback" in c and "elided to fit" in c for c in contents(r))]
    assert elided  # the failing result was cut in a request ...
    later = [c for r in main[elided[0]:] for c in contents(r) if "## Errors" in c]
    assert later  # ... and a later compaction summarised it
    fact = later[-1][later[-1].index("## Errors"):].split("\n## ")[0]
    assert "shell `python3 t.py`: AssertionError: totals expected [0, 1, 3, 6, 10," in fact, fact
