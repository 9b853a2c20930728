"""The tool output cap follows the context window unless ``tool_output_max_chars`` is set.

fresh18b #07: the cap was a fixed 40,000 characters (~10k tokens) whatever the window. In an
8k window every large result was bigger than the whole window, so a 6-step tool loop made 6
auto-compactions (6 summary calls in one turn) and the model still got each result elided.
The default is now 0.1 × the limit at 4 characters a token (3,200 in 8k), at most 40,000.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compaction_support import SUMMARY_JSON
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

from goosectx.tokens import TokenCounter

STEPS = 6


def loop_of_big_outputs(server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                        ) -> tuple[list[str], int]:
    """One ``run`` turn in an 8k window: 6 shell calls printing ~21,000 characters each
    (:func:`shell_loop`)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    (tmp_path / "huge.txt").write_text("".join(f"line {i} " + "abcdefgh " * 6 + "\n"
                                               for i in range(3_000)))
    return shell_loop(server, [f"sed -n {i * 300},{i * 300 + 400}p huge.txt"
                               for i in range(1, STEPS + 1)], "read huge.txt in chunks")


def shell_loop(server: FakeServer, commands: list[str], task: str) -> tuple[list[str], int]:
    """One ``run`` turn: the model runs ``commands`` one a step, then says "all done".

    Returns the tool results the model got in its last request and the summary calls made.
    """
    left = list(commands)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            return {"text": SUMMARY_JSON}
        if left:
            return {"tool_calls": [{"name": "shell", "arguments": {"command": left.pop(0)}}]}
        return {"text": "all done"}

    server.add(*[reply] * (5 * len(commands) + 4))
    code, out, err = in_process_run(task, name="loop", mode="auto")
    assert code == 0 and "all done" in out and not left, err
    main = [r for r in server.requests if not is_summary_call(r)]
    results = [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
               for m in main[-1]["messages"] if m["role"] == "tool"]
    return results, sum(map(is_summary_call, server.requests))


def test_a_small_window_cuts_each_result_to_its_share_and_compacts_at_most_once(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results, summaries = loop_of_big_outputs(fake_model, tmp_path, monkeypatch)
    assert summaries <= 1  # was 6: one per step
    assert len(results) >= 3  # the newest steps reached the model
    newest = results[-1]
    assert "line 1799 abcdefgh" in newest and "line 2199 abcdefgh" in newest  # head and end
    assert len(newest) < 4_000 and "tool-output" in newest  # the rest is in a file, named


def test_a_cap_set_in_the_config_file_is_kept_in_a_small_window(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text("tool_output_max_chars = 12000\n")
    results, _summaries = loop_of_big_outputs(fake_model, tmp_path, monkeypatch)
    assert any(len(result) > 10_000 for result in results), [len(r) for r in results]


def test_digit_output_is_capped_in_tokens_so_a_loop_does_not_compact_every_step(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # test29b LOW 1: 12 × `seq N N+400` in a 4,096-token window at threshold 0.5 made 10
    # compactions: digits take ~2 characters a token, so a result "capped" at 4 characters a
    # token was 909 tokens, twice its share (0.1 × the limit).
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "4096")
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.5")
    results, summaries = shell_loop(fake_model, [f"seq {i * 1000} {i * 1000 + 400}"
                                                 for i in range(12)], "print twelve ranges")
    assert summaries <= 6, summaries  # was 10: one a step; now one every 2-3 steps
    text = results[-1]
    assert "11000" in text and "11400" in text  # its beginning and its end reach the model
    assert TokenCounter().count_text(text) <= 410  # 0.1 × 4,096
