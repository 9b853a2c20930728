"""End to end in a pty: an edit's approval answers the diff the user saw, not a stale one.

The diff is computed when the question is drawn; the user may save the file in their editor
while the question waits. A ``y`` pressed then must not apply the edit to the new contents
(a ``write`` approved as ``-b = 2 +b = 3`` would also delete the line just saved): goosectx
says the file changed, draws the diff on what it holds now, and asks again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_e2e_pty import TIMEOUT_S, _env, press

pexpect = pytest.importorskip("pexpect")


@pytest.mark.slow
def test_a_file_changed_while_the_question_waits_is_shown_again_not_overwritten(
        tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    conf = work / "conf.py"
    conf.write_text("a = 1\nb = 2\n")
    script = [{"text": "Setting b.", "tool_calls": [{"name": "text_editor", "arguments": {
                  "command": "write", "path": "conf.py", "file_text": "a = 1\nb = 3\n"}}]},
              {"text": "left it"}]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        env["GOOSE_MODE"] = "approve"
        child = pexpect.spawn("goosectx", ["session"], cwd=str(work), env=env,
                              dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
        try:
            child.expect("❯")
            child.send("set b to 3\r")
            child.expect(r"text_editor wants to change conf.py · \+1 −1 lines")
            child.expect(r"Run text_editor\?")
            conf.write_text('a = 1\nb = 2\nIMPORTANT = "saved meanwhile"\n')  # the user's editor
            press(child, "y")
            child.expect("conf.py changed while this question waited", timeout=20)
            child.expect(r"text_editor wants to change conf.py · \+1 −2 lines")
            child.expect('-IMPORTANT = "saved meanwhile"')  # what y would now do, shown
            child.expect(r"Run text_editor\?")  # asked again
            press(child, "n")
            child.expect("reason for the model")
            child.send("\r")
            child.expect("text_editor: deny")
            child.expect("left it")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert conf.read_text() == 'a = 1\nb = 2\nIMPORTANT = "saved meanwhile"\n'
    answered = [m for m in server.requests[-1]["messages"] if m.get("role") == "tool"]
    assert "The user denied this tool call" in json.dumps(answered)
