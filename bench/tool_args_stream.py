"""Streamed tool-call arguments: chunks per second at small and large arguments.

A real :class:`~goosectx.providers.litellm_provider.LiteLLMProvider` streams one tool call
from the OpenAI-compatible fake server (``tests/fakeserver.py``, 127.0.0.1, in its own
process so its JSON encoding does not share this process's CPU) whose arguments arrive in
8-character chunks, through litellm's stream object and our assembler. Per-chunk work must
not grow with the arguments already received: chunks/s and CPU per chunk at 300 KB should
be about those at 20 KB (the last row: large ÷ small, flat = 1.00), and so should the memory
the stream holds (``peak RSS +MB``: about the arguments themselves, not litellm's ~5 KB per
chunk it would otherwise keep).

Baselines (same run, same stream):

* ``httpx lines/s``: the server's stream read with ``httpx`` and split into SSE lines, no
  parsing — what any client pays per chunk.
* ``litellm bare``: ``litellm.completion(stream=True)`` iterated in one thread with nothing
  done per chunk (with the settings goosectx gives litellm) — what goosectx cannot avoid
  while litellm parses the chunks. goosectx ÷ bare is our own share.

Usage: ``python bench/tool_args_stream.py [KB ...]`` (default ``20 300``).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from goosectx.config import ModelConfig, Settings  # noqa: E402
from goosectx.conversation import Message  # noqa: E402
from goosectx.providers.base import ProviderResponse  # noqa: E402
from goosectx.providers.litellm_provider import make_provider  # noqa: E402
from goosectx.providers.litellm_stream import (  # noqa: E402
    ChunkTrimmer,
    load_litellm,
    skip_final_rebuild,
    skip_success_logging,
)

CHUNK_CHARS = 8
MODEL = "openai/fake-model"
SCHEMA = {"name": "shell", "description": "Run a command.",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}
RUNS = 3
"""Runs of each measurement per size; the median is shown."""


def _reply(kb: int) -> dict:
    return {"tool_calls": [{"name": "shell", "arguments": {"command": "x" * (kb * 1024)}}],
            "chunk_chars": CHUNK_CHARS}


def _chunks(kb: int) -> int:
    return kb * 1024 // CHUNK_CHARS


def goosectx_rate(base_url: str, kb: int) -> tuple[float, float, int]:
    """Chunks/s through the provider's stream, CPU µs per chunk, argument characters received."""
    settings = Settings(model=MODEL, models={MODEL: ModelConfig(api_base=base_url)},
                        request_deadline_s=3600)  # the old code took over 600 s at 2 MB
    provider = make_provider(settings)
    cpu0, started = time.process_time(), time.perf_counter()
    final = None
    for item in provider.stream("test", [Message.user("go")], [SCHEMA]):  # type: ignore[list-item]
        if isinstance(item, ProviderResponse):
            final = item
    elapsed, cpu_s = time.perf_counter() - started, time.process_time() - cpu0
    assert final is not None
    (request,) = final.message.tool_requests
    chars = len((request.arguments or {}).get("command", ""))
    return _chunks(kb) / elapsed, cpu_s / _chunks(kb) * 1e6, chars


def bare_rate(base_url: str, kb: int) -> tuple[float, float]:
    """Chunks/s and CPU µs per chunk of litellm's stream iterated bare, in one thread."""
    litellm = load_litellm()
    cpu0, started = time.process_time(), time.perf_counter()
    response = litellm.completion(model=MODEL, api_base=base_url, api_key="sk-bench",
                                  messages=[{"role": "user", "content": "go"}], stream=True,
                                  stream_options={"include_usage": True})
    skip_success_logging(response)
    trim = ChunkTrimmer(response) if skip_final_rebuild(response) else None
    for _chunk in response:
        if trim is not None:
            trim()
    elapsed, cpu_s = time.perf_counter() - started, time.process_time() - cpu0
    return _chunks(kb) / elapsed, cpu_s / _chunks(kb) * 1e6


def baseline_rate(base_url: str) -> float:
    """Chunks/s of reading the same SSE stream with httpx, lines only."""
    import httpx

    body = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    started = time.perf_counter()
    lines = 0
    with httpx.stream("POST", base_url + "/chat/completions", json=body,
                      timeout=600) as response:
        for line in response.iter_lines():
            lines += line.startswith("data:")
    return lines / (time.perf_counter() - started)


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [20, 300]
    script = [_reply(1), _reply(1)]  # warm-up: litellm's import is not the stream's memory
    for kb in sizes:
        script += [_reply(kb)] * (3 * RUNS)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakeserver.py"),
                                   "--script", str(path)], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            base_url = server.stdout.readline().strip()
            return _table(base_url, sizes)
        finally:
            server.terminate()
            server.wait()


def _table(base_url: str, sizes: list[int]) -> int:
    goosectx_rate(base_url, 1)
    bare_rate(base_url, 1)
    print(f"{'arguments':>10}  {'chunks':>8}  {'goosectx chunks/s':>18}  {'µs CPU/chunk':>12}"
          f"  {'litellm bare /s':>15}  {'µs CPU/chunk':>12}  {'goosectx÷bare':>13}"
          f"  {'httpx lines/s':>13}  {'peak RSS +MB':>12}")
    rows: list[tuple[float, float, float, float]] = []
    for kb in sizes:
        base, bare, bare_cpu, ours, ours_cpu, grown = [], [], [], [], [], []
        for _ in range(RUNS):
            base.append(baseline_rate(base_url))
            rate, cpu = bare_rate(base_url, kb)
            bare.append(rate)
            bare_cpu.append(cpu)
            before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            rate, cpu, chars = goosectx_rate(base_url, kb)
            grown.append((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_kb) / 1024)
            assert chars == kb * 1024, chars
            ours.append(rate)
            ours_cpu.append(cpu)
        row = (_median(ours), _median(ours_cpu), _median(bare), _median(bare_cpu))
        rows.append(row)
        print(f"{kb:>8} KB  {_chunks(kb):>8,}  {row[0]:>18,.0f}  {row[1]:>12,.0f}"
              f"  {row[2]:>15,.0f}  {row[3]:>12,.0f}  {row[1] / row[3]:>12.2f}×"
              f"  {_median(base):>13,.0f}  {max(grown):>12,.0f}", flush=True)
    if len(rows) > 1:
        (o1, oc1, b1, bc1), (o2, oc2, b2, bc2) = rows[0], rows[-1]
        print(f"{'large÷small':>20}  {o2 / o1:>18.2f}  {oc2 / oc1:>12.2f}  {b2 / b1:>15.2f}"
              f"  {bc2 / bc1:>12.2f}   (flat = 1.00; medians of {RUNS} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
