"""Running ``goosectx`` as an unprivileged user (uid 65534) from a root test run.

Such a test needs root, ``setpriv``, and a checkout that user can read: a clone inside a 0700
directory (``mktemp -d``) leaves uid 65534 reading another goosectx (the editable install's)
or none, and the test would fail or check the wrong code. :func:`as_nobody` skips the test
then, saying why and how to run it.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import goosectx

NOBODY = 65534
AS_NOBODY = ("setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups")
CHECKOUT = Path(__file__).resolve().parent.parent
_PROBE = ("import os, sys, goosectx; "
          "print(goosectx.__file__ if os.access(sys.argv[1], os.R_OK) else 'tests unreadable')")


def _interpreter() -> str:
    """The Python the ``goosectx`` console script runs (its ``#!`` line), else this one."""
    script = shutil.which("goosectx")
    if script is not None:
        with open(script, "rb") as f:
            first = f.readline().decode(errors="replace")
        if first.startswith("#!/") and " " not in first.strip():
            return first[2:].strip()
    return sys.executable


def _closed_directory(path: Path) -> Path | None:
    """The outermost directory above or at ``path`` that other users cannot enter."""
    for parent in reversed((path, *path.parents)):
        try:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return parent
        except OSError:
            return parent
    return None


@functools.cache
def why_not_as_nobody() -> str | None:
    """Why this run cannot run goosectx as uid 65534 on this checkout, or ``None``."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return "needs root to switch to an unprivileged user with setpriv"
    here = Path(goosectx.__file__).resolve()
    demo = CHECKOUT / "tests" / "mcp_servers" / "demo_server.py"
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([*AS_NOBODY, _interpreter(), "-c", _PROBE, str(demo)], env=env,
                          cwd="/", capture_output=True, text=True, timeout=60, check=False)
    seen = done.stdout.strip()
    if done.returncode == 0 and seen and Path(seen).resolve() == here:
        return None
    closed = _closed_directory(CHECKOUT)
    why = (f"{closed} is mode {stat.S_IMODE(os.stat(closed).st_mode):04o}" if closed
           else "its files are not readable by others")
    return (f"uid {NOBODY} cannot read this checkout {CHECKOUT} ({why}), so it would not run "
            "this goosectx; to run this test, clone the repository where that user can read "
            "it (every directory above it mode 755, e.g. /srv/goosectx)")


def as_nobody() -> tuple[str, ...]:
    """The command prefix that runs the rest as uid 65534; skips the test when it cannot."""
    import pytest

    why = why_not_as_nobody()
    if why is not None:
        pytest.skip(why)
    return AS_NOBODY
