"""A small real filesystem that fills up: a tmpfs mount (root only) and a filler."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_tmpfs(tmp_path: Path, size: str, skip_reason: str) -> Iterator[Path]:
    """Mount a tmpfs of ``size`` (e.g. ``"64k"``) under ``tmp_path``; skip where not allowed."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(skip_reason)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> None:
    """Write ``directory/filler`` until the filesystem is full."""
    fd = os.open(directory / "filler", os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        while os.write(fd, b"x" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
