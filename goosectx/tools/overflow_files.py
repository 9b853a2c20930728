"""Tool-output overflow files: their names, how large one grows, when they are removed.

A tool output over ``tool_output_max_chars`` is cut for the model; the whole stream goes to a
file under ``<data dir>/tool-output/`` that the cut marker names, so the model (or the user)
can read the rest. A command that prints without end (``yes``) used to fill the disk there
(about 8 GB per call, kept for ever), so the files are bounded three ways:

* One file holds at most :data:`MAX_FILE_BYTES` (64 MiB) of the stream: past that, writing
  stops and, when the stream ends, a line saying how many characters were dropped is written,
  then the stream's last characters (the tail the model saw) — its head and its tail are kept.
* After each file is written, and once per process, the directory is pruned: files older
  than :data:`MAX_AGE_S` (30 days) go, then the oldest until the rest take at most
  :data:`MAX_TOTAL_BYTES` (1 GiB). The file just written is kept.
* A file's name carries its session's id, so ``sessions remove`` removes them with the
  session (:func:`remove_session_outputs`).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
import uuid
from pathlib import Path
from typing import IO

from goosectx.private_mode import make_private
from goosectx.session import valid_session_id

OVERFLOW_SUBDIR = "tool-output"
"""The data dir's directory of overflow files."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""The most one overflow file keeps of a stream (its head); its tail is added at the end."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""The most all overflow files take together; past it the oldest are removed."""
MAX_AGE_S = 30 * 24 * 3600
"""Overflow files older than this (by modification time) are removed."""

_NAME = re.compile(r"\d{8}-\d{6}-[0-9a-f]{8}(?:-(?P<session>[A-Za-z0-9][A-Za-z0-9_-]*))?\..+\.txt")
"""An overflow file's name: ``<YYYYmmdd-HHMMSS>-<random>[-<session id>].<label>.txt`` (an id
has no dot, so the first dot ends it)."""


def overflow_path(overflow_dir: Path, label: str, session_id: str = "") -> Path:
    """A fresh file ``<YYYYmmdd-HHMMSS>-<random>-<session id>.<label>.txt`` in ``overflow_dir``.

    Without a (valid) session id the name is ``<YYYYmmdd-HHMMSS>-<random>.<label>.txt``.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    owner = f"-{session_id}" if valid_session_id(session_id) else ""
    return overflow_dir / f"{stamp}-{uuid.uuid4().hex[:8]}{owner}.{label}.txt"


def open_private(path: Path) -> IO[str]:
    """``path`` created (or truncated) 0600 for text, its directory 0700 (raises OSError)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    make_private(path.parent)  # one made before with a wider mode: 0700 again
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="")


def fit_bytes(text: str, room_bytes: int) -> str:
    """The longest head of ``text`` whose UTF-8 (``surrogateescape``) form fits ``room_bytes``."""
    keep = min(len(text), max(0, room_bytes))
    while keep:
        over = len(text[:keep].encode("utf-8", "surrogateescape")) - room_bytes
        if over <= 0:
            break
        keep -= max(1, over // 4)  # a character is 1 to 4 bytes
    return text[:keep]


def prune(overflow_dir: Path, keep: Path | None = None, *, now_s: float | None = None) -> int:
    """Remove overflow files older than :data:`MAX_AGE_S`, then the oldest past the total cap.

    Only regular files with an overflow file's name are touched; ``keep`` (the file just
    written) never is. Errors (a file gone meanwhile, a read-only directory) are ignored.

    Returns:
        How many files were removed.
    """
    now_s = time.time() if now_s is None else now_s
    files: list[tuple[float, int, str]] = []
    try:
        with os.scandir(overflow_dir) as entries:
            for entry in entries:
                if not _NAME.fullmatch(entry.name) or (keep and entry.path == str(keep)):
                    continue
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        files.append((st.st_mtime, st.st_size, entry.path))
    except OSError:
        return 0
    files.sort()
    total = sum(size for _, size, _ in files)
    with contextlib.suppress(OSError):
        total += os.stat(keep).st_size if keep else 0
    removed = 0
    for mtime, size, path in files:
        if now_s - mtime <= MAX_AGE_S and total <= MAX_TOTAL_BYTES:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
        total -= size
    return removed


def remove_session_outputs(data_dir: Path, session_id: str) -> None:
    """Delete the overflow files of a removed session from ``data_dir`` (best effort)."""
    if not valid_session_id(session_id):
        return
    overflow_dir = data_dir / OVERFLOW_SUBDIR
    try:
        with os.scandir(overflow_dir) as entries:
            names = [e.name for e in entries]
    except OSError:
        return
    for name in names:
        match = _NAME.fullmatch(name)
        if match and match.group("session") == session_id:
            with contextlib.suppress(OSError):
                os.unlink(overflow_dir / name)
