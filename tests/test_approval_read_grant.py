""""Always allow" answered at a read-only call covers the tool's read-only calls, not its edits.

In ``approve`` mode, ``a`` at a harmless ``text_editor view`` let every later ``write`` run
unasked (the grant was the whole tool, the option said only "this tool"). Claude Code and
Codex keep read and edit grants apart: the option now says it allows read-only calls, later
views run unasked, and an edit still asks. ``a`` at an edit still allows the whole tool.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from test_repl import CTRL_D, ENTER, World

from goosectx import agent_tools
from goosectx.approval import ApprovalContext, ApprovalVerdict, decide
from goosectx.cli.repl import Repl, ReplIO
from goosectx.providers.scripted import ScriptedReply


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def _plain(world: World, typed: str) -> str:
    """The REPL's plain look (piped lines): its question shows the options' text."""
    buf = io.StringIO()
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(Console(file=buf, width=200), plain=True, stdin=io.StringIO(typed),
                          echo=True),
                mode=world.mode, agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    return buf.getvalue()


def _edit(**arguments: object) -> ScriptedReply:
    return ScriptedReply(tool_calls=[("text_editor", dict(arguments))])


def test_always_allow_at_a_view_lets_views_run_but_an_edit_still_asks(world: World) -> None:
    app = world.workdir / "app.py"
    app.write_text("x = 1\n")
    world.provider.add(_edit(command="view", path="app.py"), "r1",
                       _edit(command="view", path="app.py"), "r2",
                       _edit(command="write", path="app.py", file_text="import os\n"), "r3")
    out = _plain(world, "read it\na\nread again\nnow edit\nn\n\n")
    assert "[a] always allow (this tool's read-only calls, until you exit)" in out
    assert "text_editor: always allow (this tool's read-only calls, until you exit)" in out
    assert out.count("goosectx asks: run text_editor?") == 2  # the first view, the write
    assert "text_editor: deny" in out
    assert app.read_text() == "x = 1\n"
    answers = [r.output for m in world.provider.requests[-1].messages for r in m.tool_responses]
    assert "x = 1" in answers[1] and "The user denied this tool call" in answers[2]


def test_always_allow_at_an_edit_still_allows_the_whole_tool(world: World) -> None:
    (world.workdir / "a.txt").write_text("a\n")
    world.provider.add(_edit(command="write", path="a.txt", file_text="b\n"), "r1",
                       _edit(command="write", path="a.txt", file_text="c\n"),
                       _edit(command="view", path="a.txt"), "r2")
    out = world.run("edit" + ENTER + "a" + "again" + ENTER + CTRL_D)
    assert "text_editor: always allow (this tool, until you exit)" in out
    assert out.count("goosectx asks: run text_editor?") == 1
    assert (world.workdir / "a.txt").read_text() == "c\n"


def test_mode_forgets_a_read_only_grant_and_says_so(world: World) -> None:
    (world.workdir / "app.py").write_text("x = 1\n")
    world.provider.add(_edit(command="view", path="app.py"), "r1")
    out = world.run("read it" + ENTER + "a" + "/mode approve" + ENTER + CTRL_D)
    assert "always-allow answers cleared (text_editor (read-only calls))" in out


def test_an_asked_read_is_decided_once_and_the_question_says_why(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    (world.workdir.parent / "elsewhere.txt").write_text("x\n")
    decided: list[str] = []

    def counted(ctx: ApprovalContext) -> ApprovalVerdict:
        decided.append(ctx.tool_name)
        return decide(ctx)

    monkeypatch.setattr(agent_tools, "decide", counted)
    world.mode = "smart_approve"
    world.provider.add(_edit(command="view", path="../elsewhere.txt"), "r1")
    out = _plain(world, "read it\nn\n\n")
    assert out.count("goosectx asks: run text_editor?") == 1
    assert f"{world.workdir.parent / 'elsewhere.txt'} is outside the project" in out
    assert decided == ["text_editor"]  # the question's reason is the decision that asked
