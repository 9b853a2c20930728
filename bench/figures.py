"""Shared pieces of the benchmarks: the Figure row, timing helpers and synthetic text.

Every benchmark returns :class:`Figure` rows; ``bench/run.py`` prints them as one table.
A figure is always shown next to a baseline measured in the same run (so a slow machine
moves both), the ratio between them, the target and PASS/FAIL.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@dataclass(slots=True)
class Figure:
    """One measured figure.

    Attributes:
        name: What was measured (``load 10,000 messages``).
        value: The measurement, in ``unit``.
        unit: ``s``, ``ms``, ``MB``, ``MB/s``...
        baseline_name: What the baseline is.
        baseline: The baseline, in ``unit`` (``None`` when the figure has none).
        target: Human-readable target (``≤ 0.5 s``), or ``info`` when it is only reported.
        passed: ``True`` / ``False`` against the target, ``None`` for ``info`` rows.
        note: Extra explanation printed under the table.
    """

    name: str
    value: float
    unit: str
    baseline_name: str
    baseline: float | None
    target: str
    passed: bool | None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """``value / baseline`` (``None`` without a usable baseline)."""
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline


GROWTH_MAX = 1.25
"""Growth 1,000 → 5,000 messages relative to the baseline's (linear) growth: 1.0 is exactly
linear; +25 % is allowed for timing noise on a shared machine."""


def growth_figure(name: str, ratio_at: dict[int, float], what: str) -> Figure:
    """The PASS/FAIL row judging growth from 1,000 to 5,000 messages as linear.

    ``ratio_at`` maps a size to ``measured ÷ baseline``; ``what`` names the measured quantity
    in the note.
    """
    growth = ratio_at[5_000] / ratio_at[1_000]
    return Figure(
        name, growth, "×", "linear", 1.0,
        f"≤ {GROWTH_MAX:g}× (linear, +25% noise)", growth <= GROWTH_MAX,
        note=f"growth = ({what} ÷ baseline at 5,000) ÷ ({what} ÷ baseline at 1,000); "
             "1.0 = exactly linear",
    )


def median_time_s(fn: Callable[[], object], *, repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeat`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _source_pool() -> str:
    """Real-looking text: standard-library source (code, comments, docstrings), fixed per
    interpreter version so runs are comparable."""
    import argparse as a
    import difflib
    import email.message
    import json.decoder
    import textwrap

    files = [Path(m.__file__) for m in (a, difflib, email.message, json.decoder, textwrap)]
    return "\n".join(f.read_text(encoding="utf-8") for f in files if f and f.exists())


_POOL: str | None = None


def text_of(rng: random.Random, chars: int) -> str:
    """A slice of about ``chars`` characters of real text, chosen by ``rng``."""
    global _POOL
    if _POOL is None:
        _POOL = _source_pool()
    start = rng.randrange(0, len(_POOL) - chars - 1)
    return _POOL[start:start + chars]


def quick_arg() -> bool:
    """``--quick`` on the command line (fewer repeats, for a smoke run)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--quick", action="store_true")
    known, _ = parser.parse_known_args()
    return bool(known.quick)


def make_messages(count: int, avg_chars: int, *, seed: int = 7) -> list:
    """``count`` messages of a tool-using session, ``avg_chars`` characters of text each on
    average (uniform 0.5–1.5 ×), repeating: user request, assistant text + shell call, tool
    result, assistant answer. Ends with an assistant answer when ``count`` is a multiple of 4.
    """
    from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse

    rng = random.Random(seed)
    out: list[Message] = []

    def size() -> int:
        return max(8, int(avg_chars * rng.uniform(0.5, 1.5)))

    for i in range(count):
        step = i % 4
        if step == 0:
            out.append(Message.user(text_of(rng, size())))
        elif step == 1:
            body = text_of(rng, size())
            call = ToolRequest(f"hist_{seed}_{i}", "shell", {"command": body[:60]})
            out.append(Message("assistant", (TextContent(body[60:] or "ok"), call)))
        elif step == 2:
            result = ToolResponse(f"hist_{seed}_{i - 1}", text_of(rng, size()))
            out.append(Message("user", (result,)))
        else:
            out.append(Message.assistant(text_of(rng, size())))
    return out
