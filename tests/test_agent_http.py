"""The agent over the real HTTP path (litellm → fake OpenAI server) with the built-in tools."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from agent_harness import (
    Approvals,
    Harness,
    completed,
    finished,
    host_pid,
    http_settings,
    make_harness,
    process_gone,
)
from fakeserver import FakeServer

from goosectx.approval import ASKED_CANCELLED_TEXT, CANCELLED_TEXT, CHAT_MODE_TEXT, DENIED_TEXT
from goosectx.config import ApprovalMode
from goosectx.events import Event, MessageDelta, ToolCallFinished, ToolCallStarted, UsageUpdated


def harness(server: FakeServer, tmp_path: Path, *, mode: ApprovalMode = "auto",
            approvals: Approvals | None = None, **settings: object) -> Harness:
    return make_harness(tmp_path, http_settings(server.base_url, tmp_path / "data", **settings),
                        approve=approvals, mode=mode)


def shell(command: str, **extra: object) -> dict:
    return {"tool_calls": [{"name": "shell", "arguments": {"command": command, **extra}}]}


def sent_tool_messages(server: FakeServer, index: int) -> list[dict]:
    return [m for m in server.requests[index]["messages"] if m["role"] == "tool"]


def wait_for_file(path: Path, timeout_s: float = 10.0) -> str:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)
    return path.read_text()


def test_stream_tool_call_and_answer(fake_server: FakeServer, tmp_path: Path) -> None:
    fake_server.add({**shell("echo hi"), "text": "Running it."},
                    {"text": "The command printed hi.", "chunk_chars": 4,
                     "usage": {"prompt_tokens": 500, "completion_tokens": 9}})
    h = harness(fake_server, tmp_path)
    events = h.turn("say hi")
    assert finished(events).status == "done"
    deltas = [e.text for e in events if isinstance(e, MessageDelta)]
    assert "".join(deltas) == "Running it.The command printed hi."
    assert len(deltas) > 3
    user, request, response, answer = h.stored()
    assert request.tool_requests[0].arguments == {"command": "echo hi"}
    assert "hi" in response.tool_responses[0].output
    assert answer.text == "The command printed hi."
    # the model got the result as an OpenAI tool message answering its call
    tool_message = sent_tool_messages(fake_server, 1)[0]
    assert tool_message["tool_call_id"] == request.tool_requests[0].id
    assert "hi" in tool_message["content"]
    usage = [e for e in events if isinstance(e, UsageUpdated)][-1]
    assert usage.current_tokens == 509 and not usage.is_estimate
    ledger = h.store.load(h.session.id).ledger
    assert ledger.current_tokens == 509 and ledger.entries[-1].usage.input_tokens == 500


@pytest.mark.parametrize(("answers", "runs", "asked"), [
    (["allow_once", "allow_once"], 2, 2),
    (["always_allow"], 2, 1),
    (["deny", "deny"], 0, 2),
])
def test_approval_answers(fake_server: FakeServer, tmp_path: Path, answers: list, runs: int,
                          asked: int) -> None:
    fake_server.add(shell("echo one >> log.txt"), shell("echo two >> log.txt"), {"text": "ok"})
    approvals = Approvals(list(answers))
    h = harness(fake_server, tmp_path, mode="smart_approve", approvals=approvals)
    assert finished(h.turn("write twice")).status == "done"
    assert len(approvals.asked) == asked
    log = tmp_path / "work" / "log.txt"
    assert (log.read_text().splitlines() if log.exists() else []) == ["one", "two"][:runs]
    if runs == 0:
        assert DENIED_TEXT in sent_tool_messages(fake_server, 1)[0]["content"]
        assert "Do not retry" in DENIED_TEXT


def test_approval_cancel_over_http(fake_server: FakeServer, tmp_path: Path) -> None:
    fake_server.add(shell("touch never"))
    h = harness(fake_server, tmp_path, mode="approve", approvals=Approvals(["cancel"]))
    events = h.turn("x")
    assert finished(events).status == "cancelled"
    assert not (tmp_path / "work" / "never").exists()
    assert h.stored()[-1].tool_responses[0].output == ASKED_CANCELLED_TEXT  # it did not run
    assert len(fake_server.requests) == 1


def test_chat_mode_runs_no_tool_and_tells_the_model(fake_server: FakeServer,
                                                    tmp_path: Path) -> None:
    fake_server.add(shell("touch made"), {"text": "Understood, no tools."})
    h = harness(fake_server, tmp_path, mode="chat")
    events = h.turn("make a file")
    assert finished(events).status == "done"
    assert not (tmp_path / "work" / "made").exists()
    assert not any(isinstance(e, ToolCallStarted) for e in events)
    assert "chat mode" in fake_server.requests[0]["messages"][0]["content"]
    assert sent_tool_messages(fake_server, 1)[0]["content"] == CHAT_MODE_TEXT


@pytest.mark.parametrize(("arguments", "told"), [
    ("[" * 5_000 + "]" * 5_000, "arguments are JSON nested too deeply to read"),
    ("[1, 2]", "arguments must be a JSON object, not a list"),
    ("null", "arguments must be a JSON object, not null"),
])
def test_arguments_that_are_no_object_are_refused_to_the_model(
        fake_server: FakeServer, tmp_path: Path, arguments: str, told: str) -> None:
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": arguments}]},
                    {"text": "done"})
    h = harness(fake_server, tmp_path)
    events = h.turn("list")
    assert finished(events).status == "done"
    first = [e.response for e in events if isinstance(e, ToolCallFinished)][0]
    assert first.is_error and told in first.output
    assert told in sent_tool_messages(fake_server, 1)[0]["content"]


def test_malformed_arguments_from_the_model(fake_server: FakeServer, tmp_path: Path) -> None:
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": '{"command": "ls'}]},
                    shell("echo fixed"), {"text": "done"})
    h = harness(fake_server, tmp_path)
    events = h.turn("list")
    assert finished(events).status == "done"
    first = [e.response for e in events if isinstance(e, ToolCallFinished)][0]
    assert first.is_error and "not valid JSON" in first.output
    assert "not valid JSON" in sent_tool_messages(fake_server, 1)[0]["content"]
    # the call went back to the model as an empty object, so the request stayed valid
    call = fake_server.requests[1]["messages"][2]["tool_calls"][0]
    assert call["function"]["arguments"] == "{}"


def test_max_turns_over_http(fake_server: FakeServer, tmp_path: Path) -> None:
    fake_server.add(*[shell(f"echo {i}") for i in range(4)])
    h = harness(fake_server, tmp_path, max_turns=2)
    assert finished(h.turn("loop")).status == "max_turns"
    assert len(fake_server.requests) == 2


@pytest.mark.parametrize(("reply", "status", "words"), [
    ({"error": "auth"}, "error", "rejected the API key"),
    ({"status": 400, "body": {"error": {"message": "unsupported parameter"}}}, "error",
     "unsupported parameter"),
])
def test_provider_errors_end_the_turn(fake_server: FakeServer, tmp_path: Path, reply: dict,
                                      status: str, words: str) -> None:
    fake_server.add(reply)
    end = finished(harness(fake_server, tmp_path).turn("x"))
    assert end.status == status and words in (end.error or "")
    assert "\n" not in (end.error or "")


def test_retry_then_give_up_ends_the_turn_with_the_reason(fake_server: FakeServer,
                                                          tmp_path: Path) -> None:
    fake_server.add(*[{"error": "server_error"}] * 4)
    h = harness(fake_server, tmp_path)
    end = finished(h.turn("x"))
    assert end.status == "error" and "after 3 retries" in (end.error or "")
    assert len(fake_server.requests) == 4
    *kept, notice = h.stored()  # the notice that the turn stopped: for the user only
    assert [m.text for m in kept] == ["x"] and not notice.metadata.agent_visible


def test_cancel_mid_stream_over_http(fake_server: FakeServer, tmp_path: Path) -> None:
    hold = threading.Event()
    fake_server.add({"text": "first part, then much more", "chunk_chars": 11, "hold": hold})
    h = harness(fake_server, tmp_path)
    cancel = threading.Event()

    def on_event(event: Event) -> None:
        if isinstance(event, MessageDelta):
            cancel.set()

    try:
        events = h.turn("x", on_event=on_event, cancel=cancel)
    finally:
        hold.set()
    assert finished(events).status == "cancelled"
    partial = h.stored()[-1]
    assert partial.text == "first part," and partial.metadata.cancelled


def find_job_when_started(job: list[str], found: list[int],
                          then: threading.Event | None = None) -> Callable[[Event], None]:
    """An on_event hook: once the tool call starts, look up ``job``'s host pid (then set
    ``then``). As root the command runs in a PID namespace, so ``$!`` is not a host pid."""
    def on_event(event: Event) -> None:
        if isinstance(event, ToolCallStarted):
            def look() -> None:
                found.append(host_pid(job))
                if then is not None:
                    then.set()
            threading.Thread(target=look).start()
    return on_event


def test_cancel_mid_tool_kills_the_command(fake_server: FakeServer, tmp_path: Path) -> None:
    job = ["sleep", f"{300 + random.random():.9f}"]
    fake_server.add(shell(f"{' '.join(job)} & wait"))
    h = harness(fake_server, tmp_path)
    cancel = threading.Event()
    found: list[int] = []
    events = h.turn("sleep", on_event=find_job_when_started(job, found, cancel), cancel=cancel)
    assert finished(events).status == "cancelled"
    assert process_gone(found[0])
    response = h.stored()[-1].tool_responses[0]
    assert response.is_error and response.output.startswith(CANCELLED_TEXT)
    assert len(fake_server.requests) == 1


def test_command_outliving_its_timeout_is_killed_with_its_group(fake_server: FakeServer,
                                                                tmp_path: Path) -> None:
    job = ["sleep", f"{300 + random.random():.9f}"]
    fake_server.add(shell(f"{' '.join(job)} & wait"), {"text": "it timed out"})
    h = harness(fake_server, tmp_path, shell_timeout_s=1.0)
    found: list[int] = []
    assert finished(h.turn("sleep", on_event=find_job_when_started(job, found))).status == "done"
    assert found and process_gone(found[0])
    output = h.stored()[2].tool_responses[0].output
    assert "time" in output.lower()  # the model is told it timed out


def test_20_mb_tool_output_is_capped_before_storing_and_sending(fake_server: FakeServer,
                                                                tmp_path: Path) -> None:
    fake_server.add(shell("head -c 20000000 /dev/zero | tr '\\0' x; echo; echo tail-line"),
                    {"text": "big"})
    h = harness(fake_server, tmp_path, tool_output_max_chars=20_000)
    assert finished(h.turn("flood")).status == "done"
    output = h.stored()[2].tool_responses[0].output
    assert len(output) <= 22_000
    assert "tail-line" in output
    overflow = [p for p in (tmp_path / "data" / "tool-output").iterdir()]
    assert overflow and str(overflow[0]) in output
    assert overflow[0].stat().st_size >= 20_000_000
    assert len(json.dumps(fake_server.requests[1])) < 100_000
    assert h.store.path.stat().st_size < 2_000_000


def test_invalid_utf8_output_does_not_break_the_loop(fake_server: FakeServer,
                                                     tmp_path: Path) -> None:
    fake_server.add(shell("printf 'ok \\377\\376 bad \\303\\n'; head -c 300 /dev/urandom"),
                    {"text": "survived"})
    h = harness(fake_server, tmp_path)
    assert finished(h.turn("binary")).status == "done"
    output = h.stored()[2].tool_responses[0].output
    assert output.startswith("ok \ufffd\ufffd bad")
    assert h.stored()[3].text == "survived"


def test_api_key_never_reaches_the_store(fake_server: FakeServer, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-THIS-MUST-NOT-LEAK-4242424242"
    token = "ghp_ANOTHER-SECRET-VALUE-1234567"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("HARMLESS_VALUE", "visible-value")
    fake_server.add(shell("env; echo key=$OPENAI_API_KEY"),
                    {"text": "here is your environment"})
    h = harness(fake_server, tmp_path)
    assert finished(h.turn("print env")).status == "done"
    assert fake_server.headers[0]["authorization"] == f"Bearer {secret}"  # the key was used
    output = h.stored()[2].tool_responses[0].output
    assert "visible-value" in output  # the command really ran `env`
    db = h.db_bytes()
    assert secret.encode() not in db and token.encode() not in db
    assert all(secret not in json.dumps(r) for r in fake_server.requests)
    assert b"visible-value" in db


def test_every_message_is_persisted_as_it_completes(fake_server: FakeServer,
                                                    tmp_path: Path) -> None:
    fake_server.add(shell("echo a"), {"text": "b"})
    h = harness(fake_server, tmp_path)
    seen_in_store: list[int] = []

    def on_event(event: Event) -> None:
        seen_in_store.append(len(h.stored()))

    events = h.turn("x", on_event=on_event)
    # after each MessageCompleted was recorded, the store already had it
    counts = [n for e, n in zip(events, seen_in_store, strict=True)
              if type(e).__name__ == "MessageCompleted"]
    assert counts == [1, 2, 3, 4]
    assert [m.id for m in completed(events)] == [m.id for m in h.stored()]


def test_context_length_400_compacts_and_retries_the_step(fake_server: FakeServer,
                                                          tmp_path: Path) -> None:
    summary = json.dumps({"user_intent": "say hello", "current_work": "greeting",
                          "next_step": "answer"})
    fake_server.add({"text": "earlier answer"}, {"error": "context_length"},
                    {"text": summary}, {"text": "answer after compaction"})
    h = harness(fake_server, tmp_path)
    earlier = "earlier question " + "lorem " * 300  # enough that a summary is smaller
    assert finished(h.turn(earlier)).status == "done"
    events = h.turn("second question")
    assert finished(events).status == "done"
    kinds = [type(e).__name__ for e in events]
    assert "HistoryReplaced" in kinds
    assert kinds.index("HistoryReplaced") < kinds.index("MessageDelta")
    retried = fake_server.requests[3]["messages"]
    assert "say hello" in json.dumps(retried)  # the summary replaced the history
    assert retried[-1] == {"role": "user", "content": "second question"}
    stored = h.store.load(h.session.id).conversation
    transcript = [m.text for m in stored.user_view() if m.text]
    assert transcript[:3] == [earlier, "earlier answer", "second question"]
    assert transcript[-1] == "answer after compaction"


def test_context_length_every_time_ends_with_a_clear_error(fake_server: FakeServer,
                                                           tmp_path: Path) -> None:
    fake_server.add({"text": "earlier"}, *[{"error": "context_length"},
                                           {"text": '{"user_intent": "x"}'}] * 2,
                    {"error": "context_length"})
    h = harness(fake_server, tmp_path)
    h.turn("one " + "lorem " * 300)
    end = finished(h.turn("two " + "ipsum " * 300))
    assert end.status == "error"
    assert "larger context window" in (end.error or "")
    assert any(m.text.startswith("two ") for m in h.stored())  # the history is kept
    # First turn, 2 tries of the step, 2 summaries. Rule changed on purpose (a compaction never
    # makes the view larger): the second summary would not shrink the view, so nothing changed
    # and the step is not tried a third time (it was 6 requests).
    assert len(fake_server.requests) == 5
