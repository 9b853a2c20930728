"""Run every benchmark and print one table: figure, baseline, ratio, target, PASS/FAIL.

Usage: ``python bench/run.py [--quick] [--only startup,tokens,store,loop,compaction,extensions,
redaction_keys]``;
``python bench/run.py --scale [--sizes 1000,10000,100000]`` runs the scale table instead
(generated sessions of 1k–100k messages, see ``bench/scale.py``);
``python bench/run.py --working-set [--markdown]`` the working-set table (what the model keeps
after a compaction, over the corpus and issue 12's scripted session, see
``bench/working_set.py``).
Exits 1 when any figure misses its target. Figures are medians of several runs; each
baseline is measured in the same run, on the same machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import ROOT, Figure  # noqa: E402

SUITES = ("startup", "tokens", "store", "loop", "compaction", "extensions", "redaction_keys")


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "×":
        return f"{value:.2f}×"
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "ms":
        return f"{value:.3f} ms"
    return f"{value:.1f} {unit}"


def print_table(figures: Sequence[Figure]) -> int:
    """Print ``figures`` as a table; return 1 if any failed, else 0."""
    header = ("figure", "value", "baseline", "ratio", "target", "result")
    rows = []
    for f in figures:
        result = "info" if f.passed is None else ("PASS" if f.passed else "FAIL")
        ratio = "—" if f.ratio is None else f"{f.ratio:.2f}×"
        rows.append((f.name, _fmt(f.value, f.unit),
                     f"{_fmt(f.baseline, f.unit)} ({f.baseline_name})" if f.baseline_name
                     else "—", ratio, f.target, result))
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    line = "  ".join("{:<" + str(w) + "}" for w in widths)
    print(line.format(*header))
    print(line.format(*("-" * w for w in widths)))
    for r in rows:
        print(line.format(*r))
    notes = [f"- {f.name}: {f.note}" for f in figures if f.note]
    if notes:
        print()
        print("\n".join(notes))
    failed = [f.name for f in figures if f.passed is False]
    print()
    print(f"{len(failed)} FAIL" + (": " + "; ".join(failed) if failed else ", all PASS"))
    return 1 if failed else 0


def _bytecode_as_installed() -> None:
    """Measure processes as an install runs them: with bytecode caches.

    A shell that sets ``PYTHONDONTWRITEBYTECODE`` (some sandboxes do) would make every
    measured process compile each goosectx module again at start-up (tenths of a second per
    process, not paid by a user's install); the flag is dropped for the processes started
    here and the caches are written once before anything is timed.
    """
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    compileall.compile_dir(str(ROOT / "goosectx"), quiet=1)


def main(argv: list[str] | None = None) -> int:
    """Run the selected suites and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    parser.add_argument("--only", default=",".join(SUITES),
                        help="comma-separated suites: " + ", ".join(SUITES))
    parser.add_argument("--scale", action="store_true",
                        help="run the scale table (1k-100k messages) instead of the suites")
    parser.add_argument("--sizes", default="1000,10000,100000",
                        help="message counts of the scale table (comma-separated)")
    parser.add_argument("--working-set", action="store_true",
                        help="run the working-set table (corpus + scripted session) instead")
    parser.add_argument("--markdown", action="store_true",
                        help="with --working-set: print a Markdown table")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SUITES))
    if unknown:
        parser.error(f"unknown suite {unknown[0]!r}")
    os.environ.setdefault("NO_COLOR", "1")
    _bytecode_as_installed()
    print(f"goosectx benchmarks · Python {platform.python_version()} · {platform.machine()}"
          f" · {os.cpu_count()} CPUs" + (" · QUICK" if args.quick else ""))
    print()
    figures: list[Figure] = []
    if args.working_set:
        import working_set

        start = time.perf_counter()
        code = working_set.run_table(args.markdown)
        print(f"[working set: {time.perf_counter() - start:.1f} s]", file=sys.stderr)
        return code
    if args.scale:
        import scale

        sizes = tuple(int(n) for n in args.sizes.split(",") if n.strip())
        start = time.perf_counter()
        figures.extend(scale.run(args.quick, sizes))
        print(f"[scale: {time.perf_counter() - start:.1f} s]", file=sys.stderr)
        return print_table(figures)
    for name in chosen:
        start = time.perf_counter()
        module = __import__(name)
        figures.extend(module.run(args.quick))
        print(f"[{name}: {time.perf_counter() - start:.1f} s]", file=sys.stderr)
    return print_table(figures)


if __name__ == "__main__":
    sys.exit(main())
