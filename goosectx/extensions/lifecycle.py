"""The last line of defence: no server process outlives goosectx.

:func:`kill_survivors` SIGKILLs every server process group still recorded (or one manager's,
given its event loop); it imports
nothing heavy (when no server was ever started, the process module was never loaded and
there is nothing to kill). :func:`install_exit_guard` runs it at interpreter exit, so even a
path that skipped :meth:`ExtensionManager.stop_all` (an uncaught error) leaves no child
behind; SIGTERM and SIGHUP become ``SystemExit`` so the graceful stop runs first.
"""

from __future__ import annotations

import atexit
import signal
import sys
import threading
from typing import Any

_installed = False


def kill_survivors(owner: object | None = None) -> int:
    """SIGKILL every recorded server process group still alive; returns how many.

    ``owner``: an extension manager's event loop; only the groups started on it are killed.
    """
    process = sys.modules.get("goosectx.extensions.process")
    if process is None:
        return 0
    return int(process.kill_all_now(owner))


def _terminate(signum: int, _frame: Any) -> None:
    """SIGTERM / SIGHUP: leave through ``SystemExit`` so ``finally`` blocks stop the servers."""
    raise SystemExit(128 + signum)


def install_exit_guard() -> None:
    """Register :func:`kill_survivors` at exit; SIGTERM and SIGHUP leave via ``SystemExit``.

    Where those signals would otherwise end the process at once (their default), they raise
    ``SystemExit`` instead so the servers are stopped. Once; the main thread only.
    """
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(kill_survivors)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _terminate)
