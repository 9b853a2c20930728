"""Per-chunk work of a streamed reply stays constant (no timings: counts and sizes).

A long tool call arrives as thousands of small chunks (bench/tool_args_stream.py); any step
that walks everything received so far on each chunk makes the stream quadratic.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Generator, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from fakeserver import FakeServer
from rich.console import Console

from goosectx import stream_reply as stream_reply_module
from goosectx.cli import startup
from goosectx.cli.driver import TurnDriver
from goosectx.cli.render import TranscriptRenderer
from goosectx.compaction.manager import RequestContext
from goosectx.config import ModelConfig, Settings
from goosectx.conversation import Conversation, Message, ToolRequest
from goosectx.providers import litellm_call, litellm_stream, openai_format
from goosectx.providers.base import ProviderResponse, ToolCallDelta
from goosectx.providers.litellm_provider import make_provider

SHELL_SCHEMA = {"name": "shell", "description": "Run a command.",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}
CHUNKS = 3000


def _stream(server: FakeServer, reply: dict[str, Any]) -> tuple[list[object], ProviderResponse]:
    model = "openai/fake-model"
    server.add(reply)
    provider = make_provider(Settings(model=model,
                                      models={model: ModelConfig(api_base=server.base_url)}))
    items = list(provider.stream("s", [Message.user("go")], [SHELL_SCHEMA]))  # type: ignore[list-item]
    final = items[-1]
    assert isinstance(final, ProviderResponse)
    return items[:-1], final


def test_litellm_keeps_a_bounded_number_of_chunks_and_the_usage_survives(
        fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # litellm keeps every chunk (~5 KB each) for a rebuild goosectx skips: 190 MB after 300 KB
    # of arguments in 8-character chunks. The list must stay short, the reply and usage whole.
    sizes: list[int] = []

    class Watched(litellm_stream.ChunkTrimmer):
        def __call__(self) -> None:
            super().__call__()
            sizes.append(len(self._chunks or ()))

    monkeypatch.setattr(litellm_call, "ChunkTrimmer", Watched)
    command = "x" * (8 * CHUNKS)
    _, final = _stream(fake_server, {
        "tool_calls": [{"name": "shell", "arguments": {"command": command}}],
        "usage": {"prompt_tokens": 41, "completion_tokens": 6001}})
    (request,) = final.message.tool_requests
    assert request.arguments == {"command": command}
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (41, 6001)
    assert len(sizes) > CHUNKS  # it watched every chunk
    assert max(sizes) < 2 * litellm_stream.KEPT_CHUNKS + 1


def test_a_usage_chunk_in_the_middle_is_kept_by_the_trim() -> None:
    class Chunk:
        def __init__(self, usage: object = None) -> None:
            self.usage = usage

    response = SimpleNamespace(chunks=[])
    trim = litellm_stream.ChunkTrimmer(response)
    early = Chunk(usage={"prompt_tokens": 7})
    for i in range(5 * litellm_stream.KEPT_CHUNKS):
        response.chunks.append(early if i == 3 else Chunk())
        trim()
    assert response.chunks[0] is early
    assert len(response.chunks) < 2 * litellm_stream.KEPT_CHUNKS + 1
    assert litellm_stream.server_usage(response) == {"prompt_tokens": 7}


def test_tool_arguments_are_joined_and_parsed_once_per_call_not_per_chunk(
        fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[int] = []
    real = openai_format.parse_arguments
    monkeypatch.setattr(openai_format, "parse_arguments",
                        lambda raw: parsed.append(len(raw)) or real(raw))
    command = "y" * (8 * CHUNKS)
    _, final = _stream(fake_server, {"tool_calls": [
        {"name": "shell", "arguments": {"command": command}},
        {"name": "shell", "arguments": {"command": "ls"}}]})
    assert [r.arguments for r in final.message.tool_requests] == [
        {"command": command}, {"command": "ls"}]
    assert len(parsed) == 2


@pytest.mark.parametrize("over", [False, True])
def test_arguments_in_8_character_chunks_arrive_whole_up_to_the_cap_and_stop_past_it(
        fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch, over: bool) -> None:
    # A model writing a file streams its arguments a few characters at a time; they must
    # arrive whole, and past the cap the call stops with the one-line error and its hint.
    from goosectx.errors import ProviderError
    from goosectx.providers import litellm_provider

    cap = 8 * CHUNKS
    monkeypatch.setattr(litellm_provider, "MAX_TOOL_ARGUMENT_CHARS", cap)
    wrapper = len('{"command": ""}')
    command = "z" * (cap - wrapper + (1 if over else 0))
    reply = {"chunk_chars": 8, "tool_calls": [{"name": "shell", "arguments": {"command": command}}]}
    if not over:
        _, final = _stream(fake_server, reply)
        assert [r.arguments for r in final.message.tool_requests] == [{"command": command}]
        return
    with pytest.raises(ProviderError) as raised:
        _stream(fake_server, reply)
    assert f"streamed more than {cap:,} characters of tool-call arguments" in raised.value.message
    assert "write the file in parts" in (raised.value.hint or "")


class _ToolCallProvider:
    """Streams one tool call as ``pieces`` argument chunks of 64 characters."""

    model = "fake"

    def __init__(self, pieces: int) -> None:
        self.pieces = pieces

    def stream(self, *args: object, **kwargs: object) -> Iterator[object]:
        for i in range(1, self.pieces + 1):
            yield ToolCallDelta("shell", 64 * i)
        yield ProviderResponse(Message("assistant", (ToolRequest("c1", "shell", {}),)), None,
                               "fake", "tool_calls")


def test_a_streaming_tool_call_reports_its_size_a_few_times_a_second(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(0.05 * i for i in range(10_000))  # each chunk arrives 50 ms after the last
    monkeypatch.setattr(stream_reply_module.time, "monotonic", lambda: next(clock))
    shown: list[str] = []
    events = stream_reply_module.stream_reply(
        _ToolCallProvider(200), RequestContext("sys"), Conversation(), [], threading.Event(),
        writing=shown.append)
    assert _drain(events) == []  # progress is no event: not stored, not in run
    # 200 chunks over 10 s: one text every 0.25 s at most, never one per chunk
    assert 30 <= len(shown) <= 40
    assert shown[0] == "writing tool call shell… 0.4 KB"
    assert shown[-1] == "writing tool call shell… 12 KB"  # 200 × 64 characters


def test_a_short_tool_call_shows_no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(0.001 * i for i in range(10_000))
    monkeypatch.setattr(stream_reply_module.time, "monotonic", lambda: next(clock))
    shown: list[str] = []
    _drain(stream_reply_module.stream_reply(
        _ToolCallProvider(20), RequestContext("sys"), Conversation(), [], threading.Event(),
        writing=shown.append))
    assert shown == []


def test_large_sizes_read_in_whole_kilobytes() -> None:
    assert stream_reply_module.writing_text(ToolCallDelta("text_editor", 300_000)) == (
        "writing tool call text_editor… 293 KB")


def _drain(events: Generator[object, None, object]) -> list[object]:
    out: list[object] = []
    while True:
        try:
            out.append(next(events))
        except StopIteration:
            return out


@pytest.mark.parametrize("plain", [True, False])
def test_the_repl_shows_the_progress_as_spinner_text_only(plain: bool) -> None:
    # A terminal gets the text on its spinner line; the plain look (and a console that is not
    # a terminal) gets no line per update. Nothing is handed to the recorder either.
    console = Console(file=io.StringIO(), force_terminal=not plain, width=80)
    renderer = TranscriptRenderer(console, plain=plain)
    recorded: list[object] = []
    spinner_texts: list[str] = []
    renderer.waiting = lambda text="thinking…": spinner_texts.append(text)  # type: ignore[method-assign]
    driver = TurnDriver(renderer, on_event=recorded.append, ask=lambda *a: "deny",
                        on_failure=lambda e: None, quiet_terminal=False)

    def turn(cancel: threading.Event) -> Iterator[Any]:
        driver.spinner("writing tool call shell… 120 KB")
        return iter(())

    driver.run(turn)
    assert recorded == []
    assert "writing tool call" not in console.file.getvalue()  # type: ignore[attr-defined]
    if plain:
        assert "writing tool call shell… 120 KB" not in spinner_texts
    else:
        assert "writing tool call shell… 120 KB" in spinner_texts


def test_keys_typed_while_the_model_client_loads_are_not_echoed_on_the_spinner_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # "⠏ loading the model client…after undo" — the terminal echoed typing onto the spinner.
    log: list[str] = []

    class Echo:
        def __init__(self, enabled: bool) -> None:
            self.enabled = enabled

        def off(self) -> None:
            log.append(f"echo off={self.enabled}")

        def restore(self) -> None:
            log.append("echo restored")

    monkeypatch.setattr(startup, "TerminalEcho", Echo)
    renderer = TranscriptRenderer(Console(file=io.StringIO()))
    renderer.waiting = lambda text="": log.append(text)  # type: ignore[method-assign]
    loader = startup.AgentLoader(Settings(), build=lambda: None,  # type: ignore[arg-type,return-value]
                                 fallback=lambda: None, model_name=None)  # type: ignore[arg-type,return-value]
    release = threading.Event()
    loader._thread = threading.Thread(target=release.wait, daemon=True)
    loader._thread.start()
    threading.Timer(0.2, release.set).start()
    assert loader.wait(renderer, quiet_terminal=True)
    assert log == ["echo off=True", "loading the model client…", "echo restored"]
