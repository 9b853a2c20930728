"""Ctrl-D pressed right after Ctrl-C at an empty REPL prompt leaves (in a real terminal).

Ctrl-C at an empty prompt ended the prompt to say how to leave: the terminal went back to
cooked mode until the next prompt was up, and a Ctrl-D typed in that gap was the line
discipline's end of file, which the next prompt (raw mode) read as a NUL byte — the REPL
stayed (seen in pty tests under load; 3 of 41 Ctrl-Ds sent 0–20 ms behind a Ctrl-C). The hint
is now drawn above the prompt, which stays up in raw mode (``cli/prompt.py``, ``draw_above``).
"""

from __future__ import annotations

import termios
import time
from pathlib import Path
from typing import Any

import pytest
from test_e2e_pty_editor import _spawn  # the REPL with no model, its prompt up

pexpect = pytest.importorskip("pexpect")

HINT = "Ctrl-D or /exit leaves"
WATCH_S = 0.5
"""How long the terminal's mode is watched after a Ctrl-C (the old gap lasted milliseconds)."""


def _cooked_after_ctrl_c(child: Any) -> bool:
    """Press Ctrl-C; whether the terminal went to cooked mode (line editing) within WATCH_S.

    The pty's master reads the terminal's settings; polled without pause (microseconds
    apart), so a gap of a fraction of a millisecond is seen.
    """
    fd = child.child_fd
    child.send("\x03")
    deadline = time.monotonic() + WATCH_S
    while time.monotonic() < deadline:
        if termios.tcgetattr(fd)[3] & termios.ICANON:
            return True
    return False


def test_the_prompt_stays_in_raw_mode_through_ctrl_c_and_ctrl_d_leaves(tmp_path: Path) -> None:
    child = _spawn(tmp_path)
    try:
        time.sleep(0.3)  # the prompt idle, waiting for a key
        assert not termios.tcgetattr(child.child_fd)[3] & termios.ICANON  # raw: the prompt
        cooked = [_cooked_after_ctrl_c(child) for _ in range(3)]
        child.expect(HINT)
        child.send("\x03")
        child.sendeof()  # right behind it
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)
    assert cooked == [False, False, False]  # a Ctrl-D then would be lost
    assert child.exitstatus == 0
