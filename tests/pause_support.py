"""Run goosectx held at a test pause point while a test changes the world, then let it go.

The races of "check one file, read or write another" are made exact with the pause points of
:mod:`goosectx.testhooks`: the process stops at ``point``, the test calls ``swap()``, and the
process goes on.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def run_paused_at(point: str, argv: Sequence[str], swap: Callable[[], None], *, cwd: Path,
                  tmp_path: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``argv`` held at the pause point ``point`` while ``swap()`` runs; its exit, out, err."""
    marker = tmp_path / "paused"
    full_env = {**os.environ, **(env or {}), "GOOSECTX_TEST_PAUSE_AT": point,
                "GOOSECTX_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen(list(argv), env=full_env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    swap()
    marker.unlink()
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def replace_with(path: Path, make: Any) -> None:
    """Put what ``make(tmp)`` creates at ``path`` with one rename, as a flipping job does."""
    tmp = path.with_name("n.tmp")
    make(tmp)
    os.replace(tmp, path)
