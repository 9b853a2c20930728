"""The file a read-only call was judged on, and the check that the file it opened is that one.

docs/architecture.md §4 (clause "read scoping"). The approval decides on a path as it
resolves at that moment; the tool opens it a moment (or, after a question, minutes) later.
A path swapped meanwhile for a symlink to ``~/.ssh/id_rsa`` (a background job flipping it),
or for a hard link to it, would be read unjudged. So :func:`judge` resolves the path ONCE for
the decision, and the tool, after opening, checks the opened file descriptor with
:func:`opened_elsewhere`: the file read is the file judged, or nothing is read.

Core module: no printing, no ``cli`` imports.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from goosectx.sensitive import resolve


@dataclass(frozen=True, slots=True)
class JudgedFile:
    """What a path led to when the approval judged it.

    Attributes:
        path: The path as the call named it, absolute.
        real: The path resolved (symlinks followed).
        identity: ``(st_dev, st_ino)`` of the file there; ``None``: nothing was there.
        links: Its hard-link count when it is a regular file (``st_nlink``; 1 for a
            directory or anything else, 0: nothing there).
    """

    path: Path
    real: Path
    identity: tuple[int, int] | None
    links: int


def judge(path: Path) -> JudgedFile:
    """``path`` resolved once, with the identity of the file it leads to (for the decision)."""
    real = resolve(path)
    try:
        info = os.stat(real)
    except (OSError, ValueError):
        return JudgedFile(path, real, None, 0)
    links = info.st_nlink if stat.S_ISREG(info.st_mode) else 1
    return JudgedFile(path, real, (info.st_dev, info.st_ino), links)


def _fd_path(fd: int) -> Path | None:
    """Where the kernel says ``fd`` is open (Linux ``/proc``); ``None``: it cannot say."""
    try:
        link = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return Path(link) if link.startswith("/") and not link.endswith(" (deleted)") else None


def opened_elsewhere(fd: int, judged: JudgedFile) -> str | None:
    """Why the file open on ``fd`` is not the one ``judged`` (``None``: it is).

    It is when it is the very file judged (same device and inode), or the file now at the
    judged real path with no other hard link (an editor's atomic save replaced it there).
    A symlink swapped in since leads elsewhere; a hard link swapped in has other names.

    Returns:
        A sentence for the model naming where the path led instead, or ``None``.
    """
    where = led_elsewhere(fd, judged)
    if where is None:
        return None
    return (f"{judged.path} changed after this call was checked ({where}, not the file "
            "checked), so nothing was read — call again to have it checked anew")


def led_elsewhere(fd: int, judged: JudgedFile) -> str | None:
    """Where the path led instead when ``fd`` is not the file ``judged`` (``None``: it is).

    Returns:
        ``"it now leads to /real/path"`` or ``"it is now another file, with other hard
        links"`` (see :func:`opened_elsewhere` for which file is the one judged).
    """
    info = os.fstat(fd)
    if judged.identity == (info.st_dev, info.st_ino):
        return None
    now = _fd_path(fd)
    if now == judged.real and (info.st_nlink == 1 or not stat.S_ISREG(info.st_mode)):
        return None
    return (f"it now leads to {now}" if now is not None and now != judged.real
            else "it is now another file, with other hard links")
