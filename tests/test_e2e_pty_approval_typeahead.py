"""End to end in a pty: keys typed before or at the approval question never answer it by accident.

A key typed before the question was on screen (type-ahead after the message's Enter) is
dropped, not taken as the answer; a sentence typed at the question is typing, not an answer:
nothing of it is taken as a key, and nothing of it is sent to the model.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fakeserver import FakeServer
from pty_support import spawn_session, user_texts
from test_e2e_pty import READ_S, press

pexpect = pytest.importorskip("pexpect")


def test_a_key_typed_before_the_question_is_shown_does_not_answer_it(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [{"text": "Running it.", "tool_calls": [
                  {"name": "shell", "arguments": {"command": "touch ran.txt"}}]},
              {"text": "not run, fine"}]
    with FakeServer(script) as server:
        child = spawn_session(tmp_path, server.base_url, work, GOOSE_MODE="approve")
        try:
            child.expect("❯")
            child.send("go\ryes")  # "yes" typed right behind the message, before any question
            child.expect(r"Run shell\?")
            child.expect("keys typed before this question were dropped")
            assert not (work / "ran.txt").exists()
            press(child, "n")  # a person reads the question, then presses one key
            child.expect("reason for the model")
            child.send("\r")
            child.expect("shell: deny")
            child.expect("not run, fine")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert not (work / "ran.txt").exists()
        assert not any("yes" in text for text in user_texts(server.requests))


def test_a_sentence_typed_at_the_question_is_neither_an_answer_nor_a_message(
        tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "touch ran.txt"}}]},
              {"text": "denied, fine"}]
    with FakeServer(script) as server:
        child = spawn_session(tmp_path, server.base_url, work, GOOSE_MODE="approve")
        try:
            child.expect("❯")
            child.send("run a shell\r")
            child.expect(r"Run shell\?")
            time.sleep(READ_S)  # a person reads the question (keys sooner count as typed ahead)
            child.send("all good, use python\r")  # 'a' would be "always allow"
            child.expect("what you typed is not an answer and was not sent")
            child.expect("press one key")
            assert not (work / "ran.txt").exists()
            press(child, "n")  # then presses one key, alone
            child.expect("reason for the model")
            child.send("\r")
            child.expect("shell: deny")
            child.expect("denied, fine")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert not (work / "ran.txt").exists()
        assert len(server.requests) == 2
        assert not any("good" in text or "python" in text for text in user_texts(server.requests))


def _answer_once(tmp_path: Path, keys: str, after: str) -> tuple[bool, list[str]]:
    """Ask for one shell call, read the question, type ``keys``; whether it ran, what was sent."""
    work = tmp_path / "work"
    work.mkdir()
    script = [{"tool_calls": [{"name": "shell", "arguments": {"command": "touch ran.txt"}}]},
              {"text": "next step"}]
    with FakeServer(script) as server:
        child = spawn_session(tmp_path, server.base_url, work, GOOSE_MODE="approve")
        try:
            child.expect("❯")
            child.send("run a shell\r")
            child.expect(r"Run shell\?")
            time.sleep(READ_S)  # a person reads the question
            for key in keys:
                child.send(key)
                time.sleep(0.15)  # typed at a normal speed
            child.expect(after)
            child.expect("next step")
            child.expect("❯")
            child.send("later line\r")  # the next message, typed at the prompt
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        return (work / "ran.txt").exists(), [
            json.dumps(m) for r in server.requests for m in r["messages"]]  # type: ignore[attr-defined]


def test_y_then_enter_answers_at_once(tmp_path: Path) -> None:
    ran, _texts = _answer_once(tmp_path, "y\r", "shell: allow once")
    assert ran


def test_ctrl_d_denies_without_asking_for_a_reason(tmp_path: Path) -> None:
    ran, sent = _answer_once(tmp_path, "\x04", "shell: deny")
    assert not ran
    tool_texts = [m for m in sent if '"role": "tool"' in m]
    assert tool_texts and not any("later line" in m for m in tool_texts)  # not the reason
