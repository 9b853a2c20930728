"""CPU of the REPL around a turn's end, at scale (#14's "last chunk → prompt" row).

The scale table's row is wall-clock, and on a loaded machine wall time moves with the
neighbours. This script reads the REPL child's own CPU (its CPU-time clock: every thread, to
the nanosecond) at four points of each turn — the line sent, the fake server receiving the
request (before a byte of the answer goes out), the pty showing the answer's last word, the
prompt back — and prints, per size and turn, the median over ``--repeat`` processes of:

* CPU request → prompt: everything the REPL does once the model is asked (drawing the stream,
  the recorder's writes, the toolbar figure, the turn's end) and any background thread's work
  meanwhile (e.g. storing the counts of a history counted at first need);
* CPU last word → prompt and its wall time (the scale table's row);
* CPU line → request (at turn 1: counting the history at first need, auto-compaction).

``python bench/scale_chunk_cpu.py [--sizes 0,10000,100000] [--turns 3] [--repeat 3]
[--gap S] [--data DIR]``

Each size is a generated session (``scale_data``; seeded once into ``DIR`` and reused when
given: seeding 100k messages takes a while) resumed as seeded (token counts fill on first
need, as in the scale table), on a fresh copy for each process. Turn 1 is the scale table's
row; later turns (``--gap`` seconds apart) show the steady state. Size 0 is a new session
(the baseline). Run it from another checkout (``python OTHER/bench/scale_chunk_cpu.py``) to
measure that code: the REPL imports the checkout the script lives in (seed a ``DIR`` per
checkout: the schema may differ).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import ROOT
from scale_data import ANSWER_MARK, SESSION_NAME

sys.path.insert(0, str(ROOT / "tests"))

PROMPT = "❯"
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _cpu_s(pid: int) -> float:
    """CPU seconds process ``pid`` has used so far, every thread (ended ones too), to the
    nanosecond: its CPU-time clock (``clock_getcpuclockid``), not ``/proc``'s 10 ms ticks."""
    clock = ctypes.c_int()
    if _LIBC.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        raise RuntimeError(f"no CPU clock for process {pid}")
    return time.clock_gettime(clock.value)


def _env(home: Path, base_url: str) -> dict[str, str]:
    from scale import _env as scale_env

    return scale_env(home, base_url)


Turn = tuple[float, float, float, float]
"""CPU s from the request's arrival to the prompt back, CPU s from the last word on screen to
the prompt back, CPU s from the line sent to the request's arrival, and wall s from the last
word on screen to the prompt back (the scale table's row)."""


def _turns(argv: list[str], env: dict[str, str], cwd: Path, turns: int,  # noqa: PLR0913
           settle_s: float, gap_s: float, server) -> list[Turn]:  # noqa: ANN001 - the fake server
    """The CPU figures of each of ``turns`` turns (see :data:`Turn`)."""
    import pexpect

    child = pexpect.spawn(argv[0], argv[1:], env=env, cwd=str(cwd), dimensions=(40, 110),
                          encoding="utf-8", timeout=900, maxread=1 << 16)
    arrived: list[float] = []

    def answer(_body: dict) -> dict:
        arrived.append(_cpu_s(child.pid))  # before a byte of the answer is sent
        return {"text": "ok " + ANSWER_MARK, "usage": {"prompt_tokens": 10,
                                                        "completion_tokens": 2}}

    out: list[Turn] = []
    try:
        if "-r" in argv:
            child.expect_exact("resumed ·")
        child.expect(PROMPT)
        time.sleep(settle_s)  # the start-up work (litellm import) first, as the scale row
        for turn in range(turns):
            if turn:
                time.sleep(gap_s)
            server.script.append(answer)
            sent = _cpu_s(child.pid)
            child.send(f"say something {turn}\r")
            child.expect_exact(ANSWER_MARK)
            shown, seen = _cpu_s(child.pid), time.perf_counter()
            child.expect(PROMPT)
            back, wall = _cpu_s(child.pid), time.perf_counter() - seen
            out.append((back - arrived[-1], back - shown, arrived[-1] - sent, wall))
        child.send("/exit\r")
        child.expect_exact(pexpect.EOF)
    finally:
        child.close(force=True)
    return out


def main() -> int:
    from fakeserver import FakeServer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="0,10000,100000")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="processes per size")
    parser.add_argument("--gap", type=float, default=0.0,
                        help="seconds between one turn's prompt and the next line")
    parser.add_argument("--settle", type=float, default=0.5,
                        help="seconds between the prompt and the first message (scale: 0.5)")
    parser.add_argument("--data", type=Path, default=None,
                        help="where seeded data dirs are kept between runs")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    default = {"text": "ok " + ANSWER_MARK, "usage": {"prompt_tokens": 10,
                                                       "completion_tokens": 2}}
    keep = args.data
    with tempfile.TemporaryDirectory(prefix="goosectx-chunk-cpu-") as name, \
            FakeServer(default_reply=default) as server:
        tmp = Path(name)
        store = keep if keep is not None else tmp
        work = store / "work"  # the seeded session's working directory: kept with the data
        work.mkdir(parents=True, exist_ok=True)
        print(f"code: {ROOT}", flush=True)
        for count in sizes:
            rows: list[list[Turn]] = []
            for _ in range(args.repeat):
                home = tmp / f"home-{count}"
                shutil.rmtree(home, ignore_errors=True)
                argv = [sys.executable, "-m", "goosectx", "session"]
                if count:
                    seeded = store / f"seeded-{count}"
                    if not (seeded / "sessions.db").exists():
                        shutil.rmtree(seeded, ignore_errors=True)
                        subprocess.run([sys.executable, str(ROOT / "bench" / "scale_raw.py"),
                                        "seed", str(seeded), str(count), str(work)],
                                       env={**os.environ, "PYTHONPATH": str(ROOT)},
                                       check=True, capture_output=True)
                    shutil.copytree(seeded, home)
                    argv += ["-r", SESSION_NAME]
                rows.append(_turns(argv, _env(home, server.base_url), work, args.turns,
                                   args.settle, args.gap, server))
            for turn in range(args.turns):
                after, shown, before, wall = (statistics.median(r[turn][i] for r in rows)
                                              * 1000 for i in range(4))
                print(f"{count:>7,} msgs turn {turn + 1}: CPU request → prompt {after:6.1f} ms"
                      f" (last word → prompt {shown:5.1f}; line → request {before:7.1f});"
                      f" wall last word → prompt {wall:5.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
