"""The error fact of a result an earlier compaction cut in its middle names the exception.

fresh17b #20: a long turn in an 8k window. A compaction kept a failing test's result in its
tail cut to its first and last lines ("Traceback (most recent call last):", a marker, the end
of the message); the next compaction read the error from that copy and the facts said
"shell `python3 t.py`: Traceback (most recent call last):" — not what failed. The original
result is in the conversation (hidden); the facts now read the error from it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import contents, is_summary_call, shell_call_turn

TEST = ('import sys\n\ndef total(n):\n    return sum(range(1, n))\n\n'
        'def check():\n    assert total(3) == 6, f"total(3) expected 6 got {total(3)}"\n\n'
        'check()\n')


def test_the_error_fact_of_an_elided_result_is_its_exception_line(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "t.py").write_text(TEST)
    commands = ["python3 t.py", *(f"seq {k}00000 {k}03000" for k in range(1, 8))]
    err = shell_call_turn(fake_model, tmp_path, monkeypatch, commands, limit=8000,
                          task="make t.py pass", name="el", answer="DONE")
    assert err.count("context compacted") >= 2
    main = [r for r in fake_model.requests if not is_summary_call(r)]
    elided = [n for n, r in enumerate(main) if any(
        "Traceback" in c and "elided to fit" in c for c in contents(r))]
    assert elided  # the failing result was cut in a request ...
    later = [c for r in main[elided[0]:] for c in contents(r) if "## Errors" in c]
    assert later  # ... and a later compaction summarised it
    fact = later[-1][later[-1].index("## Errors"):].split("\n## ")[0]
    assert "shell `python3 t.py`: AssertionError: total(3) expected 6 got 3" in fact, fact
