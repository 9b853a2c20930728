"""A turn too big for the context window: the oldest kept tool results are cut first.

The tester's repro (fresh13b newest_elided.sh): an 8,000-token context limit, four ~4,000-token
shell outputs in one turn. After a compaction the model got the OLDEST result almost whole and
the NEWEST — the one it had just asked for — cut to 3 lines and a marker; the notice blamed the
newest result's size. What the model is sent is checked on every request of the loop.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import is_summary_call, shell_call_turn

MARK = "line of checking output"


def _command(i: int) -> str:
    return f"seq {i * 1000} {i * 1000 + 500} | sed 's/$/ {MARK}/'"


def _results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


@pytest.fixture
def four_big_results(fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     isolated_env: dict[str, Path]) -> tuple[FakeServer, str]:
    isolated_env["config"].write_text("tool_output_max_chars = 40000\n")  # results larger than
    # the 8k window, as before the cap followed the window: their elision is under test
    err = shell_call_turn(fake_model, tmp_path, monkeypatch, [_command(i) for i in range(4)],
                          limit=8000, task="run the 4 checks", name="ne", answer="DONE",
                          storm_pause=False)
    return fake_model, err


def test_the_newest_tool_result_is_cut_last(four_big_results: tuple[FakeServer, str]) -> None:
    server, err = four_big_results
    main = [r for r in server.requests if not is_summary_call(r)]
    assert err.count("context compacted") >= 2
    for n, request in enumerate(main):
        results = _results(request)
        if not results:
            continue
        newest = results[-1]
        first = int(newest.splitlines()[0].split(" ")[0])
        whole = "".join(f"{k} {MARK}\n" for k in range(first, first + 501))
        # the result the model just asked for: (nearly) whole, its first and last lines kept
        assert len(newest) >= 0.9 * len(whole), (n, [len(r) for r in results])
        assert newest.startswith(whole[:300]) and whole[-300:] in newest, n
        for older, newer in zip(results, results[1:], strict=False):
            # no result kept (nearly) whole while a newer one is cut shorter
            assert len(older) <= len(newer) + 200, (n, [len(r) for r in results])


def test_a_cut_result_keeps_whole_first_and_last_lines(
        four_big_results: tuple[FakeServer, str]) -> None:
    server, _ = four_big_results
    main = [r for r in server.requests if not is_summary_call(r)]
    cut = [r for request in main for r in _results(request) if "elided" in r]
    assert cut
    for text in cut:
        before, marker, after = re.split(r"\n(\[… [\d,]+ tokens elided[^\n]*\])\n", text)
        assert marker
        assert all(line.endswith(MARK) for line in before.splitlines()), before[-80:]
        assert all(line.endswith(MARK) for line in after.splitlines()[:-1]), after[:80]
        assert after.splitlines()[0].split(" ")[0].isdigit()


def test_the_notice_names_the_results_that_were_cut(
        four_big_results: tuple[FakeServer, str]) -> None:
    _, err = four_big_results
    notices = [line for line in err.splitlines() if "beginning and end" in line]
    assert notices
    for line in notices:
        assert "older tool result" in line, line
        assert "the newest result is kept whole" in line or "cut in its middle too" in line
    assert json.dumps(notices)
