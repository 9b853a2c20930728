"""The project's own checks run with the suite: ruff (lint, import order, docstrings) and mypy
(strict) — a change that breaks them fails CI like a failing test."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "goosectx", "tests", "bench"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean():
    proc = subprocess.run([sys.executable, "-m", "mypy", "goosectx"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
