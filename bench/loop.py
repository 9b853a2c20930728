"""Agent-loop overhead per model call at 10 / 1,000 / 5,000 messages of history.

What our own code costs around each model call, the model excluded: the agent view, the
``current`` figure and auto-compaction check, recording the call, running a tool through the
approval path, and persisting every event with the session recorder into a real SQLite store
(as ``goosectx run`` does). The model is a zero-latency in-process
:class:`~goosectx.providers.scripted.ScriptedProvider` with fixed usage; the wall time spent
inside its ``stream`` is measured and subtracted. Each turn makes two model calls: one that
asks for a no-op tool and one that answers, so both the turn-start and the between-tools
paths are timed.

Baseline: serialising the request's agent view to JSON once (``to_dict`` + ``json.dumps``) —
the least any HTTP provider pays per call at that history size. Auto-compaction and tool-pair
summarisation are off and the window is large, so no compaction runs.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compaction import TimedProvider
from figures import Figure, growth_figure, make_messages, quick_arg

SIZES = (10, 1_000, 5_000)
AVG_CHARS = 400
TURNS = 10
CALL_MAX_MS = 5.0


class NoopTool:
    """A read-only tool that returns at once (its cost is the loop's, not the tool's)."""

    name = "noop"
    description = "Does nothing and says so."
    parameters: dict[str, Any] = {"type": "object", "properties": {"note": {"type": "string"}}}

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        return True

    def run(self, arguments: dict[str, Any], ctx: Any) -> Any:
        from goosectx.tools.base import ToolResult

        return ToolResult("done: " + str(arguments.get("note", "")))


def _agent(tmp: Path, messages: list, turns: int, tag: str):  # noqa: ANN202 - bench helper
    from goosectx.agent import Agent
    from goosectx.config import Settings
    from goosectx.conversation import Conversation
    from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
    from goosectx.recorder import SessionRecorder
    from goosectx.session import Session, new_session_id
    from goosectx.store import SessionStore
    from goosectx.tools.base import ToolContext, ToolRegistry
    from goosectx.tools.builtin import default_registry
    from goosectx.usage import Usage

    workdir = tmp / f"work-{tag}"
    workdir.mkdir()
    store = SessionStore(tmp / f"data-{tag}")
    now = messages[0].created
    session = Session(new_session_id(now), None, workdir, "scripted/test-model", now, now,
                      Conversation(list(messages)))
    store.save_new_session(session)
    usage = Usage.of(len(messages) * 120, 40)
    script: list[Any] = []
    for i in range(turns):
        script.append(ScriptedReply(text="Let me check.", tool_calls=[("noop", {"note": str(i)})],
                                    usage=usage, chunk_chars=64))
        script.append(ScriptedReply(text=f"Done with step {i}.", usage=usage, chunk_chars=64))
    provider = TimedProvider(ScriptedProvider(script, context_limit_tokens=10_000_000))
    settings = Settings(model="scripted/test-model", mode="auto", threshold_ratio=0.0,
                        tool_pair_summarization=False, data_dir=tmp / f"data-{tag}")
    tools = ToolRegistry([*(default_registry().get(n) for n in default_registry().names()),
                          NoopTool()])
    agent = Agent(session, settings, provider=provider, tools=tools,  # type: ignore[arg-type]
                  approve=lambda request: "allow_once", mode="auto",
                  tool_context=ToolContext(workdir))
    return agent, provider, SessionRecorder(store, session), store


def _per_call_s(tmp: Path, messages: list, turns: int, tag: str) -> float:
    """Mean seconds of our own code per model call over ``turns`` turns (2 calls each)."""
    agent, provider, recorder, store = _agent(tmp, messages, turns, tag)
    agent.request_context  # noqa: B018 - build the system prompt outside the timing
    start = time.perf_counter()
    calls = 0
    for i in range(turns):
        for event in agent.reply(f"please do step {i}"):
            recorder.record(event)
            if type(event).__name__ == "TurnFinished":
                assert event.status == "done", event  # type: ignore[union-attr]
        calls += 2
    total = time.perf_counter() - start
    store.close()
    return (total - provider.spent_s) / calls


def _serialise(messages: list):  # noqa: ANN202 - bench helper
    from goosectx.conversation import Conversation

    view = Conversation(list(messages)).agent_view()
    return lambda: json.dumps([m.to_dict() for m in view])


def run(quick: bool = False) -> list[Figure]:
    """Time the loop's own work per model call at each history size."""
    repeat = 3 if quick else 5
    turns = 4 if quick else TURNS
    figures: list[Figure] = []
    ratio_at: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="goosectx-bench-") as name:
        tmp = Path(name)
        for size in SIZES:
            messages = make_messages(size, AVG_CHARS, seed=size)
            baseline = _serialise(messages)
            _per_call_s(tmp, messages, 2, f"warm{size}")
            ours, base = [], []
            for i in range(repeat):
                ours.append(_per_call_s(tmp, messages, turns, f"{size}-{i}"))
                start = time.perf_counter()
                baseline()
                base.append(time.perf_counter() - start)
            value_ms = statistics.median(ours) * 1e3
            ratio_at[size] = statistics.median(a / b for a, b in zip(ours, base, strict=True))
            target = f"≤ {CALL_MAX_MS:g} ms" if size == 1_000 else "info"
            figures.append(Figure(
                f"loop overhead per model call @ {size:,} msgs", value_ms, "ms",
                "json.dumps of the request's messages", statistics.median(base) * 1e3,
                target, value_ms <= CALL_MAX_MS if size == 1_000 else None,
            ))
    figures.append(growth_figure("loop growth 1,000→5,000", ratio_at, "overhead"))
    return figures


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
