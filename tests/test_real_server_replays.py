"""Behaviours recorded from a real llama.cpp server, replayed through the fake server.

The fixtures in ``tests/fixtures/llama_cpp/`` were written by ``bench/llama_server.py
--record`` against llama-cpp-python 0.3.36 (``chatml-function-calling``, ``n_ctx`` 4096, the
gemma3-270m GGUF): status codes, error bodies and event streams exactly as that server sent
them. Each test replays one of them and asserts what a user of goosectx would notice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli
from fakeserver import FakeServer

from goosectx.compaction.summary import quoted_reply
from goosectx.config import load_settings
from goosectx.conversation import Message, ToolRequest
from goosectx.errors import ContextLengthExceeded
from goosectx.providers.base import ProviderResponse, TextDelta
from goosectx.providers.litellm_provider import make_provider
from goosectx.store import SessionStore

FIXTURES = Path(__file__).parent / "fixtures" / "llama_cpp"
MODEL = "openai/gemma3-270m"

# litellm's first completion after a model-info lookup imports a module whose pydantic schema
# warns (only under pytest's warning capture; a user sees nothing). Not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")


def recorded(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{name}.json").read_text()))


def replay(name: str) -> dict[str, Any]:
    """A fake-server reply that sends what the real server sent for probe ``name``."""
    fixture = recorded(name)
    if fixture["sse"] is not None:
        return {"sse": fixture["sse"]}
    return {"status": fixture["status"], "body": fixture["body"]}


def configure(config_path: Path, server: FakeServer, **extra: object) -> None:
    """The model table a llama.cpp user writes: api_base, the server's n_ctx, no key."""
    lines = [f'model = "{MODEL}"', f'[models."{MODEL}"]', f'api_base = "{server.base_url}"',
             "context_limit = 4096", *(f"{k} = {json.dumps(v)}" for k, v in extra.items())]
    config_path.write_text("\n".join(lines) + "\n")


def stored_messages(session: str) -> list[Message]:
    store = SessionStore(load_settings().data_dir)
    try:
        (summary,) = [s for s in store.list_sessions() if session in (s.id, s.name)]
        return list(store.load(summary.id).conversation)
    finally:
        store.close()


def stream(server: FakeServer, **config: object) -> tuple[list[object], ProviderResponse]:
    settings = load_settings()
    settings.models[MODEL] = settings.model_config(MODEL).__class__(
        api_base=server.base_url, **config)  # type: ignore[arg-type]
    provider = make_provider(settings, MODEL)
    items = list(provider.stream("You are a test.", [Message.user("hi")], []))
    final = items[-1]
    assert isinstance(final, ProviderResponse)
    return items[:-1], final


# -- over the window: a 200 with an empty stream, the real error only without streaming ------
def test_recorded_over_context_stream_is_empty_and_the_plain_call_says_why() -> None:
    assert recorded("over_context_stream")["status"] == 200
    assert recorded("over_context_stream")["sse"] == []
    body = recorded("over_context_json")["body"]
    assert recorded("over_context_json")["status"] == 400
    assert body["error"]["code"] == "context_length_exceeded"


def test_an_empty_stream_is_asked_again_without_streaming_and_raises_the_context_error(
        fake_server: FakeServer) -> None:
    fake_server.add(replay("over_context_stream"), replay("over_context_json"))
    with pytest.raises(ContextLengthExceeded) as error:
        stream(fake_server)
    assert "maximum context length is 4096 tokens" in error.value.message
    streamed, plain = fake_server.requests
    assert streamed["stream"] is True
    assert plain.get("stream") in (False, None) and "stream_options" not in plain
    assert plain["messages"] == streamed["messages"]


def test_run_compacts_reactively_when_the_real_server_rejects_the_window(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    configure(isolated_env["config"], fake_server)
    fake_server.add({"text": "Noted."})
    cli(capsys, "run", "--name", "grow", "-t", "Here is a long file: " + "lorem " * 300)
    fake_server.add(
        replay("over_context_stream"), replay("over_context_json"),  # the turn's call
        replay("plain_stream"),  # the summary: the model's raw, non-JSON text
        replay("plain_stream"),  # the same step again, after compaction
    )
    out, err = cli(capsys, "run", "--resume", "grow", "-t", "And another one: " + "ipsum " * 300)
    assert "context compacted (reactive)" in err
    assert out.strip() == "Say hello."
    messages = stored_messages("grow")
    summary = next(m for m in messages if m.metadata.is_summary)
    # The raw, non-JSON reply is kept first, labelled and quoted; being tiny, an extractive
    # summary follows it.
    assert summary.text.startswith(quoted_reply("Say hello."))
    assert "# Conversation Summary" in summary.text
    assert not summary.metadata.user_visible and summary.metadata.agent_visible
    assert [m.text for m in messages if m.metadata.user_visible and m.role == "user"][:2] == [
        "Here is a long file: " + "lorem " * 300, "And another one: " + "ipsum " * 300]
    assert len(fake_server.requests) == 5


def test_a_summary_calls_empty_stream_is_asked_once_more_in_the_same_attempt_billed_once(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """test28c L3: the no-chunk fallback sends a summary call twice; it is one call of one
    attempt, billed once with the usage the plain reply reports (README's Failures item)."""
    configure(isolated_env["config"], fake_server)
    fake_server.add({"text": "Noted."})
    cli(capsys, "run", "--name", "twice", "-t", "Here is a long file: " + "lorem " * 300)
    fake_server.add(
        replay("over_context_stream"), replay("over_context_json"),  # the turn's call
        {"sse": []},  # the summary call: a 200 with no chunk
        {"text": '{"user_intent": "read the long file", "next_step": "answer"}',
         "usage": {"prompt_tokens": 700, "completion_tokens": 21}},  # asked without streaming
        {"text": "Done."})
    _, err = cli(capsys, "run", "--resume", "twice", "-t", "And another one: " + "ipsum " * 300)
    assert "context compacted (reactive)" in err and "did not follow" not in err
    summary = next(m for m in stored_messages("twice") if m.metadata.is_summary)
    assert "read the long file" in summary.text
    streamed, plain = fake_server.requests[3:5]
    assert streamed["stream"] is True and plain.get("stream") in (False, None)
    store = SessionStore(load_settings().data_dir)
    try:
        (listed,) = store.list_sessions()
        entries = store.load(listed.id).ledger.entries
    finally:
        store.close()
    assert [(e.usage.input_tokens, e.usage.output_tokens) for e in entries
            if e.purpose == "compaction"] == [(700, 21)]


def real_window(reply: dict[str, Any]) -> Any:
    """Answer like the recorded server whose window is just under the first request we send.

    Over the window: the recorded empty stream when streamed, the recorded 400 when not.
    """
    window: list[int] = []

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        size = len(json.dumps(body["messages"]))
        window.append(window[0] if window else size - 1)
        if size > window[0]:
            return replay("over_context_stream") if body.get("stream") else replay(
                "over_context_json")
        return reply
    return answer


def test_manual_compact_steps_down_when_the_real_server_rejects_the_summary_request(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    # Our tiktoken estimate runs 5-25 % under the server's tokenizer (token_counts.json), so a
    # summary request we think fits can still be over the real window.
    configure(isolated_env["config"], fake_server, max_output_tokens=96)
    fake_server.add({"text": "Noted."}, {"text": "Noted again."})
    cli(capsys, "run", "--name", "work", "-t", "first part " + "alpha " * 800)
    cli(capsys, "run", "--resume", "work", "-t", "second part " + "beta " * 800)
    before = stored_messages("work")
    fake_server.default_reply = real_window(replay("plain_stream"))  # type: ignore[assignment]
    out, _ = cli(capsys, "compact", "work", "--json")
    result = json.loads(out)
    assert result["strategy"] == "llm" and result["tokens_after"] < result["tokens_before"]
    after = stored_messages("work")
    old_ids = [m.id for m in before]
    old = [m for m in after if m.id in set(old_ids)]
    assert [m.id for m in old] == old_ids  # nothing lost, in order
    assert all(m.metadata.user_visible for m in old)
    # the head is hidden from the model; the finished turn's answer may stay in the tail
    assert [m.text for m in old if m.metadata.agent_visible] in ([], ["Noted again."])
    summary = next(m for m in after if m.metadata.is_summary)
    # the model's raw, non-JSON text kept first (an extractive summary follows a reply this tiny)
    assert summary.text.startswith(quoted_reply("Say hello."))
    summary_calls = fake_server.requests[2:]
    rejected, accepted = summary_calls[0], summary_calls[-1]
    assert len(json.dumps(accepted["messages"])) < len(json.dumps(rejected["messages"]))


def words_window(window_words: int, reply: dict[str, Any]) -> Any:
    """Answer like the recorded server with a window of ``window_words`` (1 word ≈ 1 token).

    Over the window: the recorded empty stream when streamed, the recorded 400 (which states
    "maximum context length is 4096 tokens") when not.
    """
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(body["messages"]).split()) <= window_words:
            return reply
        return replay("over_context_stream") if body.get("stream") else replay(
            "over_context_json")
    return answer


def _server_states_4096_on_resume(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """A session "big" whose second turn met a server of 4096 words configured as 32k: it was
    rejected and compacted (reactive); the second run's stderr."""
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "32768")
    configure(isolated_env["config"], fake_server, max_output_tokens=96)
    fake_server.default_reply = words_window(4096, replay("plain_stream"))  # type: ignore[assignment]
    cli(capsys, "run", "--name", "big", "-t", "lorem " * 3000)
    _, err = cli(capsys, "run", "--resume", "big", "-t", "ipsum " * 3000)
    assert "context compacted (reactive)" in err
    return err


def test_a_window_the_server_states_replaces_a_wrong_configured_limit(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The user believes the model's trained 32k; the server runs n_ctx 4096. Compaction must
    # aim at the window the server states, or no summary request and no retry can ever fit.
    err = _server_states_4096_on_resume(fake_server, isolated_env, capsys, monkeypatch)
    assert "summary call failed" not in err  # the model wrote it, not the extractive fallback
    messages = stored_messages("big")
    assert messages[-1].role == "assistant" and messages[-1].text == "Say hello."
    summary = next(m for m in messages if m.metadata.is_summary)
    assert summary.text.startswith(quoted_reply("Say hello."))
    accepted = [r for r in fake_server.requests
                if len(json.dumps(r["messages"]).split()) <= 4096]
    assert len(accepted) == 3  # first turn, the summary, the retried step


def test_a_window_the_server_stated_is_kept_with_the_session_for_the_next_process(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The server stated 4096 in one process; the next `run --resume` (a new process, the same
    # configuration) starts from it: compacts before sending instead of a second rejection,
    # and `info` shows the limit with where it came from.
    err = _server_states_4096_on_resume(fake_server, isolated_env, capsys, monkeypatch)
    sent = len(fake_server.requests)
    _, err = cli(capsys, "run", "--resume", "big", "-t", "dolor " * 2500)
    assert "rejected the request as too long" not in err
    assert all(len(json.dumps(r["messages"]).split()) <= 4096
               for r in fake_server.requests[sent:])  # no request over the stated window
    assert stored_messages("big")[-1].text == "Say hello."
    out, _ = cli(capsys, "info", "--session", "big")
    line = next(x for x in out.splitlines() if x.startswith("context limit"))
    assert "4,096 tokens" in line and "stated by the server" in line, line
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "16000")  # a new configured limit replaces it
    out, _ = cli(capsys, "info", "--session", "big")
    line = next(x for x in out.splitlines() if x.startswith("context limit"))
    assert "16,000 tokens" in line, line


# -- usage: never in the stream, even with stream_options.include_usage --------------------
def test_recorded_stream_carries_no_usage() -> None:
    fixture = recorded("plain_stream")
    assert fixture["request"]["stream_options"] == {"include_usage": True}
    assert not any("usage" in json.loads(e) for e in fixture["sse"] if e != "[DONE]")


def test_a_stream_without_usage_reports_none_and_run_labels_its_estimate(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    fake_server.add(replay("plain_stream"))
    deltas, final = stream(fake_server)
    assert [d.text for d in deltas if isinstance(d, TextDelta)] == ["Say", " hello", "."]
    assert final.usage is None and final.finish_reason == "stop"
    configure(isolated_env["config"], fake_server)
    fake_server.add(replay("plain_stream"))
    out, _ = cli(capsys, "run", "--output-format", "stream-json", "-t", "Say hello.")
    events = [json.loads(line) for line in out.splitlines()]
    (usage,) = [e for e in events if e["type"] == "usage_updated"]
    assert usage["is_estimate"] is True and usage["current_tokens"] > 0
    assert usage["call"]["input_tokens"] is None  # unknown, not a 0 the ledger would add up


# -- tool calls: forced by name, every chunk repeats id and name, content must be a string ---
def test_recorded_tool_call_stream_repeats_id_and_name_in_every_chunk() -> None:
    chunks = [json.loads(e) for e in recorded("tool_forced_stream")["sse"] if e != "[DONE]"]
    calls = [c["choices"][0]["delta"]["tool_calls"] for c in chunks
             if c["choices"][0]["delta"].get("tool_calls")]
    assert len(calls) > 2 and all(c[0]["function"]["name"] == "tree" for c in calls)
    assert len({c[0]["id"] for c in calls}) == 1


def test_the_recorded_tool_call_stream_becomes_one_request_with_its_raw_arguments(
        fake_server: FakeServer) -> None:
    chunks = [json.loads(e) for e in recorded("tool_forced_stream")["sse"] if e != "[DONE]"]
    deltas = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks
              if c["choices"][0]["delta"].get("tool_calls")]
    fake_server.add(replay("tool_forced_stream"))
    _, final = stream(fake_server)
    (request,) = final.message.tool_requests
    assert isinstance(request, ToolRequest)
    assert (request.id, request.name) == (deltas[0]["id"], "tree")
    # cut off by max_tokens mid-string, yet finish_reason says tool_calls: a parse error the
    # agent answers, not a crash
    assert final.finish_reason == "tool_calls"
    assert request.parse_error is not None
    assert request.raw_arguments == "".join(d["function"]["arguments"] for d in deltas)


def _llama_validation(reply: dict[str, Any]) -> Any:
    """Answer like the recorded server: a 500 when an assistant message has null content."""
    rejected = replay("tool_history_null_content")

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        nulls = [m for m in body["messages"] if m["role"] == "assistant" and
                 m.get("content") is None]
        return rejected if nulls else reply
    return answer


def test_configured_tool_choice_forces_the_tool_once_and_the_result_goes_back(
        fake_server: FakeServer, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert recorded("tool_history_null_content")["status"] == 500
    assert recorded("tool_choice_required")["status"] == 500  # only a named tool works
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "README.md").write_text("hi\n")
    monkeypatch.chdir(tmp_path / "proj")
    configure(isolated_env["config"], fake_server, tool_choice="tree", max_output_tokens=64)
    fake_server.add(
        {"tool_calls": [{"name": "tree", "arguments": {"path": "."}, "id": "call__0_tree_x"}]},
        _llama_validation({"text": "There is a README."}))
    out, err = cli(capsys, "run", "-t", "Show me the files.")
    assert "There is a README." in out and "> tree" in err
    first, second = fake_server.requests
    assert first["tool_choice"] == {"type": "function", "function": {"name": "tree"}}
    assert "tool_choice" not in second  # forced once per turn, or the model could not answer
    assert first["max_tokens"] == second["max_tokens"] == 64
    assistant = next(m for m in second["messages"] if m["role"] == "assistant")
    assert assistant["content"] == "" and assistant["tool_calls"][0]["id"] == "call__0_tree_x"
    tool = next(m for m in second["messages"] if m["role"] == "tool")
    assert "README.md" in tool["content"]


# -- found while running against the real server -------------------------------------------
def test_debug_logging_keeps_litellm_out_of_stream_json_stdout(
        fake_server: FakeServer, isolated_env: dict[str, Path]) -> None:
    # litellm's own stream handler writes its records below WARNING to stdout; with --debug
    # (goosectx's log level DEBUG) they landed between the stream-json lines.
    import os
    import subprocess
    import sys

    configure(isolated_env["config"], fake_server)
    fake_server.add(replay("plain_stream"))
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOG"}
    done = subprocess.run([sys.executable, "-m", "goosectx", "--debug", "run",
                           "--output-format", "stream-json", "-t", "Say hello."],
                          capture_output=True, text=True, env=env, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and all(line.startswith("{") for line in lines), lines[:3]
    assert "LiteLLM" not in done.stderr
    log = (isolated_env["home"] / "goosectx.log").read_text()
    assert "LiteLLM" in log  # still in the debug log file, where it belongs


def test_a_plain_reply_without_usage_after_an_empty_stream_reports_none(
        fake_server: FakeServer) -> None:
    # litellm's own token count is off (it loaded two encodings for a figure we never take as
    # the server's): a usage it makes up in place of a missing one must not read as reported.
    fake_server.add(replay("over_context_stream"), {"text": "plain answer", "usage": None})
    _, final = stream(fake_server)
    assert final.message.text == "plain answer"
    assert final.usage is None


def test_a_plain_reply_with_usage_after_an_empty_stream_reports_it(
        fake_server: FakeServer) -> None:
    fake_server.add(replay("over_context_stream"),
                    {"text": "plain answer", "usage": {"prompt_tokens": 57, "completion_tokens": 3,
                                                       "total_tokens": 60}})
    _, final = stream(fake_server)
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (57, 3)
