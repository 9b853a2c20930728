"""The real REPL in a pseudo-terminal: outside text at the prompt, and colour codes typed.

Tab after ``@os`` wrote a file name's U+202E raw to the terminal; ``red ESC[31mtext`` typed
(a terminal without bracketed paste pasting coloured output) raised from prompt-toolkit's
mouse handler: "Unhandled exception in event loop", "Press ENTER to continue…", and the next
line merged into the broken one (cli/prompt_safe.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _repl(tmp_path: Path) -> tuple[Any, list[str]]:
    """The REPL without a model (a message is drawn, then "not sent"), and all it wrote."""
    env = _env(tmp_path, "http://127.0.0.1:9/v1")
    env.pop("GOOSE_MODEL")
    child = pexpect.spawn("goosectx", cwd=str(tmp_path), env=env, dimensions=(40, 110),
                          encoding="utf-8", timeout=TIMEOUT_S)
    seen: list[str] = []
    child.logfile_read = type("Log", (), {"write": lambda _s, t: seen.append(t),
                                          "flush": lambda _s: None})()
    return child, seen


def _leave(child: Any) -> None:
    child.expect("❯")
    child.sendeof()
    child.expect(pexpect.EOF, timeout=15)


def test_tab_on_a_bidi_file_name_draws_its_stand_in_never_the_raw_override(
        tmp_path: Path) -> None:
    (tmp_path / "osc\u202etxt.exe").write_text("x")
    child, seen = _repl(tmp_path)
    try:
        child.expect("❯")
        child.send("@os\t")
        child.expect_exact("@osc<U+202E>txt.exe")  # the prompt line, before Enter
        child.send("\r")
        child.expect("not sent")
        _leave(child)
    finally:
        child.close(force=True)
    wrote = "".join(seen)
    assert "\u202e" not in wrote
    assert re.search(r"│ @osc<U\+202E>txt\.exe +│", _ANSI.sub("", wrote))  # the you panel


def test_a_colour_sequence_typed_at_the_prompt_is_dropped_and_the_prompt_stays_usable(
        tmp_path: Path) -> None:
    child, seen = _repl(tmp_path)
    try:
        child.expect("❯")
        child.send("red \x1b[31mtext")
        child.send("\r")
        child.expect("not sent")
        child.expect("❯")
        child.send("second\r")  # the next line is a message of its own
        child.expect("not sent")
        _leave(child)
    finally:
        child.close(force=True)
    shown = _ANSI.sub("", "".join(seen))
    assert "Unhandled exception" not in shown and "Press ENTER" not in shown
    assert re.search(r"│ red text +│", shown), shown[-2000:]
    assert re.search(r"│ second +│", shown), shown[-2000:]


def test_escape_sequences_typed_at_the_prompt_leave_no_text_and_the_arrows_still_move(
        tmp_path: Path) -> None:
    """``ESC[K``, ``ESC[2J``, an OSC title and an OSC 8 link, typed in one go (a terminal
    without bracketed paste): prompt-toolkit left ``[K``, ``[2J``, ``]0;t`` in the line."""
    child, seen = _repl(tmp_path)
    try:
        child.expect("❯")
        child.send("one \x1b[K\x1b[2Jtwo\x1b]0;title\x07 \x1b]8;;https://x.example/\x1b\\"
                   "three\x1bPq#0\x1b\\ fouX\x1b[Dr\x1b[F\x7f\r")  # left, End, Backspace
        child.expect("not sent")
        _leave(child)
    finally:
        child.close(force=True)
    shown = _ANSI.sub("", "".join(seen))
    assert re.search(r"│ one two three four +│", shown), shown[-2000:]


def test_ctrl_c_gives_the_keys_back_after_a_paste_start_with_no_end(tmp_path: Path) -> None:
    """A stray ``ESC[200~`` swallowed Enter, Ctrl-C and Ctrl-D until an ``ESC[201~`` came;
    now Ctrl-C ends the paste, the keys it held are in the line again and keys are keys."""
    import time

    child, seen = _repl(tmp_path)
    try:
        child.expect("❯")
        child.send("x\x1b[200~abc")
        time.sleep(1.0)  # (past the 0.5 s flush: a pause alone does not end a paste)
        child.send("\x03")
        time.sleep(0.3)
        child.send("yz\r")
        child.expect("not sent")
        _leave(child)
    finally:
        child.close(force=True)
    assert re.search(r"│ xabcyz +│", _ANSI.sub("", "".join(seen))), "".join(seen)[-2000:]


def test_escape_then_a_capital_keeps_the_capital(tmp_path: Path) -> None:
    """``one ESC Two`` (Escape, then a capitalised word at once) read ``one wo``."""
    child, seen = _repl(tmp_path)
    try:
        child.expect("❯")
        child.send("one \x1bTwo\r")
        child.expect("not sent")
        _leave(child)
    finally:
        child.close(force=True)
    assert re.search(r"│ one Two +│", _ANSI.sub("", "".join(seen))), "".join(seen)[-2000:]
