"""What the model is told of a file a failing shell command wrote to (round 19, finding 01).

``echo partial > marker.txt; echo more >> marker.txt; exit 1`` ran and wrote the file, then
exited 1: after a compaction the facts said ``marker.txt`` was "not changed; 2 attempt(s)
failed or were rejected" — one call counted twice, and a write that happened denied.
"""

from __future__ import annotations

from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

NAMES_NOTHING = '{"user_intent": "write the marker", "next_step": "continue"}'
WRITES_THEN_FAILS = "echo partial > marker.txt; echo more >> marker.txt; exit 1"
DENIED = ("This tool call needs approval, and goosectx is running without a terminal to ask "
          "the user, so it was not run.")


def _sent(session: object) -> str:
    """Everything the model is sent from the conversation, as one text."""
    return "\n".join(m.text for m in session.conversation.agent_messages())  # type: ignore[attr-defined]


def _compact(session: object, *more: Message) -> str:
    for m in more:
        session.conversation.append(m)  # type: ignore[attr-defined]
    collect(manager(session, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,  # type: ignore[arg-type]
                    keep_user_tokens=0).compact(REQUEST))
    return _sent(session)


def _padding(n: int) -> list[Message]:
    return [*tool_pair(words(400), args={"command": f"seq {n} 1500"}),
            Message.assistant("next"), Message.user("carry on")]


def test_a_file_a_failing_command_wrote_is_not_said_unchanged_through_two_compactions(
        ) -> None:
    ran = tool_pair("(no output)\n[exit code: 1]", args={"command": WRITES_THEN_FAILS},
                    is_error=True)
    session = make_session([Message.user("write marker.txt"), *ran, *_padding(1)])
    first = _compact(session)
    assert "`marker.txt`: maybe written by a command that failed" in first, first
    assert "not changed" not in first and "attempt(s)" not in first
    second = _compact(session, *_padding(2))
    assert "`marker.txt`: maybe written by a command that failed" in second, second
    assert "not changed" not in second and "attempt(s)" not in second


def test_a_timed_out_command_counts_once_and_a_later_success_is_kept_apart() -> None:
    timed_out = tool_pair("partial\n[timed out after 5 s; the command and its child processes "
                          "were killed]", args={"command": "make > build.log 2>&1"},
                          is_error=True)
    again = tool_pair("(no output)\n[exit code: 0]", args={"command": "make > build.log"})
    session = make_session([Message.user("build it"), *timed_out, *again, *_padding(1)])
    sent = _compact(session)
    assert "`build.log`: written, maybe written by a command that failed" in sent, sent


def test_a_denied_command_is_one_attempt_and_still_not_changed() -> None:
    denied = tool_pair(DENIED, args={"command": WRITES_THEN_FAILS}, is_error=True)
    session = make_session([Message.user("write marker.txt"), *denied, *_padding(1)])
    sent = _compact(session)
    assert "`marker.txt`: not changed; 1 attempt(s) failed or were rejected" in sent, sent


def test_a_write_a_failing_command_may_never_have_reached_is_not_said_written() -> None:
    """``false && echo x > f10.txt`` never wrote f10.txt (fresh19c #06, a review): the facts
    may not tell the model the file was written, only that a failed command may have."""
    never = tool_pair("(no output)\n[exit code: 1]", args={"command": "false && echo x > f10.txt"},
                      is_error=True)
    session = make_session([Message.user("make f10"), *never, *_padding(1)])
    sent = _compact(session)
    assert "`f10.txt`: maybe written by a command that failed" in sent, sent
    assert "`f10.txt`: written" not in sent


def test_a_failing_command_condensed_into_a_note_still_maybe_wrote_its_file() -> None:
    """The tool-pair note kept only the error line of the result, not ``[exit code: 1]``: the
    next compaction read the condensed call as never run and said ``marker.txt`` was "not
    changed; 1 attempt(s) failed or were rejected"."""
    from test_compaction_toolpairs import NOTES, loop

    from goosectx.events import ToolPairsSummarized

    ran = tool_pair("cat: missing.txt: No such file or directory\n[exit code: 1]",
                    args={"command": "echo partial > marker.txt; cat missing.txt"},
                    is_error=True)
    session = make_session([Message.user("write marker.txt"), *ran, *loop(16)[1:]])
    events = collect(manager(session, ScriptedProvider([NOTES]), tool_call_cutoff=4)
                     .after_call(REQUEST))
    assert isinstance(events[-1], ToolPairsSummarized)
    assert "[exit code: 1]" not in _sent(session)  # condensed: the note stands for it
    sent = _compact(session, Message.assistant("done"), Message.user("and now?"))
    assert "`marker.txt`: maybe written by a command that failed" in sent, sent
    assert "not changed" not in sent and "attempt(s)" not in sent
