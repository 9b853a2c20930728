"""Per-chunk work of a streamed reply stays constant (no timings: counts and sizes).

A long tool call arrives as thousands of small chunks (bench/tool_args_stream.py); any step
that walks everything received so far on each chunk makes the stream quadratic.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from fakeserver import FakeServer

from goosectx.config import ModelConfig, Settings
from goosectx.conversation import Message
from goosectx.providers import litellm_provider, litellm_stream, openai_format
from goosectx.providers.base import ProviderResponse
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

    monkeypatch.setattr(litellm_provider, "ChunkTrimmer", Watched)
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
