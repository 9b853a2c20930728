"""The local part of a compaction — everything but the model call — at 10 / 1,000 / 5,000
messages of history.

A manual ``ContextManager.compact`` runs against a zero-latency in-process
:class:`~goosectx.providers.scripted.ScriptedProvider` that answers at once with a canned
JSON summary and fixed usage (so no time goes into estimating usage on the "model" side);
the events are persisted by the session recorder into a real SQLite store, as
``goosectx compact`` does. The time spent inside the provider is measured and subtracted.
What remains: flattening the history, counting the summary request, parsing and rendering
the summary, rewriting visibility, the new ``current`` estimate and the write-back
transaction. The baseline is raw tiktoken encoding the same history text once — the least
any compaction must do to size its request.

The window is large enough for the whole history (no ladder step-down), auto-compaction and
tool-pair summarisation are off: only the manual compaction is timed.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from figures import Figure, growth_figure, make_messages, quick_arg

SIZES = (10, 1_000, 5_000)
AVG_CHARS = 400
CONTEXT_LIMIT_TOKENS = 10_000_000

SUMMARY = json.dumps({
    "user_intent": "benchmark the compaction", "technical_concepts": ["sqlite", "tiktoken"],
    "files": [{"path": "bench/compaction.py", "summary": "the benchmark", "key_code": "run()"}],
    "errors_and_fixes": [], "problem_solving": "measured", "user_messages": ["go"],
    "pending_tasks": [], "current_work": "timing", "next_step": "report",
})


class TimedProvider:
    """Wraps a provider; adds the wall time spent inside ``stream`` to ``spent_s``."""

    def __init__(self, inner):  # noqa: ANN001 - bench helper
        self.inner = inner
        self.model = inner.model
        self.manages_own_context = inner.manages_own_context
        self.spent_s = 0.0

    def context_limit(self):  # noqa: ANN201
        return self.inner.context_limit()

    def output_limit_tokens(self) -> int:
        return self.inner.output_limit_tokens()

    def stream(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        start = time.perf_counter()
        items = list(self.inner.stream(*args, **kwargs))
        self.spent_s += time.perf_counter() - start
        yield from items


def _settings(data_dir: Path):  # noqa: ANN202
    from goosectx.config import Settings

    return Settings(model="scripted/test-model", threshold_ratio=0.0,
                    tool_pair_summarization=False, data_dir=data_dir)


def _once(tmp: Path, messages: list, tag: str) -> tuple[float, float]:
    """(local seconds, provider seconds) of one manual compaction of ``messages``."""
    from goosectx.compaction.figures import RequestContext
    from goosectx.compaction.manager import ContextManager
    from goosectx.conversation import Conversation
    from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
    from goosectx.recorder import SessionRecorder
    from goosectx.session import Session, new_session_id
    from goosectx.store import SessionStore
    from goosectx.usage import Usage

    store = SessionStore(tmp / tag)
    now = messages[0].created
    session = Session(new_session_id(now), None, tmp, "scripted/test-model", now, now,
                      Conversation(list(messages)))
    store.save_new_session(session)
    provider = TimedProvider(ScriptedProvider(
        [ScriptedReply(text=SUMMARY, usage=Usage.of(50_000, 300), chunk_chars=4096)],
        context_limit_tokens=CONTEXT_LIMIT_TOKENS))
    recorder = SessionRecorder(store, session)
    request = RequestContext("You are goosectx, a terminal agent.", "", [])
    start = time.perf_counter()
    manager = ContextManager(session, _settings(tmp), provider)
    for event in manager.compact(request, trigger="manual"):
        recorder.record(event)
    total = time.perf_counter() - start
    store.close()
    assert session.conversation.messages[-1].metadata.agent_visible
    return total - provider.spent_s, provider.spent_s


def _raw_encode(messages: list):  # noqa: ANN202 - bench helper
    """A function that raw-encodes the flattened history once (the baseline)."""
    from goosectx.compaction.request import flatten
    from goosectx.tokens import get_encoder

    text = "\n".join(line.text for line in flatten(messages))
    encoder = get_encoder(None)
    return lambda: encoder.encode_ordinary(text)


def run(quick: bool = False) -> list[Figure]:
    """Time the local part of a manual compaction at each size.

    Each compaction run is paired with a baseline run right after it, so a busy machine
    slows both; growth is judged on the ratio to the baseline (which is linear in the
    history), not on raw times.
    """
    repeat = 3 if quick else 5
    figures: list[Figure] = []
    ratio_at: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="goosectx-bench-") as name:
        tmp = Path(name)
        for size in SIZES:
            messages = make_messages(size, AVG_CHARS, seed=size)
            raw = _raw_encode(messages)
            _once(tmp, messages, f"warm{size}")
            raw()
            local, model, base = [], [], []
            for i in range(repeat):
                local_s, model_s = _once(tmp, messages, f"{size}-{i}")
                start = time.perf_counter()
                raw()
                base.append(time.perf_counter() - start)
                local.append(local_s)
                model.append(model_s)
            fig = Figure(
                f"compaction, local part @ {size:,} msgs", statistics.median(local) * 1e3,
                "ms", "raw tiktoken encode of the history", statistics.median(base) * 1e3,
                "info", None,
                note=f"model call (scripted, excluded) took "
                     f"{statistics.median(model) * 1e3:.2f} ms",
            )
            ratio_at[size] = statistics.median(a / b for a, b in zip(local, base, strict=True))
            figures.append(fig)
    figures.append(growth_figure("compaction growth 1,000→5,000", ratio_at, "local"))
    return figures


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
