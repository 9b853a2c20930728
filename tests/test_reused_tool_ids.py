"""A model that reuses tool-call ids (call_0 in every reply): every call and result is shown."""

from __future__ import annotations

import io
import json

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


def test_one_reply_repeating_an_id_sends_every_call_with_its_own_output(tmp_path, work):
    """r7.json: one reply, two shell calls both 'call_0': the next request holds both calls,
    under distinct ids, each answered by its own output, in order."""
    from fakeserver import FakeServer
    from reliability_support import cli, model_env

    script = [
        {"tool_calls": [{"id": "call_0", "name": "shell", "arguments": {"command": "seq 1 20"}},
                        {"id": "call_0", "name": "shell",
                         "arguments": {"command": "seq 100 130"}}]},
        {"tool_calls": [{"id": "call_0", "name": "shell",
                         "arguments": {"command": "seq 200 230"}}]},
        {"text": "done all"},
    ]
    home = tmp_path / "home"
    with FakeServer(script) as server:
        proc = cli(model_env(home, server.base_url), "run", "--mode", "auto", "--name", "ids",
                   "-t", "run things", cwd=work, timeout=60)
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    assert "done all" in proc.stdout
    last = requests[2]["messages"]
    calls = [c for m in last if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    commands = [json.loads(c["function"]["arguments"])["command"] for c in calls]
    assert commands == ["seq 1 20", "seq 100 130", "seq 200 230"]
    first_ids = [c["id"] for c in calls[:2]]
    assert len(set(first_ids)) == 2, first_ids  # one assistant message: distinct ids
    results = [(m["tool_call_id"], m["content"]) for m in last if m.get("role") == "tool"]
    assert [r[0] for r in results] == [c["id"] for c in calls]
    assert "20" in results[0][1] and "100" not in results[0][1]
    assert "130" in results[1][1] and "\n20\n" not in results[1][1]
    assert "230" in results[2][1]
    show = cli(model_env(home, server.base_url), "sessions", "show", "ids", "--agent",
               cwd=work, timeout=60)
    assert show.returncode == 0, show.stderr
    assert "seq 1 20" in show.stdout and "seq 100 130" in show.stdout
    assert "130" in show.stdout


def test_a_stored_reply_with_a_repeated_id_keeps_both_calls_in_the_models_view() -> None:
    """A session stored before ids were made unique: both calls stay, each with its output."""
    from goosectx.conversation import Conversation

    conv = Conversation([
        Message.user("run things"),
        Message("assistant", (ToolRequest("call_0", "shell", {"command": "seq 1 20"}),
                              ToolRequest("call_0", "shell", {"command": "seq 100 130"}))),
        Message("user", (ToolResponse("call_0", "1..20"), ToolResponse("call_0", "100..130"))),
        Message.assistant("done"),
    ])
    view = conv.agent_view(for_sending=False)
    commands = [r.arguments["command"] for m in view for r in m.tool_requests
                if r.arguments]
    outputs = [r.output for m in view for r in m.tool_responses]
    assert commands == ["seq 1 20", "seq 100 130"]
    assert outputs == ["1..20", "100..130"]
