"""End to end: the real ``goosectx`` binary in a pseudo-terminal (issue 17 items 1-3).

Types ``fix @ap`` + Tab (the mention completes to ``@app.py``), sends it (the file goes with
the message as an attachment), sees the edit's diff drawn *before* the approval question,
approves it, and opens the attached file with ``/show 1``; a 60-line shell output opens with
``/show 3`` through the pager (``PAGER``), the screen being 40 rows, and so does a one-line
output that wraps onto more rows than that (``/show 4``). Screens are not kept.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_e2e_pty import TIMEOUT_S, _env, press

pexpect = pytest.importorskip("pexpect")


@pytest.mark.slow
def test_a_completed_mention_and_a_diff_before_the_edit_approval(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("def main():\n    return 1  # e2e-marker\n")
    script = [
        {"text": "I will change it.", "tool_calls": [
            {"name": "text_editor", "arguments": {
                "command": "str_replace", "path": "app.py", "old_str": "return 1",
                "new_str": "return 2"}}]},
        {"text": "Changed main to return 2."},
        {"text": "Counting.", "tool_calls": [
            {"name": "shell", "arguments": {"command": "seq 1 60"}}]},
        {"text": "Counted to 60."},
        {"text": "One long line.", "tool_calls": [
            {"name": "shell", "arguments": {"command": "printf 'w%.0s' $(seq 1 6000)"}}]},
        {"text": "Printed it."},
    ]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        env["PAGER"] = "sed s/^/PAGED:/"  # shows that /show pages an output taller than 40 rows
        child = pexpect.spawn("goosectx", ["session", "--name", "e2e-edit"], cwd=str(work),
                              env=env, dimensions=(40, 110), encoding="utf-8",
                              timeout=TIMEOUT_S)
        try:
            child.expect("❯")
            child.send("fix @ap")
            time.sleep(0.5)  # the completion menu opens while typing
            child.send("\t")
            time.sleep(0.3)
            child.send(" please\r")
            child.expect("fix @app.py please")  # the sent message, completed
            child.expect(r"\[attached: app.py, \d+ tokens\] · #1 \(/show 1\)")
            child.expect("I will change it.")
            child.expect("text_editor wants to change app.py · \\+1 −1 lines")
            before = child.before
            child.expect(r"\+    return 2  # e2e-marker")
            diff_seen = child.before
            child.expect("goosectx asks: run text_editor\\?")  # the question comes after it
            press(child, "y")
            child.expect("text_editor: allow once")
            child.expect("Changed main to return 2.")
            child.expect("❯")
            child.send("/show 1\r")
            child.expect("#1 attached app.py")
            child.expect("return 1  # e2e-marker")  # the file as it was attached
            child.expect("❯")
            assert "PAGED:" not in child.before  # 2 lines: no pager
            child.send("count to 60\r")
            child.expect("goosectx asks: run shell\\?")
            press(child, "y")
            child.expect(r"shell output · 6\d lines · #3 \(/show 3\)")  # folded
            child.expect("Counted to 60.")
            child.expect("❯")
            child.send("/show 3\r")
            child.expect(r"PAGED:.*#3 shell output · 6\d lines")
            child.expect("PAGED:60")
            child.expect("❯")
            child.send("print a long line\r")
            child.expect("goosectx asks: run shell\\?")
            press(child, "y")
            child.expect(r"shell output · 2 lines · #4 \(/show 4\)")  # a line cut: numbered
            child.expect("Printed it.")
            child.expect("❯")
            child.send("/show 4\r")  # one line of 6,000 characters: 55 rows of 110, paged
            child.expect(r"PAGED:.*#4 shell output · 2 lines")
            child.expect("PAGED:www")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert "goosectx asks" not in before + diff_seen  # no question before the diff
    assert "-    return 1  # e2e-marker" in diff_seen
    assert (work / "app.py").read_text() == "def main():\n    return 2  # e2e-marker\n"
    first = server.requests[0]["messages"]
    sent = json.dumps(first)
    assert "fix @app.py please" in sent and 'source=\\"app.py\\"' in sent
    assert "+++ b/app.py" not in json.dumps(server.requests[1])  # the diff is never sent
