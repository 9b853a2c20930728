"""The driver lock on a session: one live process drives it (docs/architecture.md §8)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from goosectx.errors import SessionInUse, StoreError


class SessionLock:
    """An exclusive ``flock`` on ``locks/<session id>.lock`` holding the owner's PID.

    The kernel drops it when the process dies (even by SIGKILL), so a crash never leaves a
    session locked. Use as a context manager or call :meth:`release`.
    """

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StoreError(
                f"cannot create the session lock {path}: {exc.strerror}",
                f"make {path.parent} a writable directory (move aside what is there)",
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                pid = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            finally:
                os.close(fd)
            raise SessionInUse(
                f"session {session_id} is in use by PID {pid}",
                "finish or close that goosectx first, or start a new session",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd: int | None = fd

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SessionLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
