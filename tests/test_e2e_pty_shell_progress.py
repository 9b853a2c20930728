"""A running shell command shows its elapsed seconds and its last output line in the spinner.

A tester saw only "⠋ running shell…" for a long command: no time, and its output ("start")
only after Ctrl-C. Now the spinner reads "running shell… 3s · start" (the line sanitised,
one line, cut to the terminal width) while the command runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")


@pytest.mark.slow
def test_the_spinner_shows_elapsed_seconds_and_the_last_output_line(tmp_path: Path) -> None:
    long_line = "x" * 300
    command = (f"echo first; echo {long_line}; printf 'start\\033]0;pwned\\a\\n'; sleep 5; "
               "echo finished")
    script = [{"text": "Running.", "tool_calls": [
                   {"name": "shell", "arguments": {"command": command}}]},
              {"text": "It finished."}]
    with FakeServer(script) as server:
        env = _env(tmp_path, server.base_url)
        child = pexpect.spawn("goosectx", ["session", "--name", "spin", "--mode", "auto"],
                              cwd=str(tmp_path), env=env, dimensions=(40, 110),
                              encoding="utf-8", timeout=TIMEOUT_S)
        seen: list[str] = []
        child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                              "flush": lambda _s: None})()
        try:
            child.expect("❯")
            child.send("run it\r")
            child.expect(r"running shell… \d+s · start", timeout=20)
            mid = "".join(seen)
            child.expect("It finished.")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert re.search(r"running shell… [2-6]s", mid)
    assert "\x1b]0;pwned" not in "".join(seen)  # the title sequence never reached the terminal
    assert not re.search("x{120}", mid)  # the 300-column line was never drawn whole
