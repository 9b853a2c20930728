"""The transcript shows a compaction where it happened, on resume as live.

fresh17a #5: an auto-compaction that ran mid-turn (after a tool result, before the next model
call) was drawn live after the tool output, but a resumed session (``--history``) and
``sessions show`` drew its rule right under the request, before the tool call: the user-only
notice sat with the summary, before the kept tail, instead of after what it followed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_fixed_part_pause import _goosectx as goosectx_in_window


def _goosectx(server: FakeServer, cwd: Path, *args: str, stdin: str = ""
              ) -> subprocess.CompletedProcess[str]:
    return goosectx_in_window(server, cwd, *args, stdin=stdin, limit=4000)


def _shell(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "shell", "arguments": {"command": command}}]}


@pytest.mark.slow
def test_a_mid_turn_compaction_is_shown_after_the_tool_result_it_followed(
        fake_server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"  # results larger than the window's own cap (1,600 chars)
    config.write_text("tool_output_max_chars = 40000\n")
    monkeypatch.setenv("GOOSECTX_CONFIG", str(config))
    fake_server.add(_shell("seq 1 300 | sed s/$/_lorem_ipsum_dolor/"), {"text": "one-done"},
                    _shell("seq 1 350 | sed s/$/_lorem_ipsum_dolor/"), {"text": "two-done"})
    fake_server.default_reply = {"text": "summary"}
    live = _goosectx(fake_server, tmp_path, "--name", "t", "--mode", "auto",
                     stdin="step one\nstep two\n/exit\n")
    assert live.returncode == 0, live.stderr
    assert "context compacted" in live.stdout.lower(), live.stdout

    def order(text: str) -> list[str]:
        marks = []
        for line in text.splitlines():
            low = line.lower()
            if "context compacted" in low:
                marks.append("compacted")
            elif "shell" in low and ("tool call" in low or "[tool]" in low):
                marks.append("call")
            elif "step one" in low or "step two" in low:
                marks.append("request")
        return marks

    live_order = order(live.stdout)
    assert live_order.index("compacted") > live_order.index("call"), live_order
    resumed = _goosectx(fake_server, tmp_path, "--resume", "t", "--history", stdin="/exit\n")
    shown = _goosectx(fake_server, tmp_path, "sessions", "show", "t")
    for text in (resumed.stdout, shown.stdout):
        marks = order(text)
        # each compaction rule comes after a tool call of its turn, never right after the
        # request it did not interrupt
        for at, mark in enumerate(marks):
            if mark == "compacted":
                assert marks[at - 1] == "call", marks
