"""Start-up time of ``goosectx --version`` and ``--help`` against ``python -c "import typer"``.

Each command runs as a fresh subprocess (the console script of this interpreter, no shell,
no pyenv shim) and is timed with ``time.perf_counter``; the figure is the median of several
runs. Also checks that ``--help`` does not import litellm.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from figures import Figure, quick_arg

VERSION_MAX_S = 0.2
HELP_MAX_S = 0.3
MAX_RATIO = 3.0


def _console_script() -> list[str]:
    """The ``goosectx`` entry point installed next to this interpreter (no shim)."""
    beside = Path(sys.executable).parent / "goosectx"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("goosectx")
    return [found] if found else [sys.executable, "-m", "goosectx"]


def _time_cmd(argv: list[str], repeat: int) -> float:
    env = {**os.environ, "NO_COLOR": "1"}
    subprocess.run(argv, env=env, capture_output=True, check=True)  # warm the page cache
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def help_imports_litellm() -> bool:
    """True when rendering ``--help`` imports litellm (it must not)."""
    code = ("import sys\nfrom goosectx.cli.app import app\n"
            "try:\n    app(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return out.strip().splitlines()[-1] == "True"


def run(quick: bool = False) -> list[Figure]:
    """Measure start-up; returns the ``--version`` and ``--help`` figures."""
    repeat = 5 if quick else 15
    baseline = _time_cmd([sys.executable, "-c", "import typer"], repeat)
    script = _console_script()
    figures = []
    for flag, limit in (("--version", VERSION_MAX_S), ("--help", HELP_MAX_S)):
        value = _time_cmd([*script, flag], repeat)
        fig = Figure(
            f"goosectx {flag}", value, "s", 'python -c "import typer"', baseline,
            f"≤ {limit} s and ≤ {MAX_RATIO:g}× baseline", False,
        )
        fig.passed = value <= limit and (fig.ratio or 0) <= MAX_RATIO
        figures.append(fig)
    imported = help_imports_litellm()
    figures[-1].note = "--help imports litellm: " + ("YES (FAIL)" if imported else "no")
    if imported:
        figures[-1].passed = False
    return figures


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
