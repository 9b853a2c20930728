"""Keeping goosectx's own environment (its API keys) away from the processes it starts.

A child process gets a scrubbed environment (``tools/builtin.py``), but on Linux it could
still read goosectx's original environment through ``/proc/<pid>/environ`` (or its memory
through ``/proc/<pid>/mem``). Two protections, chosen by what the system allows (README,
"Security"):

* :func:`protect_self` marks goosectx non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): a process
  of the same user can then no longer open goosectx's ``/proc`` files. Root bypasses this
  (``CAP_SYS_PTRACE``), so
* as root, :func:`child_prefix` runs each child under ``unshare --pid --fork --mount-proc
  --kill-child``: in its own PID namespace with its own ``/proc``, where goosectx's process
  does not exist. The command still sees the same files, network and user; ``ps`` lists only
  its own processes, and mounts it makes stay inside its namespace.

Where neither applies (not Linux, no ``unshare``, a kernel that refuses namespaces) the child
can read the environment of goosectx if it runs as root; :func:`isolation_summary` says which
protection is in force.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import threading

PR_SET_DUMPABLE = 4
UNSHARE_ARGS = ("--pid", "--fork", "--mount-proc", "--kill-child")
"""``unshare`` options: a new PID namespace with its own /proc; the child dies with unshare."""
_PROBE_TIMEOUT_S = 5.0

_lock = threading.Lock()
_prefix: list[str] | None = None
_dumpable_off = False


def protect_self() -> bool:
    """Make this process non-dumpable so same-user children cannot read its ``/proc`` files.

    Returns:
        True when ``prctl(PR_SET_DUMPABLE, 0)`` succeeded (Linux), else False.
    """
    global _dumpable_off
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _dumpable_off = libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _dumpable_off = False
    return _dumpable_off


def _probe() -> list[str]:
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    argv = [unshare, *UNSHARE_ARGS]
    try:
        done = subprocess.run([*argv, "true"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return argv if done.returncode == 0 else []


def child_prefix() -> list[str]:
    """The argv prefix that isolates a child process (``[]`` when none applies or works).

    As root on Linux with a working ``unshare``: ``[unshare, --pid, --fork, --mount-proc,
    --kill-child]``. Probed once per process (one ``unshare … true`` run, a few ms).
    """
    global _prefix
    with _lock:
        if _prefix is None:
            _prefix = _probe()
        return list(_prefix)


def isolation_summary() -> str:
    """One line for ``goosectx info``: how child processes are kept from goosectx's secrets."""
    if child_prefix():
        return "children run in their own PID namespace (unshare); environment scrubbed"
    if _dumpable_off:
        return "goosectx is non-dumpable (prctl); environment scrubbed"
    return "environment scrubbed only (no namespace or prctl protection here)"
