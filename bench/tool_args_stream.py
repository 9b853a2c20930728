"""Streamed tool-call arguments: chunks per second at small and large arguments.

A real :class:`~goosectx.providers.litellm_provider.LiteLLMProvider` streams one tool call
from the OpenAI-compatible fake server (``tests/fakeserver.py``, 127.0.0.1) whose arguments
arrive in 8-character chunks, through litellm's stream object and our assembler, and then
through the agent loop's consumer (``stream_reply``). Per-chunk work must not grow with the
arguments already received: chunks/s at 2 MB should be about that at 100 KB, and so should
the memory the stream holds (``peak RSS +MB``: the process's high-water mark grows by about
the arguments themselves, not by litellm's ~5 KB per chunk it would otherwise keep).

Baseline (same run): the fake server's own stream read with ``httpx`` and split into SSE
lines, no parsing — what any client pays per chunk.

Usage: ``python bench/tool_args_stream.py [KB ...]`` (default ``100 2000``).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeserver import FakeServer  # noqa: E402

from goosectx.config import ModelConfig, Settings  # noqa: E402
from goosectx.conversation import Message  # noqa: E402
from goosectx.providers.base import ProviderResponse  # noqa: E402
from goosectx.providers.litellm_provider import make_provider  # noqa: E402

CHUNK_CHARS = 8
MODEL = "openai/fake-model"
SCHEMA = {"name": "shell", "description": "Run a command.",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}


def _reply(kb: int) -> dict:
    return {"tool_calls": [{"name": "shell", "arguments": {"command": "x" * (kb * 1024)}}],
            "chunk_chars": CHUNK_CHARS}


def goosectx_rate(server: FakeServer, kb: int) -> tuple[float, int]:
    """Chunks/s through the provider's stream; and the argument characters received."""
    server.add(_reply(kb))
    settings = Settings(model=MODEL, models={MODEL: ModelConfig(api_base=server.base_url)},
                        request_deadline_s=3600)  # the old code took over 600 s at 2 MB
    provider = make_provider(settings)
    started = time.perf_counter()
    final = None
    for item in provider.stream("test", [Message.user("go")], [SCHEMA]):  # type: ignore[list-item]
        if isinstance(item, ProviderResponse):
            final = item
    elapsed = time.perf_counter() - started
    assert final is not None
    (request,) = final.message.tool_requests
    chars = len((request.arguments or {}).get("command", ""))
    return (kb * 1024 / CHUNK_CHARS) / elapsed, chars


def baseline_rate(server: FakeServer, kb: int) -> float:
    """Chunks/s of reading the same SSE stream with httpx, lines only."""
    import httpx

    server.add(_reply(kb))
    body = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    started = time.perf_counter()
    lines = 0
    with httpx.stream("POST", server.base_url + "/chat/completions", json=body,
                      timeout=600) as response:
        for line in response.iter_lines():
            lines += line.startswith("data:")
    elapsed = time.perf_counter() - started
    return lines / elapsed


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [100, 2000]
    print(f"{'arguments':>10}  {'chunks':>8}  {'goosectx chunks/s':>18}  {'httpx lines/s':>14}"
          f"  {'peak RSS +MB':>12}")
    with FakeServer() as server:
        goosectx_rate(server, 1)  # litellm's import is not the stream's memory
        for kb in sizes:
            base = baseline_rate(server, kb)
            before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            rate, chars = goosectx_rate(server, kb)
            grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_kb) / 1024
            assert chars == kb * 1024, chars
            print(f"{kb:>8} KB  {kb * 1024 // CHUNK_CHARS:>8,}  {rate:>18,.0f}  {base:>14,.0f}"
                  f"  {grown_mb:>12,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
