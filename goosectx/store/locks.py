"""The driver lock on a session: one live process drives it (docs/architecture.md §8)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import NamedTuple

from goosectx.errors import SessionInUse, StoreError
from goosectx.private_mode import make_private
from goosectx.session import valid_session_id


class LockHolder(NamedTuple):
    """The live process holding a session's lock (:meth:`SessionLock.holder`).

    Attributes:
        pid: Its PID as it wrote it in the lock file (``"unknown"`` when it wrote none).
        since_s: When it took the lock, seconds since the epoch (the lock file's mtime).
    """

    pid: str
    since_s: float


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
            make_private(path.parent, path)  # made before with a wider mode: 0700 / 0600
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
        try:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        except OSError:
            pass  # a full disk: the lock holds; only the PID in the message is missing
        self._fd: int | None = fd

    @classmethod
    def for_session(cls, locks_dir: Path, session_id: str) -> SessionLock:
        """The lock of ``session_id`` in ``locks_dir``, built only from a validated id.

        Raises:
            StoreError: the id is not a valid session id, or its lock path would leave
                ``locks_dir`` (an id from an old import: re-import the session).
        """
        path = locks_dir / f"{session_id}.lock"
        if not valid_session_id(session_id) or path.parent != locks_dir or (
                locks_dir.exists() and path.resolve().parent != locks_dir.resolve()):
            raise StoreError(
                f"session id {session_id!r} cannot be used as a lock file name",
                "export the session and import it again: the import gives it a valid id",
            )
        return cls(path, session_id)

    @staticmethod
    def holder(locks_dir: Path, session_id: str) -> LockHolder | None:
        """The live process holding the lock of ``session_id``, else ``None``.

        Its PID as it wrote it (``"unknown"`` when it wrote none) and when it took the lock
        (the file's mtime: taking it writes the PID). Takes no lock it keeps and creates
        nothing; a lock file that cannot be read counts as not held.
        """
        path = locks_dir / f"{session_id}.lock"
        if not valid_session_id(session_id) or path.parent != locks_dir:
            return None
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None  # never locked (or unreadable): no live driver to name
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
                return LockHolder(pid, os.fstat(fd).st_mtime)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        except OSError:
            return None
        finally:
            os.close(fd)

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def release_removed(self) -> None:
        """Release the lock of a session just removed, deleting its lock file first.

        Deleted while still held: a process that opens the path later makes a new file and
        finds no session; one that opened the old file meanwhile could not take the lock.
        """
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
        self.release()

    def __enter__(self) -> SessionLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
