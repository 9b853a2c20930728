"""Keeping goosectx's own environment (its API keys) away from the processes it starts.

A child process gets a scrubbed environment (``tools/builtin.py``), but on Linux it could
still read goosectx's original environment through ``/proc/<pid>/environ`` (or its memory
through ``/proc/<pid>/mem``). :func:`protect_self` marks goosectx non-dumpable
(``prctl(PR_SET_DUMPABLE, 0)``): a process of the same user can then no longer open those
files. Root bypasses this (``CAP_SYS_PTRACE``); running children in their own PID namespace is
not done yet, so README "Security" says plainly that as root a command can read them.
"""

from __future__ import annotations

import ctypes
import sys

PR_SET_DUMPABLE = 4


def protect_self() -> bool:
    """Make this process non-dumpable so same-user children cannot read its ``/proc`` files.

    Returns:
        True when ``prctl(PR_SET_DUMPABLE, 0)`` succeeded (Linux), else False.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
