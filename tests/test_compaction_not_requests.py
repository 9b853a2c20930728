"""User-role messages that are no request do not become the summary's pending request.

fresh16c #07: a ``!command`` run after the last answer, then ``/compact`` (extractive): the
summary's "Next step" said "Continue with the newest user request:" followed by the shell
output, and listed the output under "User messages" — the last request had been answered.
The same holds for an undo note and harness text: none is a request.
"""

from __future__ import annotations

import pytest
from compaction_support import REQUEST, chat, collect, make_session, manager

from goosectx.compaction.carry import ANSWERED_NEXT_STEP
from goosectx.conversation import Message, MessageMetadata
from goosectx.shell_escape import escape_message

OUTPUT = "hi-from-shell\n[exit code: 0]"


def _summary(extra: list[Message]) -> str:
    session = make_session([*chat(6, 300), *extra])
    collect(manager(session, None).compact(REQUEST, strategy="extractive"))
    return next(m.text for m in session.conversation.agent_view() if m.metadata.is_summary)


@pytest.mark.parametrize("extra", [
    [escape_message("echo hi-from-shell", OUTPUT, is_error=False, to_model=True)],
    [Message.user("[I used /undo: the file edits you made for my message \"x\" are undone]",
                  MessageMetadata(user_visible=False, agent_visible=True,
                                  extra={"source_kind": "command", "file_undo": "m1"}))],
    [escape_message("echo one", "one", is_error=False, to_model=True),
     escape_message("echo hi-from-shell", OUTPUT, is_error=False, to_model=True)],
], ids=["shell escape", "undo note", "two shell escapes (merged when sent)"])
def test_a_message_that_is_no_request_after_the_answer_leaves_it_answered(
        extra: list[Message]) -> None:
    summary = _summary(extra)
    next_step = summary.split("## Next step", 1)[1]
    assert ANSWERED_NEXT_STEP in next_step
    assert "Continue with the newest user request" not in next_step
    assert "hi-from-shell" not in summary.split("## User messages", 1)[1].split("## ", 1)[0]
    assert "question 5" in next_step  # the last request, answered


@pytest.mark.parametrize("before", [
    escape_message("echo hi-from-shell", OUTPUT, is_error=False, to_model=True),
    Message.user("[I used /undo: the file edits you made for my message \"x\" are undone — "
                 "hi-from-shell (removed: that turn created it).]",
                 MessageMetadata(user_visible=False, agent_visible=True,
                                 extra={"source_kind": "command", "file_undo": "m1"})),
], ids=["shell escape", "undo note"])
def test_a_request_typed_after_a_note_is_the_pending_one(before: Message) -> None:
    """The note and the request are one user message when sent (merged): the request is."""
    summary = _summary([before, Message.user("now fix the failing test")])
    next_step = summary.split("## Next step", 1)[1]
    assert "Continue with the newest user request" in next_step
    assert "now fix the failing test" in next_step
    assert "hi-from-shell" not in next_step
