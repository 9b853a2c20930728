"""Cancelling at the first of many parallel tool calls: one line for the calls left unrun.

Every call still gets its stored "cancelled" answer (the history stays valid); the screen shows
the first on a line of its own (``not run: cancelled by you``: it never ran) and the rest as one
summary line, in both looks, and the numbers of later outputs (``/show N``) still count them.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.repl import Repl, ReplIO
from goosectx.providers.scripted import ScriptedReply

CALLS = 40


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    w.provider.add(ScriptedReply(tool_calls=[("shell", {"command": f"echo call{i}"})
                                             for i in range(CALLS)]),
                   ScriptedReply(tool_calls=[("shell", {"command": "seq 1 200"})]), "done")
    yield w
    w.store.close()


def check(world: World, out: str) -> None:
    lines = [line.strip() for line in out.splitlines()]
    assert sum("cancelled by you" in line for line in lines) == 2, out
    # the call cancelled at its question did not run: said so, its text for the model not drawn
    assert lines.count("✗ shell not run: cancelled by you") == 1
    assert f"✗ {CALLS - 1} more tool calls not run: cancelled by you" in lines
    assert "The user cancelled this tool call." not in out
    assert out.index("not run: cancelled by you") < out.index("turn cancelled")
    stored = [r for m in world.stored().conversation for r in m.tool_responses]
    assert len(stored) == CALLS + 1 and all(r.is_error for r in stored[:CALLS])
    # the next turn's folded output is #CALLS + 1: the unrun calls kept their numbers
    assert f"#{CALLS + 1} (/show {CALLS + 1})" in out


def test_rich_look(world: World) -> None:
    check(world, world.run("go" + ENTER + "c" + "again" + ENTER + "y" + CTRL_D, width=200))


def test_plain_look(world: World) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=200, no_color=True, force_terminal=False)
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=io.StringIO("go\nc\nagain\ny\n"),
                          echo=True), mode="approve",
                agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    check(world, buf.getvalue())
