"""``/history user`` (and ``--history``) on long sessions: the CPU of drawing the transcript.

``python bench/history_draw.py [--sizes 1000,10000] [--runs 3] [--width 110]`` generates the
scale table's session (``scale_data``: user requests, answers, shell calls and results of
1-50 KB) at each size and draws it whole, in-process, the way both commands do
(``TranscriptRenderer.history`` after ``seed_numbers``), into a terminal console of
``--width`` columns (colours on, output kept in memory). Each figure is the best CPU time
(``time.process_time``) of ``--runs``, against two baselines measured in the same run:

* the same drawing with rich doing all the work (every tool-result row wrapped by rich, and
  wrapped again with the whole result; a Markdown parser built for every answer), as
  goosectx drew before ``cli/result_view.py`` and ``cli/stream.py`` skipped that; the two
  outputs must be byte-identical (the script stops otherwise);
* the plain look (no terminal: ``--history`` or ``/history user`` with output to a pipe or
  a file), the cheapest drawing of the same lines.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from figures import ROOT

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@contextlib.contextmanager
def rich_does_all() -> Iterator[None]:
    """The drawing as it was: rich wraps every row, twice, and parses with a new parser."""
    from goosectx.cli import result_view, stream

    saved = result_view._fits, result_view._prewrapped, stream.markdown_class
    fresh_class = stream.markdown_class.__wrapped__
    result_view._fits = lambda line, width: False
    result_view._prewrapped = lambda header, width: False
    stream.markdown_class = lambda: fresh_class()
    try:
        yield
    finally:
        result_view._fits, result_view._prewrapped, stream.markdown_class = saved


def draw(conversation: object, *, width: int, plain: bool) -> tuple[float, str]:
    """(CPU seconds, what was drawn) of one whole-transcript drawing."""
    from goosectx.cli.render import TranscriptRenderer
    from goosectx.cli.safe_console import safe_console

    out = io.StringIO()
    if plain:
        console = safe_console(file=out, width=width, no_color=True, color_system=None,
                               force_terminal=False, highlight=False, emoji=False,
                               soft_wrap=True)
    else:
        console = safe_console(file=out, width=width, force_terminal=True,
                               color_system="256", highlight=False)
    renderer = TranscriptRenderer(console, plain=plain)
    start = time.process_time()
    renderer.seed_numbers(conversation)  # type: ignore[arg-type]
    renderer.history(conversation)  # type: ignore[arg-type]
    return time.process_time() - start, out.getvalue()


def best(conversation: object, runs: int, *, width: int, plain: bool = False) -> tuple[float, str]:
    results = [draw(conversation, width=width, plain=plain) for _ in range(runs)]
    return min(r[0] for r in results), results[-1][1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--width", type=int, default=110)
    args = parser.parse_args()
    from scale_data import make_session

    draw(make_session(4, Path.cwd()).conversation, width=args.width, plain=False)  # imports
    with tempfile.TemporaryDirectory(prefix="goosectx-bench-history-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            conversation = make_session(size, Path(tmp)).conversation
            now, drawn = best(conversation, args.runs, width=args.width)
            with rich_does_all():
                before, drawn_before = best(conversation, args.runs, width=args.width)
            plain, _ = best(conversation, args.runs, width=args.width, plain=True)
            if drawn != drawn_before:
                print(f"{size:,} messages: the drawing CHANGED", file=sys.stderr)
                return 1
            digest = hashlib.md5(drawn.encode()).hexdigest()[:8]
            print(f"{size:,} messages ({len(drawn) / 1e6:.1f} MB drawn, md5 {digest}, same "
                  f"both ways): {now:.2f} s CPU; rich doing all the work {before:.2f} s "
                  f"({now / before:.2f}×); plain look {plain:.2f} s ({now / plain:.1f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
