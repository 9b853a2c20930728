"""A cancel during the first of three tool calls: the two after it never started.

The model is told the call that was running may have run, and that the two after it did not
run (answers that start with the old "cancelled" text, so a stored session and a check of
the start keep their meaning); ``/undo`` names only the call that may have run.
"""

from __future__ import annotations

import _thread
import threading
from pathlib import Path
from typing import Any

from agent_harness import Approvals, EchoTool, Harness, WriteTool, finished, make_harness

from goosectx.approval import (
    ASKED_CANCELLED_TEXT,
    CANCELLED_TEXT,
    cancelled_text,
    stopped_running_text,
)
from goosectx.config import Settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.events import Event, ToolCallFinished, ToolCallStarted
from goosectx.file_journal import EditJournal
from goosectx.file_undo import plan_undo
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolContext, ToolRegistry, ToolResult
from goosectx.turn import CANCELLED_NOT_STARTED_TEXT, Turn, close_cancelled

THREE = ScriptedReply(tool_calls=[("block", {}), ("write", {"text": "a"}),
                                  ("echo", {"text": "b"})])


class BlockingTool(EchoTool):
    """Runs until the turn is cancelled (a long command); ``interrupt``: sends a Ctrl-C."""

    name = "block"

    def __init__(self, interrupt: bool = False) -> None:
        super().__init__()
        self.interrupt = interrupt

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        return False

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(arguments)
        if self.interrupt:
            _thread.interrupt_main()
        ctx.cancel.wait(30)
        return ToolResult("half done", is_error=True)


def three_calls(tmp_path: Path, tool: BlockingTool, **kwargs: Any
                ) -> tuple[Harness, ScriptedProvider]:
    provider = ScriptedProvider([THREE, "told"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([tool, WriteTool(), EchoTool()]), **kwargs)
    return h, provider


def answers(h: Harness) -> list[str]:
    stored = h.stored()
    by_id = {r.id: r for m in stored for r in m.tool_responses}
    requests = [r for m in stored for r in m.tool_requests]
    assert all(by_id[r.id].is_error for r in requests)
    return [by_id[r.id].output for r in requests]


def cancel_at_start(cancel: threading.Event) -> Any:
    def on_event(event: Event) -> None:
        if isinstance(event, ToolCallStarted):
            cancel.set()
    return on_event


def test_calls_after_the_one_cancelled_are_told_they_did_not_run(tmp_path: Path) -> None:
    h, provider = three_calls(tmp_path, BlockingTool())
    cancel = threading.Event()
    events = h.turn("go", on_event=cancel_at_start(cancel), cancel=cancel)
    assert finished(events).status == "cancelled"
    first, second, third = answers(h)
    assert first.startswith(CANCELLED_TEXT) and "did not run" not in first  # it may have run
    assert "half done" in first
    assert second == third == CANCELLED_NOT_STARTED_TEXT
    assert CANCELLED_NOT_STARTED_TEXT.startswith(CANCELLED_TEXT)
    assert "did not run" in CANCELLED_NOT_STARTED_TEXT
    h.turn("what happened?")
    told = [r.output for m in provider.requests[-1].messages for r in m.tool_responses]
    assert told[1:] == [CANCELLED_NOT_STARTED_TEXT] * 2
    # the screen gets the same answers as the store
    shown = [e.response.output for e in events if isinstance(e, ToolCallFinished)]
    assert shown == [first, second, third]


def test_ctrl_c_during_the_first_call(tmp_path: Path) -> None:
    tool = BlockingTool(interrupt=True)
    h, _ = three_calls(tmp_path, tool)
    events = h.turn("go")
    assert finished(events).status == "cancelled"
    first, *rest = answers(h)
    assert first.startswith(CANCELLED_TEXT) and "did not run" not in first
    assert rest == [CANCELLED_NOT_STARTED_TEXT] * 2


def test_undo_names_only_the_call_that_may_have_run(tmp_path: Path) -> None:
    h, _ = three_calls(tmp_path, BlockingTool())
    cancel = threading.Event()
    h.turn("go", on_event=cancel_at_start(cancel), cancel=cancel)
    plan = plan_undo(h.stored(), EditJournal(h.agent.settings.data_dir, h.session.id))
    assert plan.untracked == ["block"]  # not "write", not "echo": they never started


def test_a_cancel_at_the_question_answers_the_later_calls_not_started(tmp_path: Path) -> None:
    h, _ = three_calls(tmp_path, BlockingTool(), approve=Approvals(["cancel"]),
                       mode="approve")
    h.turn("go")
    assert answers(h) == [ASKED_CANCELLED_TEXT, CANCELLED_NOT_STARTED_TEXT,
                          CANCELLED_NOT_STARTED_TEXT]
    assert plan_undo(h.stored(), EditJournal(tmp_path, h.session.id)).turn is None


def test_a_signal_keeps_its_own_answer(tmp_path: Path) -> None:
    h, _ = three_calls(tmp_path, BlockingTool())
    h.agent.stopped_by = lambda: "SIGTERM"
    cancel = threading.Event()
    h.turn("go", on_event=cancel_at_start(cancel), cancel=cancel)
    first, *rest = answers(h)
    assert "SIGTERM" in first and "did not run" not in first
    assert rest == [cancelled_text("SIGTERM")] * 2


def test_a_call_that_started_and_was_left_unanswered_may_have_run() -> None:
    calls = [ToolRequest(f"c{i}", "shell", {"command": f"make {i}"}) for i in range(3)]
    turn = Turn(threading.Event(), open_requests=calls)
    turn.started.append(calls[0])
    kept: list[Message] = []

    def complete(message: Message) -> Any:
        kept.append(message)
        return iter(())

    list(close_cancelled(turn, complete))
    assert [r.output for r in kept[0].tool_responses] == [
        CANCELLED_TEXT, CANCELLED_NOT_STARTED_TEXT, CANCELLED_NOT_STARTED_TEXT]


def test_a_repeated_call_id_is_told_apart_by_position() -> None:
    same = [ToolRequest("dup", "shell", {"command": "make"}) for _ in range(2)]
    turn = Turn(threading.Event(), open_requests=same)
    turn.started.append(same[0])
    turn.responses.append(ToolResponse("dup", "made", is_error=False))
    kept: list[Message] = []
    list(close_cancelled(turn, lambda m: (kept.append(m), iter(()))[1]))
    assert [r.output for r in kept[0].tool_responses] == ["made", CANCELLED_NOT_STARTED_TEXT]


def test_a_started_call_a_signal_left_unanswered_is_not_told_it_did_not_run() -> None:
    calls = [ToolRequest(f"c{i}", "shell", {"command": f"make {i}"}) for i in range(2)]
    turn = Turn(threading.Event(), open_requests=calls, cancel_text=cancelled_text("SIGTERM"),
                started_text=stopped_running_text("SIGTERM"))
    turn.started.append(calls[0])
    kept: list[Message] = []
    list(close_cancelled(turn, lambda m: (kept.append(m), iter(()))[1]))
    first, second = (r.output for r in kept[0].tool_responses)
    assert first == stopped_running_text("SIGTERM") and "did not run" not in first
    assert second == cancelled_text("SIGTERM") and "did not run" in second
