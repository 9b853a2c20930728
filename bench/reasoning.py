"""Per-chunk cost of drawing streamed reasoning: constant, whatever its length (issue 17.7).

``ReasoningDelta`` events of 8-character chunks (a fake server's default size; real servers send
a token or a few) go through the REPL renderer (``TranscriptRenderer.handle``, both looks, a
console writing to memory) for a short reasoning and for one 100 × longer. The short run is the
same-run baseline: the ratio of the per-chunk times should stay near 1 (nothing re-rendered,
nothing that grows with the reasoning).

Usage: ``python bench/reasoning.py [--quick]``
"""

from __future__ import annotations

import io
import sys
import time

from rich.console import Console

from goosectx.cli.render import TranscriptRenderer
from goosectx.events import ReasoningDelta, TurnFinished

LINE = "weighing the options against the constraints of the task at hand\n"
CHUNK_CHARS = 8


def per_chunk_us(chunks: int, *, plain: bool) -> float:
    """Microseconds per chunk to draw ``chunks`` reasoning chunks (the best of 3 runs)."""
    text = (LINE * (chunks * CHUNK_CHARS // len(LINE) + 1))[: chunks * CHUNK_CHARS]
    pieces = [text[i:i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)]
    best = float("inf")
    for _ in range(3):
        renderer = TranscriptRenderer(Console(file=io.StringIO(), width=100), plain=plain)
        start = time.perf_counter()
        for piece in pieces:
            renderer.handle(ReasoningDelta(piece))
        renderer.handle(TurnFinished("done"))
        best = min(best, time.perf_counter() - start)
    return best / len(pieces) * 1e6


def main(argv: list[str]) -> int:
    short = 200 if "--quick" in argv else 1_000
    print(f"reasoning drawn per chunk ({CHUNK_CHARS} chars), short = {short:,} chunks")
    print(f"{'look':<6} {'short µs':>9} {'100× longer µs':>15} {'ratio':>6}")
    for plain in (False, True):
        base = per_chunk_us(short, plain=plain)
        long = per_chunk_us(short * 100, plain=plain)
        print(f"{'plain' if plain else 'rich':<6} {base:>9.2f} {long:>15.2f} {long / base:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
