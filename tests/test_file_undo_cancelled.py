"""``/undo`` and calls the user cancelled: one cancelled at its approval question never ran and
changed nothing, so it is not named as "not undoable"; one stopped while it ran (or an answer
stored before the two were told apart) still is; the calls after one a Ctrl-C stopped never
started and are not named either.

Driven through the REPL over pipe input with the scripted model; what a user notices is the
lines ``/undo`` prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World, _InterruptingTool

from goosectx.approval import CANCELLED_TEXT, cancelled_text, stopped_running_text
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.file_journal import EditJournal
from goosectx.file_undo import plan_undo
from goosectx.providers.scripted import ScriptedReply
from goosectx.tools.base import ToolRegistry


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.mode = "approve"
    yield w
    w.store.close()


def test_a_call_cancelled_at_its_approval_question_is_not_named(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[
        ("text_editor", {"command": "write", "path": "made.txt", "file_text": "x\n"}),
        ("shell", {"command": "rm -rf build"}),
    ]), "ok")
    world.run("write then clean" + ENTER + "y" + "c" + CTRL_D)
    assert (world.workdir / "made.txt").exists()
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "removed   made.txt" in out
    assert "not undoable" not in out


def test_the_calls_after_one_a_ctrl_c_stopped_are_not_named(world: World) -> None:
    world.tools = ToolRegistry([_InterruptingTool(), *world.tools.tools()])
    world.mode = "smart_approve"  # the read-only wait runs without asking
    world.provider.add(
        ScriptedReply(tool_calls=[
            ("text_editor", {"command": "write", "path": "made.txt", "file_text": "x\n"})]),
        ScriptedReply(tool_calls=[("wait", {}), ("shell", {"command": "rm -rf build"}),
                                  ("shell", {"command": "make install"})]))
    out = world.run("write then clean" + ENTER + "y" + CTRL_D)
    assert "turn cancelled" in out
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    out = out[out.index("❯ /undo"):]  # after the history drawn on resume
    assert "removed   made.txt" in out
    assert "not undoable  wait" in out  # Ctrl-C stopped it as it ran: it may have done something
    assert "rm -rf" not in out and "make install" not in out


def test_the_model_is_told_the_cancelled_call_did_not_run(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo x"})]), "fine")
    world.run("go" + ENTER + "c" + "next" + ENTER + CTRL_D)
    told = [r.output for m in world.provider.requests[-1].messages for r in m.tool_responses]
    assert told == [cancelled_text(None, asked=True)]
    assert told[0].startswith(CANCELLED_TEXT) and "did not run" in told[0]


def _turn(answer: str) -> list[Message]:
    request = ToolRequest("call-1", "shell", {"command": "make"})
    return [Message.user("build it"), Message("assistant", (request,)),
            Message("user", (ToolResponse("call-1", answer, is_error=True),))]


@pytest.mark.parametrize("answer", [
    CANCELLED_TEXT,  # stored before a cancel at the question was told apart: it may have run
    stopped_running_text(None) + "\npartial output",
    stopped_running_text("SIGTERM"),
])
def test_a_call_that_may_have_run_is_still_named(tmp_path: Path, answer: str) -> None:
    plan = plan_undo(_turn(answer), EditJournal(tmp_path, "demo"))
    assert plan.untracked == ["shell: make"]


def test_a_call_cancelled_before_it_ran_is_left_out(tmp_path: Path) -> None:
    journal = EditJournal(tmp_path, "demo")
    assert plan_undo(_turn(cancelled_text(None, asked=True)), journal).turn is None
    assert plan_undo(_turn(cancelled_text("SIGTERM")), journal).turn is None
