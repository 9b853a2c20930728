"""A reply of many tool calls: its text and the first question stay on the first screen.

A reply of 300 shell calls drew 300 ``▶ shell`` lines before the first approval question: the
model's text and the first call scrolled far off. Live, the first ``LIVE_CALLS_SHOWN`` calls are
drawn, then one count line; every other call is drawn right before its question or its result,
in both looks. The stored transcript (``sessions show``, ``/history``) still lists every call.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.render import LIVE_CALLS_SHOWN
from goosectx.cli.repl import Repl, ReplIO
from goosectx.cli.sessions_cmd import show_session
from goosectx.providers.scripted import ScriptedReply

CALLS = 300
SCREEN_LINES = 40
TEXT = "I will run every one of them."


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    w.provider.add(ScriptedReply(TEXT, tool_calls=[("shell", {"command": f"echo call{i}"})
                                                   for i in range(CALLS)]), "done")
    yield w
    w.store.close()


def _plain(world: World, answers: str) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=120, no_color=True, force_terminal=False)
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=io.StringIO(answers), echo=True),
                mode="approve", agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    return buf.getvalue()


def _call_lines(out: str, marker: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(marker)]


def check_first_screen(out: str, marker: str) -> None:
    first = out.splitlines()[:SCREEN_LINES]
    screen = "\n".join(first)
    assert TEXT in screen and "echo call0" in screen and "goosectx asks: run shell?" in screen
    held = CALLS - LIVE_CALLS_SHOWN
    assert (f"… and {held} more tool calls — each is shown when it is asked about or runs"
            in screen)
    assert len(_call_lines(screen, marker)) == LIVE_CALLS_SHOWN


def check_later_calls(out: str, asked: int) -> None:
    """Each call past the first few is drawn once, right before its question and result."""
    for i in range(LIVE_CALLS_SHOWN, asked):
        assert out.count(f"▶ shell  command: echo call{i}\n") == 1, i
        call = out.index(f"▶ shell  command: echo call{i}\n")
        question = out.index("goosectx asks: run shell?", call)
        assert "▶" not in out[call + 1:question]  # nothing drawn between them
        assert question < out.index(f"⚑   echo call{i}", call) < out.index(f"│ call{i}", call)
    assert f"echo call{asked + 1}" not in out  # cancelled at that call: the rest never drawn


def test_rich_look(world: World) -> None:
    asked = LIVE_CALLS_SHOWN + 3
    out = world.run("go" + ENTER + "y" * asked + "c" + CTRL_D, width=120)
    out = out[out.index("╭─ you"):]
    check_first_screen(out, "▶ shell")
    check_later_calls(out, asked)
    assert f"✗ {CALLS - asked - 1} more tool calls not run: cancelled by you" in out


def test_plain_look(world: World) -> None:
    asked = LIVE_CALLS_SHOWN + 2
    out = _plain(world, "go\n" + "y\n" * asked + "c\n")
    out = out[out.index("> go"):]
    check_first_screen(out.replace("    command:", "[tool] command:"), "[tool] shell")
    for i in range(LIVE_CALLS_SHOWN, asked):  # [tool] shell / command: … / its question
        lines = out.splitlines()
        at = lines.index(f"    command: echo call{i}")
        assert lines[at - 1] == "[tool] shell" and "goosectx asks" in lines[at + 1]
    assert f"echo call{asked + 1}" not in out


def test_a_call_allowed_for_good_is_drawn_before_its_result(world: World) -> None:
    # "a" at the first question: the rest run without a question, each drawn as it runs
    out = world.run("go" + ENTER + "a" + CTRL_D, width=120)
    lines = out.splitlines()
    for i in (LIVE_CALLS_SHOWN, CALLS // 2, CALLS - 1):
        at = lines.index(f"▶ shell  command: echo call{i}")
        assert lines[at + 1].strip().startswith("✓ shell output") and lines[at + 2].endswith(
            f"call{i}")
    assert len(_call_lines(out, "▶ shell")) == CALLS  # each drawn once


def test_the_stored_transcript_lists_every_call(world: World,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    world.run("go" + ENTER + "y" + "c" + CTRL_D, width=120)
    capsys.readouterr()
    show_session(world.settings, "demo", agent=False)
    shown = capsys.readouterr().out
    assert all(f"echo call{i}" in shown for i in range(CALLS))
    assert "more tool calls — each is shown" not in shown
    history = world.run("/history user" + ENTER + CTRL_D, width=120)  # the REPL's replay too
    assert len(_call_lines(history, "▶ shell")) == CALLS


def test_a_call_that_never_starts_is_drawn_before_its_result(tmp_path: Path) -> None:
    w = World(tmp_path)
    w.mode = "auto"
    calls = [("shell", {"command": f"echo call{i}"}) for i in range(LIVE_CALLS_SHOWN + 3)]
    calls[LIVE_CALLS_SHOWN + 1] = ("no_such_tool", {"x": "held"})  # refused: never started
    w.provider.add(ScriptedReply(TEXT, tool_calls=calls), "done")
    try:
        out = w.run("go" + ENTER + CTRL_D, width=120)
    finally:
        w.store.close()
    lines = out.splitlines()
    at = lines.index("▶ no_such_tool  x: held")
    assert lines[at + 1].strip().startswith("✗ no_such_tool")
    assert lines.index(f"▶ shell  command: echo call{LIVE_CALLS_SHOWN}") < at
    assert "… and 3 more tool calls" in out
