"""Reverse search (Ctrl-R) in the real REPL in a pseudo-terminal: it never leaves a dead prompt.

Ctrl-C / Ctrl-G end the search back to the prompt, Esc ends it keeping the entry found (as
readline and prompt_toolkit do); Enter takes the found entry; the
prompt answers keys afterwards (a tester's REPL went deaf after Ctrl-R, text, Ctrl-C, Up,
Ctrl-C: no echo, Enter / Ctrl-D / Esc / Ctrl-C ignored).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")

CTRL_R, CTRL_C, CTRL_G, ESC, UP = "\x12", "\x03", "\x07", "\x1b", "\x1b[A"


def _spawn(tmp_path: Path) -> tuple[object, list[str]]:
    env = _env(tmp_path, "http://127.0.0.1:9/v1")
    env.pop("GOOSE_MODEL")  # no model: the offline commands are enough
    child = pexpect.spawn("goosectx", cwd=str(tmp_path), env=env, dimensions=(40, 110),
                          encoding="utf-8", timeout=TIMEOUT_S)
    seen: list[str] = []
    child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                          "flush": lambda _s: None})()
    child.expect("❯")
    child.send("/usage\r")  # into the input history
    child.expect("total")
    child.expect("❯")
    return child, seen


@pytest.mark.parametrize("abort", [CTRL_C, CTRL_G, ESC])
def test_aborting_a_reverse_search_leaves_a_prompt_that_answers(tmp_path: Path, abort: str
                                                                ) -> None:
    child, _seen = _spawn(tmp_path)
    try:
        child.send(CTRL_R)
        child.expect("backward")
        child.send("usa")
        child.expect("usa")
        child.send(abort)
        time.sleep(0.7)  # a lone Esc is told from an Alt- key by the pause after it
        child.send(UP)
        child.send(CTRL_C)  # clears the line the up arrow filled
        child.send("/help\r")
        child.expect("/compact", timeout=15)  # /help answered: the prompt is not deaf
        child.expect("Ctrl-R searches earlier inputs")  # and /help tells of the search
        child.expect("❯")
        child.sendeof()  # Ctrl-D on the empty line leaves
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_enter_in_a_reverse_search_takes_the_found_entry(tmp_path: Path) -> None:
    child, _seen = _spawn(tmp_path)
    try:
        child.send(CTRL_R)
        child.expect("backward")
        child.send("usa")
        child.expect("usa")
        child.send("\r")  # takes /usage into the prompt, for editing as prompt_toolkit does
        time.sleep(0.5)
        child.send("\r")  # and it runs again
        child.expect("total", timeout=15)
        child.expect("❯")
        child.sendeof()
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
