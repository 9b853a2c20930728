"""Zero-width joiners in prose are kept where words and emoji need them, shown elsewhere.

An emoji sequence (👨‍💻) and Persian or Indic words need U+200D / U+200C between their
characters; beside ASCII, at a word's edge or in a tool call they can only hide something and
are shown as ``<U+200D>`` (docs/architecture.md, "The print path"). The Hangul fillers, blank
and drawn wider than rich counts them, are shown in prose too.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from rich.console import Console

from goosectx.cli.render import TranscriptRenderer
from goosectx.conversation import Message
from goosectx.events import MessageCompleted, MessageDelta

CODER = "\U0001f468\u200d\U0001f4bb"  # 👨‍💻
PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # می‌خواهم
ANSWER = f"dev {CODER} fa: {PERSIAN} but r\u200dm -rf and x\u200c and \u3164gap"


def test_run_keeps_joiners_in_words_and_shows_the_rest(
        fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_model.add({"tool_calls": [{"name": "shell",
                                    "arguments": {"command": f"echo {CODER}"}}]},
                   {"text": ANSWER})
    code, out, err = run_cli(capsys, "run", "-t", "hi", "--mode", "auto", "--name", "zwj")
    assert code == 0, err
    assert CODER in out and PERSIAN in out  # drawn as the emoji and the word
    assert "r<U+200D>m" in out and "x<U+200C> " in out and "<U+3164>gap" in out
    assert "echo \U0001f468<U+200D>\U0001f4bb" in err  # a command shows every joiner
    code, md, err = run_cli(capsys, "sessions", "export", "zwj", "-o", "-")
    assert code == 0, err
    assert CODER in md and PERSIAN in md and "r<U+200D>m" in md


def test_streamed_answer_keeps_a_joiner_split_across_chunks() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=100, force_terminal=True, color_system="truecolor")
    renderer = TranscriptRenderer(console, plain=True)
    for piece in ("dev \U0001f468\u200d", "\U0001f4bb and a\u200d", " end"):
        renderer.handle(MessageDelta(piece))
    renderer.handle(MessageCompleted(Message.assistant(
        "dev \U0001f468\u200d\U0001f4bb and a\u200d end")))
    out = buf.getvalue()
    assert CODER in out
    assert "a<U+200D> end" in out
