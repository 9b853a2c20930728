"""Keys typed while a turn streams, in a real terminal: letters wait for the next prompt, a
Ctrl-D neither ends the REPL nor lands in the prompt as a NUL.

While a turn runs the terminal is cooked with its echo off (``cli/terminal.py``,
``TerminalEcho``). A Ctrl-D there is the line discipline's end of file, which the next prompt
(raw mode) read as a NUL byte: the keys typed after it were lost (``ab`` Ctrl-D ``cd`` sent
``ab``). The keys are now read at the turn's end and kept as the prompt's type-ahead, less
the NUL.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fakeserver import FakeServer
from pty_support import spawn_session, user_texts

pexpect = pytest.importorskip("pexpect")

SLOW = {"text": "streaming slowly " * 6 + "ANSWER-END", "chunk_chars": 4,
        "chunk_delay_s": 0.08}


@pytest.mark.parametrize("typed", ["\x04", "ab\x04cd", "next one\x04"])
def test_keys_typed_during_a_turn_reach_the_next_prompt_without_eof_or_nul(
        tmp_path: Path, typed: str) -> None:
    with FakeServer([SLOW, {"text": "second ANSWER-END"}]) as server:
        child = spawn_session(tmp_path, server.base_url, tmp_path)
        try:
            child.expect("❯")
            child.send("first\r")
            child.expect("streaming")  # the answer is streaming: the turn runs
            child.send(typed)
            time.sleep(0.2)
            child.expect("ANSWER-END")
            child.expect("❯")
            time.sleep(0.5)
            child.send("\r")  # sends what the prompt holds (nothing: no new turn)
            time.sleep(1.0)
            assert child.isalive(), "the REPL ended"
            child.send("/exit\r")
            child.expect(pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        texts = user_texts(server.requests)
    kept = typed.replace("\x04", "")
    assert all("\\u0000" not in t for t in texts), texts
    if kept:
        assert json.dumps(kept) in texts[-1], texts
    else:
        assert len(server.requests) == 1, texts


@pytest.mark.parametrize(("typed", "kept"), [
    ("typed \x1b[2Jduring\x1b]0;T\x07 turn", "typed during turn"),
    ("a \x1b[200~pasted words", "a pasted words"),
])
def test_escape_sequences_typed_during_a_turn_are_dropped_whole_as_at_the_prompt(
        tmp_path: Path, typed: str, kept: str) -> None:
    """Type-ahead was parsed without the prompt's guard (cli/input_guard.py): ``[2J`` and
    ``]0;T`` reached the model; after a paste start with no end its words were lost."""
    with FakeServer([SLOW, {"text": "second ANSWER-END"}]) as server:
        child = spawn_session(tmp_path, server.base_url, tmp_path)
        try:
            child.expect("❯")
            child.send("first\r")
            child.expect("streaming")
            child.send(typed)
            child.expect("ANSWER-END")
            child.expect("❯")
            time.sleep(1.0)
            child.send("\r")
            child.expect("second ANSWER-END")
            child.send("/exit\r")
            child.expect(pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
        texts = user_texts(server.requests)
    assert json.dumps(kept) in texts[-1], texts
