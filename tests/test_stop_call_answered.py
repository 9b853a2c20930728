"""An answer followed only by a call that stops a background task is still an answer.

fresh17b #21: an imported Claude Code session whose last request was answered ("已完成！…"),
the answer carrying a trailing ``TaskStop`` call and its "Task stopped" result. A manual
extractive compaction said "Next step: Continue with the newest user request: …" — work that
is done. Such a call is bookkeeping: the request counts as answered, and the summary the
model reads says so.
"""

from __future__ import annotations

import pytest
from compaction_support import REQUEST, collect, make_session, manager, tool_pair

from goosectx.compaction.carry import ANSWERED_NEXT_STEP
from goosectx.compaction.extractive import FOLLOWS
from goosectx.conversation import Message, ToolRequest, ToolResponse


def _session(stop: str, *, apart: bool = False) -> list[Message]:
    out = [Message.user("check the go version"), Message.assistant("It is 1.23. " * 50),
           Message.user("write a pydantic Field guide to guide.md")]
    for i in range(6):
        out += tool_pair("".join(f"doc line {i}.{k}\n" for k in range(150)), name="Bash",
                         args={"command": f"fetch docs part {i}"})
    answer = Message.assistant("Done: guide.md is written.")
    call = ToolRequest("call_stop", stop, {"taskId": "task-abc"})
    # Claude Code records the answer and the call apart (an import keeps two messages).
    out += ([answer, Message("assistant", (call,))] if apart
            else [Message("assistant", (*answer.content, call))])
    out.append(Message("user", (ToolResponse("call_stop", "Task stopped", False),)))
    return out


def _next_step(stop: str, *, apart: bool = False) -> tuple[str, str]:
    session = make_session(_session(stop, apart=apart))
    collect(manager(session, None, context_limit_tokens=8_000).compact(
        REQUEST, strategy="extractive"))
    view = [m.text for m in session.conversation.agent_view()]
    summary = next(t for t in view if t.startswith("# Conversation Summary"))
    step = summary[summary.index("## Next step"):].split("\n## ")[0]
    continuation = view[view.index(summary) + 1]
    return step, continuation


@pytest.mark.parametrize("apart", [False, True])
def test_a_trailing_task_stop_leaves_the_last_request_answered(apart: bool) -> None:
    step, continuation = _next_step("TaskStop", apart=apart)
    assert ANSWERED_NEXT_STEP in step and "Continue with the newest" not in step
    assert "answered" in continuation


def test_a_trailing_work_call_still_means_work_goes_on() -> None:
    step, _ = _next_step("Bash")
    # The request is kept after the summary: the step refers to it (fresh19b #07).
    assert f"Continue with {FOLLOWS}." in step and ANSWERED_NEXT_STEP not in step
