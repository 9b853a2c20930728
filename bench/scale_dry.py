"""The scale table's counted ``compact --dry-run`` row alone, for one or more checkouts.

``python bench/scale_dry.py [--data DIR] [--sizes 1000,10000] [--repeat 5]
[--checkout PATH ...] [--check] [--steady]``

The row as ``bench/run.py --scale`` measures it (:mod:`scale`): the second ``compact --dry-run``
of a generated session, whose counts (and facts-scan state) an earlier dry run stored, against
the raw load (``scale_raw.py load``: the same start-up, then ``SELECT`` + ``json.loads``). The
data is generated once under ``--data`` (kept between runs: the 100k session takes a while);
each measured run gets a fresh copy of it and its one earlier dry run, as the table's row does
(the second run still writes: the result lines its plan measured, which a third run reads —
``--steady`` measures such later runs instead, on one copy per checkout), and the runs
alternate — raw load, then each checkout — so a machine that gets busier moves every column
alike. Besides wall seconds, each process's CPU (user + sys, ``wait4``) and minor page
faults are given: on a machine shared with other work those are the steadier figures; and the
modules each checkout's dry run imports (one more run under ``python -X importtime``: the
modules it lists, those loaded before ``site`` ran included).

``--check``: first compare each checkout's stdout with the first one's for ``--dry-run`` and
``--dry-run --json``, llm and extractive strategies (byte for byte; exit 1 on a difference).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from figures import ROOT
from scale import CACHE_DIR, RAW, _env, _seed
from scale_data import SESSION_NAME

PY = sys.executable


def _output(argv: list[str], env: dict[str, str], cwd: Path) -> bytes:
    """The stdout of one process (and a refusal's line); a failure raises."""
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    if proc.returncode == 1 and b"would change nothing" in proc.stderr:
        return proc.stdout + proc.stderr  # a plan where nothing fits: compared with its reason
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-2000:]!r}")
    return proc.stdout


def _measured(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s user + sys, minor page faults) of one process, its output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else b""
    code = os.waitstatus_to_exitcode(status)
    if code != 0 and not (code == 1 and b"would change nothing" in err):
        raise RuntimeError(f"{' '.join(argv)} failed: {err[-2000:]!r}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_minflt


def _imports(argv: list[str], env: dict[str, str], cwd: Path) -> int:
    """How many modules the process ``argv`` imports (the lines ``-X importtime`` writes)."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=env, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    return sum(line.startswith(b"import time:") and b"self [us]" not in line
               for line in proc.stderr.splitlines())


def _checkout_env(home: Path, checkout: Path) -> dict[str, str]:
    env = _env(home)
    env["PYTHONPATH"] = str(checkout)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # each checkout byte-compiled, as installed
    return env


def _data(data: Path, count: int) -> tuple[Path, str]:
    """The generated session of ``count`` messages under ``data`` (made on the first call)."""
    home = data / f"home-{count}"
    sid_file = data / f"session-{count}"
    if not sid_file.exists():
        shutil.rmtree(home, ignore_errors=True)
        (data / "work").mkdir(parents=True, exist_ok=True)
        sid_file.write_text(_seed(home, count, data / "work"), encoding="utf-8")
    return home, sid_file.read_text(encoding="utf-8").strip()


DRY = ["-m", "goosectx", "compact", SESSION_NAME, "--dry-run"]
VARIANTS = ([], ["--json"], ["--strategy", "extractive"], ["--strategy", "extractive", "--json"])


def _counted_copy(data: Path, home: Path, count: int, i: int, checkout: Path) -> dict[str, str]:
    """The environment of a fresh copy of ``home`` for ``checkout``, its counts stored."""
    work = data / "work"
    copy = data / f"copy-{count}-{i}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(home, copy, ignore=shutil.ignore_patterns(CACHE_DIR))
    env = _checkout_env(copy, checkout)
    _measured([PY, *DRY], env, work)  # the earlier process that stores the counts
    return env


def _size(data: Path, count: int, checkouts: list[Path], repeat: int, check: bool,
          steady: bool = False) -> bool:
    home, sid = _data(data, count)
    work = data / "work"
    homes = [_counted_copy(data, home, count, i, c) for i, c in enumerate(checkouts)]
    same = True
    if check:
        for extra in VARIANTS:
            outs = [_output([PY, *DRY, *extra], env, work) for env in homes]
            for checkout, out in zip(checkouts[1:], outs[1:], strict=True):
                if out != outs[0]:
                    same = False
                    print(f"{count:,}: {' '.join(extra) or 'text'}: {checkout} differs:\n"
                          f"{outs[0].decode()}\n---\n{out.decode()}", file=sys.stderr)
    raw_env = _checkout_env(home, ROOT)
    runs: list[list[tuple[float, float, int]]] = [[] for _ in range(len(checkouts) + 1)]
    for _ in range(repeat):
        runs[0].append(_measured([PY, RAW, "load", str(home), sid], raw_env, work))
        for i, env in enumerate(homes):
            if not steady:  # the table's row: the second dry run of a fresh copy
                env = _counted_copy(data, home, count, i, checkouts[i])
            runs[i + 1].append(_measured([PY, *DRY], env, work))
    medians = [tuple(statistics.median(r[k] for r in rs) for k in range(3)) for rs in runs]
    imports = [_imports([PY, RAW, "load", str(home), sid], raw_env, work),
               *(_imports([PY, *DRY], env, work) for env in homes)]
    raw_wall, raw_cpu, _ = medians[0]
    for name, (wall, cpu, faults), modules in zip(["raw load", *map(str, checkouts)], medians,
                                                  imports, strict=True):
        print(f"{count:>7,}  {name:<28} wall {wall:.3f} s ({wall / raw_wall:.2f}×)  "
              f"CPU {cpu:.3f} s ({cpu / raw_cpu:.2f}×)  faults {faults:,.0f}  "
              f"imports {modules}")
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/goosectx-scale-dry"),
                        help="where the generated sessions are kept between runs")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--checkout", type=Path, action="append",
                        help="a goosectx checkout to measure (repeatable; default: this one)")
    parser.add_argument("--check", action="store_true",
                        help="first compare the checkouts' outputs byte for byte")
    parser.add_argument("--steady", action="store_true",
                        help="measure the third and later dry runs of one copy (nothing left "
                             "to write) instead of the second of a fresh copy")
    args = parser.parse_args(argv)
    checkouts = [c.resolve() for c in args.checkout or [ROOT]]
    same = True
    for count in (int(s) for s in args.sizes.split(",") if s.strip()):
        same = _size(args.data, count, checkouts, args.repeat, args.check,
                     args.steady) and same
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
