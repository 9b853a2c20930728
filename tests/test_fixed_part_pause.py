"""When the fixed part alone fills the window, ``/context`` gives the pause's own reason, and
the REPL and ``run`` measure that fixed part alike.

fresh16c #10: in a 1,000-token window the REPL's notice said the system prompt and tool
definitions alone take about 904 tokens and paused auto-compaction, then ``/context`` said
"paused: the provider's report showed the last compaction did not work" (no compaction ever
ran), and ``run`` with the same config said about 814: the REPL offered ``search_tools`` (to
find deferred extension tools) though no extension tool was deferred — the built-in tools
alone were over the extension budget.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import DUMMY_API_KEY, FAKE_MODEL
from fakeserver import FakeServer
from test_compaction_e2e import is_summary_call


def _goosectx(server: FakeServer, cwd: Path, *args: str, stdin: str = "", limit: int = 1000
              ) -> subprocess.CompletedProcess[str]:
    """``goosectx ARGS`` against ``server`` in a ``limit``-token context window."""
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": server.base_url,
           "OPENAI_API_KEY": DUMMY_API_KEY, "GOOSE_CONTEXT_LIMIT": str(limit)}
    return subprocess.run(["goosectx", *args], env=env, cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=120)


def _fixed(text: str) -> int:
    found = re.search(r"alone take about ([\d,]+) tokens", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


@pytest.mark.slow
def test_context_gives_the_reason_of_the_pause_and_repl_and_run_agree(
        fake_server: FakeServer, tmp_path: Path) -> None:
    fake_server.add({"text": "ok"})
    repl = _goosectx(fake_server, tmp_path, "--name", "t", "--mode", "auto",
                     stdin="hello\n/context\n/exit\n")
    assert repl.returncode == 0, repl.stderr
    out = " ".join(repl.stdout.split())  # a long line may wrap
    paused = out.split("auto-compaction at 80% of the limit = 800 tokens — paused: ", 1)[1]
    assert paused.startswith("the system prompt and tool definitions sent with every request "
                             "alone take about")
    assert "the last compaction did not work" not in out
    tools = [t["function"]["name"] for t in fake_server.requests[0]["tools"]]
    assert "search_tools" not in tools  # no extension tool to search for
    fake_server.add({"text": "ok"})
    run = _goosectx(fake_server, tmp_path, "run", "-t", "x")
    assert _fixed(out) == _fixed(" ".join(run.stderr.split()))
    assert json.dumps(fake_server.requests[1]["tools"]) == json.dumps(
        fake_server.requests[0]["tools"])


@pytest.mark.slow
def test_a_compact_by_hand_that_cannot_shrink_names_the_fixed_part_not_the_view(
        fake_server: FakeServer, tmp_path: Path) -> None:
    """`/compact` and `goosectx compact` in a window the fixed part fills: they said "the
    model's view is already about as small as a summary of it", hiding the cause and the fix."""
    for _ in range(3):
        fake_server.add({"text": "ok " * 30})
    repl = _goosectx(fake_server, tmp_path, "--name", "t", "--mode", "auto",
                     stdin="hello\nagain\n/compact\n/exit\n")
    out = " ".join(repl.stdout.split())
    assert "error: compaction would grow the context" in out, out
    hint = out.split("error: compaction would grow the context", 1)[1]
    assert "hint: the system prompt and tool definitions sent with every request alone take " \
           "about" in hint
    assert "use a model with a larger context window" in hint
    assert "already about as small as a summary" not in hint
    fake_server.add({"text": "ok " * 30})
    cli = _goosectx(fake_server, tmp_path, "compact", "t")
    assert cli.returncode != 0
    err = " ".join(cli.stderr.split())
    assert "compaction would grow the context" in err and _fixed(err) == _fixed(out)


@pytest.mark.slow
def test_resumed_in_a_smaller_window_the_fixed_part_pause_is_said(
        fake_server: FakeServer, tmp_path: Path) -> None:
    """fresh17b #29: compacted at a 2,000-token window, then resumed at 1,000, where the system
    prompt and tools alone are over the threshold: the growth guard (no second compaction
    without growth since the last) kept any compaction from being tried, so the pause notice
    naming the cause never came, and the request went out over the window without a word."""
    def run(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
        return _goosectx(fake_server, tmp_path, "run", *args, limit=limit)

    fake_server.default_reply = {"text": "ok"}
    first = run(2000, "--name", "t", "-t", "step one: " + "lorem ipsum dolor " * 400)
    assert first.returncode == 0, first.stderr
    second = run(2000, "--resume", "t", "-t", "step two")
    assert "compacted" in first.stderr + second.stderr  # the last compaction, at 2,000
    sent = len(fake_server.requests)
    third = run(1000, "--resume", "t", "-t", "step three")
    shown = " ".join(third.stderr.split())
    assert "Auto-compaction is paused: the system prompt and tool " \
           "definitions sent with every request alone take about" in shown
    # and the request over the window is not sent: the turn ends naming the same cause
    assert third.returncode == 1, third.stderr
    assert "error: the request does not fit the context window: the system prompt and tool " \
           "definitions" in shown
    assert all(is_summary_call(r) for r in fake_server.requests[sent:])
