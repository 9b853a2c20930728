"""The litellm adapter over real HTTP, against the fake OpenAI-compatible server."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer

from goosectx.config import ModelConfig, Settings, load_settings
from goosectx.conversation import (
    Message,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.errors import (
    AuthFailed,
    ConfigError,
    ContextLengthExceeded,
    ModelNotConfigured,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from goosectx.providers.base import ProviderResponse, TextDelta, ThinkingDelta, complete
from goosectx.providers.litellm_credentials import PLACEHOLDER_API_KEY
from goosectx.providers.litellm_provider import (
    MAX_RETRIES,
    LiteLLMProvider,
    make_provider,
)

SHELL_SCHEMA = {"name": "shell", "description": "Run a command.",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}


def provider_for(server: FakeServer, model: str = "openai/fake-model", **config: object
                 ) -> LiteLLMProvider:
    settings = Settings(model=model, models={model: ModelConfig(api_base=server.base_url,
                                                                **config)})  # type: ignore[arg-type]
    return make_provider(settings)


def call(provider: LiteLLMProvider, text: str = "hi", **kwargs: object
         ) -> tuple[list[object], ProviderResponse]:
    items = list(provider.stream("You are a test.", [Message.user(text)], [SHELL_SCHEMA],
                                 **kwargs))  # type: ignore[arg-type]
    final = items[-1]
    assert isinstance(final, ProviderResponse)
    return items[:-1], final


def test_streams_text_in_pieces_and_asks_for_usage(fake_server: FakeServer) -> None:
    fake_server.add({"text": "Hello from the fake model!", "chunk_chars": 5,
                     "usage": {"prompt_tokens": 31, "completion_tokens": 7}})
    deltas, final = call(provider_for(fake_server))
    assert [d.text for d in deltas if isinstance(d, TextDelta)] == [
        "Hello", " from", " the ", "fake ", "model", "!"]
    assert final.message.text == "Hello from the fake model!"
    assert final.message.role == "assistant"
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (31, 7)
    assert final.usage.total_tokens == 38
    assert final.usage.cost_usd is None  # an unpriced model's cost is unknown, not 0
    body = fake_server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][0] == {"role": "system", "content": "You are a test."}
    assert body["tools"][0]["function"]["name"] == "shell"


def test_cost_comes_from_litellm_for_a_priced_model(fake_server: FakeServer) -> None:
    fake_server.add({"text": "ok", "usage": {"prompt_tokens": 1000, "completion_tokens": 500}})
    _, final = call(provider_for(fake_server, "openai/gpt-4o-mini"))
    assert final.usage is not None and final.usage.cost_usd == pytest.approx(0.00045)


def test_unreported_usage_is_none_not_litellms_own_count(fake_server: FakeServer) -> None:
    # litellm would report its own count of the messages as if the server had sent it; the
    # caller must see "unknown" and use (and label) its estimate (issue 8, llama.cpp).
    fake_server.add({"text": "ok", "usage": None})
    _, final = call(provider_for(fake_server))
    assert final.message.text == "ok"
    assert final.usage is None


def test_streamed_tool_calls_are_assembled(fake_server: FakeServer) -> None:
    fake_server.add({"text": "Let me look.", "chunk_chars": 3, "tool_calls": [
        {"name": "shell", "arguments": {"command": "ls -la /tmp"}, "id": "call_a"},
        {"name": "text_editor", "arguments": {"command": "view", "path": "x.py"},
         "id": "call_b"},
    ]})
    _, final = call(provider_for(fake_server))
    assert final.finish_reason == "tool_calls"
    assert final.message.tool_requests == [
        ToolRequest("call_a", "shell", {"command": "ls -la /tmp"}),
        ToolRequest("call_b", "text_editor", {"command": "view", "path": "x.py"}),
    ]
    assert final.message.text == "Let me look."


def test_malformed_tool_arguments_become_a_parse_error(fake_server: FakeServer) -> None:
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": '{"command": "ls'},
                                    {"name": "shell", "arguments": "[1, 2]"}]})
    _, final = call(provider_for(fake_server))
    first, second = final.message.tool_requests
    assert first.arguments is None and first.raw_arguments == '{"command": "ls'
    assert first.parse_error is not None and "not valid JSON" in first.parse_error
    assert second.parse_error is not None and "JSON object" in second.parse_error


def test_reasoning_is_streamed_and_kept(fake_server: FakeServer) -> None:
    fake_server.add({"reasoning": "think think", "text": "answer"})
    deltas, final = call(provider_for(fake_server))
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == "think think"
    assert final.message.content[0] == ThinkingContent("think think")
    assert final.message.text == "answer"


def test_history_is_sent_in_openai_shape(fake_server: FakeServer) -> None:
    fake_server.add({"text": "ok"})
    request = ToolRequest("call_1", "shell", {"command": "echo hi"})
    bad = ToolRequest("call_2", "shell", None, "arguments are not valid JSON", "{oops")
    history = [
        Message.user("run it"),
        Message("assistant", (ThinkingContent("plan", "sig-123"), TextContent("Running."),
                              request, bad)),
        Message("user", (ToolResponse("call_1", "hi\n"), ToolResponse("call_2", "bad", True),
                         TextContent("and now?"))),
    ]
    list(provider_for(fake_server).stream("sys", history, [SHELL_SCHEMA]))
    sent = fake_server.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool", "user"]
    assistant = sent[2]
    assert assistant["content"] == "Running."
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [
        '{"command":"echo hi"}', "{}"]
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "hi\n"}
    assert sent[5] == {"role": "user", "content": "and now?"}


@pytest.mark.parametrize("reply", [
    {"error": "context_length"},
    {"error": "llama_context"},
    {"status": 400, "body": {"error": {"message": "prompt is too long: 210000 tokens > 200000"
                                                  " maximum", "type": "invalid_request_error"}}},
    {"status": 400, "body": {"error": {"message": "Input has too many tokens for this model"}}},
])
def test_context_window_rejections_are_recognised(fake_server: FakeServer, reply: dict) -> None:
    fake_server.add(reply)
    with pytest.raises(ContextLengthExceeded):
        call(provider_for(fake_server))
    assert len(fake_server.requests) == 1  # not retried


@pytest.mark.parametrize("error", ["context_length", "llama_context"])
def test_the_window_a_context_rejection_states_becomes_the_context_limit(
        fake_server: FakeServer, error: str) -> None:
    # OpenAI says it in the message; llama-server only in the body's "n_ctx" (litellm's
    # message drops it): either way the next request is planned for 8,192, not 128,000.
    fake_server.add({"error": error})
    provider = provider_for(fake_server, context_limit=128_000)
    with pytest.raises(ContextLengthExceeded):
        call(provider)
    assert provider.context_limit().tokens == 8192


def test_bad_key_is_auth_failed_naming_the_variable(fake_server: FakeServer) -> None:
    fake_server.add({"error": "auth"})
    with pytest.raises(AuthFailed) as info:
        call(provider_for(fake_server))
    assert "OPENAI_API_KEY" in info.value.one_line()
    assert len(fake_server.requests) == 1


def test_rate_limit_is_retried_then_reported(fake_server: FakeServer) -> None:
    fake_server.add(*[{"error": "rate_limit"}] * (MAX_RETRIES + 1))
    with pytest.raises(RateLimited) as info:
        call(provider_for(fake_server))
    assert len(fake_server.requests) == MAX_RETRIES + 1
    assert f"after {MAX_RETRIES} retries" in info.value.one_line()


def test_server_errors_are_retried_then_reported(fake_server: FakeServer) -> None:
    fake_server.add(*[{"error": "server_error"}] * (MAX_RETRIES + 1))
    with pytest.raises(ProviderUnavailable) as info:
        call(provider_for(fake_server))
    assert len(fake_server.requests) == MAX_RETRIES + 1
    assert fake_server.base_url in info.value.one_line()


def test_a_transient_error_then_success_is_invisible(fake_server: FakeServer) -> None:
    fake_server.add({"error": "server_error"}, {"error": "rate_limit"}, {"text": "made it"})
    _, final = call(provider_for(fake_server))
    assert final.message.text == "made it"
    assert len(fake_server.requests) == 3


def test_timeouts_are_retried_then_reported(fake_server: FakeServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSECTX_REQUEST_TIMEOUT_S", "0.2")
    fake_server.add(*[{"text": "late", "delay_s": 0.6}] * (MAX_RETRIES + 1))
    with pytest.raises(ProviderUnavailable):
        call(provider_for(fake_server))
    assert len(fake_server.requests) == MAX_RETRIES + 1


def test_other_rejections_are_reported_without_retry(fake_server: FakeServer) -> None:
    fake_server.add({"status": 404, "body": {"error": {"message": "model nope not found"}}})
    with pytest.raises(ProviderError) as info:
        call(provider_for(fake_server))
    assert "not found" in info.value.one_line()
    assert len(fake_server.requests) == 1


def test_cancel_mid_stream_keeps_the_text_so_far(fake_server: FakeServer) -> None:
    hold = threading.Event()
    fake_server.add({"text": "partial answer that never finishes", "chunk_chars": 8,
                     "tool_calls": [{"name": "shell", "arguments": {"command": "ls"}}],
                     "hold": hold})
    cancel = threading.Event()
    seen: list[str] = []
    try:
        for item in provider_for(fake_server).stream("s", [Message.user("x")], [SHELL_SCHEMA],
                                                     cancel=cancel):
            if isinstance(item, TextDelta):
                seen.append(item.text)
                cancel.set()
            final = item
    finally:
        hold.set()
    assert isinstance(final, ProviderResponse)
    assert final.finish_reason == "cancelled"
    assert final.message.text == "partial " == "".join(seen)
    assert final.message.tool_requests == []


def test_complete_helper_returns_the_final_reply(fake_server: FakeServer) -> None:
    fake_server.add({"text": "summary text"})
    final = complete(provider_for(fake_server), "summarise", [Message.user("long story")])
    assert final.message.text == "summary text"
    assert "tools" not in fake_server.requests[0]


# -- configuration: limits, keys, model ---------------------------------------------------

def test_context_limit_precedence(monkeypatch: pytest.MonkeyPatch, isolated_env: dict) -> None:
    model = "openai/gpt-4o-mini"
    isolated_env["config"].write_text(
        f'context_limit = 50000\n[models."{model}"]\ncontext_limit = 64000\n')
    settings = load_settings()
    assert make_provider(settings, model).context_limit().tokens == 64_000
    assert make_provider(settings, model).context_limit().source.startswith("config")
    assert make_provider(settings, "openai/other").context_limit().tokens == 50_000
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "32000")
    env_settings = load_settings()
    limit = make_provider(env_settings, model).context_limit()
    assert (limit.tokens, limit.source) == (32_000, "env GOOSE_CONTEXT_LIMIT")
    # the summariser's limit is its own model's
    summarizer = make_provider(env_settings, model, role="summarizer").context_limit()
    assert summarizer.tokens == 64_000
    plain = Settings()
    info = make_provider(plain, model).context_limit()
    assert (info.tokens, info.source) == (128_000, "litellm model info")
    unknown = make_provider(plain, "openai/no-such-model").context_limit()
    assert (unknown.tokens, unknown.source) == (128_000, "default")
    assert make_provider(Settings(), "anthropic/claude-sonnet-4-20250514").context_limit() \
        .tokens == 200_000


def test_output_limit(fake_server: FakeServer) -> None:
    assert make_provider(Settings(), "openai/gpt-4o-mini").output_limit_tokens() == 16_384
    assert make_provider(Settings(), "openai/no-such-model").output_limit_tokens() == 4_096
    assert provider_for(fake_server, max_output_tokens=777).output_limit_tokens() == 777


def test_manages_own_context_comes_from_config(fake_server: FakeServer) -> None:
    assert provider_for(fake_server, manages_own_context=True).manages_own_context is True
    assert provider_for(fake_server).manages_own_context is False


def test_no_model_is_a_clear_error() -> None:
    with pytest.raises(ModelNotConfigured) as info:
        make_provider(Settings())
    assert "GOOSE_MODEL" in info.value.one_line()


def test_hosted_provider_without_key_names_the_variable() -> None:
    provider = make_provider(Settings(model="anthropic/claude-sonnet-4-20250514"))
    with pytest.raises(AuthFailed) as info:
        provider.check_credentials()
    assert "ANTHROPIC_API_KEY" in info.value.one_line()
    with pytest.raises(AuthFailed):
        list(provider.stream("s", [Message.user("x")], []))


def test_configured_key_variable_must_be_set(fake_server: FakeServer,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    provider = provider_for(fake_server, api_key_env="MY_LLM_KEY")
    with pytest.raises(AuthFailed) as info:
        provider.check_credentials()
    assert "MY_LLM_KEY" in info.value.one_line()
    monkeypatch.setenv("MY_LLM_KEY", "sk-from-my-variable")
    fake_server.add({"text": "ok"})
    call(provider_for(fake_server, api_key_env="MY_LLM_KEY"))
    assert fake_server.headers[0]["authorization"] == "Bearer sk-from-my-variable"


def test_api_base_without_key_sends_a_placeholder(fake_server: FakeServer) -> None:
    fake_server.add({"text": "ok"})
    call(provider_for(fake_server))
    assert fake_server.headers[0]["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"


def test_litellm_environment_variables_keep_working(fake_server: FakeServer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    fake_server.add({"text": "via env"}, {"text": "with key"})
    provider = make_provider(Settings(model="openai/fake-model"))
    assert call(provider)[1].message.text == "via env"
    assert fake_server.headers[0]["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    assert call(make_provider(Settings(model="openai/fake-model")))[1].message.text == "with key"
    assert fake_server.headers[1]["authorization"] == f"Bearer {DUMMY_API_KEY}"


def test_importing_the_core_does_not_import_litellm() -> None:
    code = ("import sys, goosectx.agent, goosectx.runtime, goosectx.cli.run_cmd, "
            "goosectx.providers.litellm_provider as p; p.make_provider; "
            "assert 'litellm' not in sys.modules, 'litellm imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_info_and_model_switch_helpers(fake_server: FakeServer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.providers.litellm_provider import resolve_context_limit
    from goosectx.runtime import build_provider

    assert resolve_context_limit(Settings(), "openai/gpt-4o-mini").source == "litellm model info"
    with pytest.raises(AuthFailed):
        build_provider(Settings(), "anthropic/claude-sonnet-4-20250514")
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    assert build_provider(Settings(), "openai/x").model == "openai/x"


@pytest.mark.parametrize("reply", [
    {"error": "server_error"},  # "…while processing your request."
    {"status": 503, "body": {"error": {"message": "upstream unavailable"}}},
    {"status": 503, "body": {"error": {"message": "upstream unavailable..."}}},
], ids=["final period", "no period", "ellipsis"])
def test_the_give_up_line_reads_cleanly_whatever_the_provider_text_ends_with(
        fake_server: FakeServer, reply: dict) -> None:
    fake_server.add(*[reply] * (MAX_RETRIES + 1))
    with pytest.raises(ProviderUnavailable) as info:
        call(provider_for(fake_server))
    line = info.value.one_line()
    assert f"after {MAX_RETRIES} retries" in line and "check the server's log" in line
    assert ". —" not in line and ". ;" not in line and ".;" not in line, line
    assert "— still" not in line and line.count(" — ") == 1, line
    assert ("your request" in line) if reply.get("error") else ("upstream unavailable" in line)


def test_an_error_whose_provider_text_ends_with_a_period_joins_its_fix_cleanly(
        fake_server: FakeServer) -> None:
    fake_server.add({"error": "auth"})  # "Incorrect API key provided."
    with pytest.raises(AuthFailed) as info:
        call(provider_for(fake_server))
    line = info.value.one_line()
    assert "Incorrect API key provided — check OPENAI_API_KEY" in line, line


def test_a_long_tool_call_is_not_rebuilt_from_its_chunks_after_the_stream(
        fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # litellm's end-of-stream rebuild walks every chunk again (over a minute after 2 MB of
    # arguments in 8-character chunks; bench/tool_args_stream.py): the reply and the server's
    # usage come out the same without it.
    from goosectx.providers.litellm_stream import load_litellm

    litellm = load_litellm()
    rebuilt: list[int] = []
    real = litellm.stream_chunk_builder
    monkeypatch.setattr(litellm, "stream_chunk_builder",
                        lambda *a, **k: rebuilt.append(1) or real(*a, **k))
    command = "printf '%s' " + "x" * 4000
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": {"command": command}}],
                     "usage": {"prompt_tokens": 40, "completion_tokens": 1100}})
    _, final = call(provider_for(fake_server))
    (request,) = final.message.tool_requests
    assert request.name == "shell" and request.arguments == {"command": command}
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (40, 1100)
    assert final.finish_reason == "tool_calls"
    assert rebuilt == []


def test_an_unknown_model_is_blamed_on_what_the_user_typed(tmp_path: Path) -> None:
    # /model NAME builds its provider with runtime.build_provider; the REPL prints the message.
    from goosectx import runtime

    settings = Settings(data_dir=tmp_path)
    with pytest.raises(ConfigError) as typed_in_the_repl:
        runtime.build_provider(settings, "nonsense-model-xyz")
    assert typed_in_the_repl.value.message == (
        "litellm does not know which provider serves 'nonsense-model-xyz' (/model)")
    with pytest.raises(ConfigError) as given_as_flag:
        make_provider(settings, "nonsense-model-xyz").check_credentials()
    assert given_as_flag.value.message.endswith("(--model)")
