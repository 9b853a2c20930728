"""A model that reuses tool-call ids (call_0 in every reply): every call and result is shown."""

from __future__ import annotations

import io

from rich.console import Console

from goosectx.cli.render import TranscriptRenderer
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.events import (
    MessageCompleted,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from goosectx.shown import numbered_outputs


def make() -> tuple[TranscriptRenderer, io.StringIO]:
    buf = io.StringIO()
    return TranscriptRenderer(Console(file=buf, width=100, color_system=None)), buf


def one_call(r: TranscriptRenderer, command: str, output: str,
             messages: list[Message]) -> None:
    """The agent's events for one reply with one shell call, id call_0, as they arrive."""
    req = ToolRequest("call_0", "shell", {"command": command})
    asked = Message("assistant", (req,))
    r.handle(MessageCompleted(asked))
    r.handle(ToolCallStarted(req))
    resp = ToolResponse("call_0", output)
    r.handle(ToolCallFinished(resp))
    answered = Message("user", (resp,))
    r.handle(MessageCompleted(answered))
    messages += [asked, answered]


def test_two_replies_with_the_same_call_id_both_show_their_call_and_output() -> None:
    r, buf = make()
    messages: list[Message] = []
    r.user("go")
    one_call(r, "echo one", "one-out\n", messages)
    one_call(r, "echo two", "two-out\n", messages)
    r.handle(TurnFinished("done"))
    one_call(r, "echo three", "three-out\n", messages)  # next turn: the ids start again
    out = buf.getvalue()
    for word in ("one", "two", "three"):
        assert out.count(f"echo {word}") == 1, out
        assert out.count(f"{word}-out") == 1, out


def test_reused_ids_keep_distinct_show_numbers_live_and_resumed() -> None:
    r, buf = make()
    messages: list[Message] = []
    big = "".join(f"line {i}\n" for i in range(30))  # folded: the line names its number
    one_call(r, "seq 1", "A" + big, messages)
    one_call(r, "seq 2", "B" + big, messages)
    live = buf.getvalue()
    outputs = numbered_outputs(messages)
    assert [o.text[0] for o in outputs] == ["A", "B"]
    assert "/show 1" in live and "/show 2" in live, live
    again, buf2 = make()
    again.seed_numbers(messages)
    again.history(messages)
    resumed = buf2.getvalue()
    assert "/show 1" in resumed and "/show 2" in resumed, resumed


def test_a_cancel_answers_every_open_call_also_when_a_reply_repeats_an_id() -> None:
    import threading

    from goosectx.turn import Turn, close_cancelled

    turn = Turn(threading.Event())
    turn.open_requests = [ToolRequest("call_0", "shell", {"command": "echo a"}),
                          ToolRequest("call_0", "shell", {"command": "echo b"})]
    turn.responses = [ToolResponse("call_0", "a-out")]
    completed: list[Message] = []

    def complete(message: Message):  # type: ignore[no-untyped-def]
        completed.append(message)
        yield MessageCompleted(message)

    list(close_cancelled(turn, complete))
    (answer,) = completed
    assert [r.output for r in answer.tool_responses][0] == "a-out"
    assert len(answer.tool_responses) == 2  # the second call is answered too
