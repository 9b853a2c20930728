"""End to end in a pty: Ctrl-C at the "reason for the model" prompt cancels the turn.

After ``n`` the question asks for an optional reason. Ctrl-C there used to become "deny, no
reason": the half-typed reason was dropped and the next call's question came up. Ctrl-C at
the question itself cancels the turn, and it does the same at the reason prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from reliability_support import load
from test_e2e_pty import TIMEOUT_S, _env, press

from goosectx.approval import CANCELLED_TEXT

pexpect = pytest.importorskip("pexpect")


@pytest.mark.slow
def test_ctrl_c_at_the_reason_prompt_cancels_the_turn(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "touch a1"}},
                              {"name": "shell", "arguments": {"command": "touch a2"}}]},
              {"text": "after the cancel"}]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        env["GOOSE_MODE"] = "approve"
        child = pexpect.spawn("goosectx", ["session", "--name", "r"], cwd=str(work), env=env,
                              dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
        try:
            child.expect("❯")
            child.send("go\r")
            child.expect(r"Run shell\?")
            press(child, "n")
            child.expect("reason for the model")
            child.send("half typed reas")
            child.expect("half typed reas")
            child.send("\x03")
            # what comes next: the turn's end, or (the bug) the second call's question
            got = child.expect([r"turn cancelled", r"Run shell\?"], timeout=20)
            before = child.before
            if got == 1:
                press(child, "c")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert got == 0, "the next call's question came up instead of the turn ending"
    assert "shell: cancel the turn" in before and "shell: deny" not in before
    assert not (work / "a1").exists() and not (work / "a2").exists()
    (request,) = server.requests  # nothing was sent after the cancel
    assert "half typed" not in json.dumps(request)
    stored = load(tmp_path / "home", "r").conversation.messages
    answers = [r.output for m in stored for r in m.tool_responses]
    assert len(answers) == 2 and all(a.startswith(CANCELLED_TEXT) for a in answers), answers
