"""Keeping goosectx's own environment (its API keys) away from the processes it starts.

A child process gets a scrubbed environment (``tools/builtin.py``), but on Linux it could
still read goosectx's original environment through ``/proc/<pid>/environ`` (or its memory
through ``/proc/<pid>/mem``). :func:`protect_self` marks goosectx non-dumpable
(``prctl(PR_SET_DUMPABLE, 0)``): a process of the same user can then no longer open those
files. Root bypasses this (``CAP_SYS_PTRACE``), so as root, when the kernel allows it
(:func:`namespaces_available`), shell calls and extension servers run in a
:class:`PidNamespace` of their own: its ``/proc`` shows only the namespace's processes, never
goosectx (docs/architecture.md, "Security").

:func:`spawn_isolated` is the one way goosectx starts a command for the model or the user (the
shell tool, a REPL ``!command``); :func:`isolated_argv` is the same path for callers that start
the process themselves (stdio extension servers, through anyio).
"""

from __future__ import annotations

import functools
import os
import select
import shutil
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable

PR_SET_DUMPABLE = 4

NAMESPACE_START_S = 5.0
"""Seconds the namespace init may take to report ready before calls run without it."""

NAMESPACE_TAG = "goosectx-namespace"
"""``$0`` of a namespace's pid 1, followed by goosectx's pid: ``ps`` shows whose it is."""

# pid 1 of the namespace. It drops the copy of the host's /proc (lazily, with everything
# mounted under it, so root inside cannot unmount its way back to it), mounts the
# namespace's own, says "ready" and then waits on stdin: when goosectx closes the pipe —
# or dies, however it dies — `read` returns, pid 1 exits and the kernel kills every
# process left in the namespace.
_INIT_SCRIPT = "umount -l /proc && mount -t proc proc /proc || exit 1; echo ready; read _"


def protect_self() -> bool:
    """Make this process non-dumpable so same-user children cannot read its ``/proc`` files.

    Returns:
        True when ``prctl(PR_SET_DUMPABLE, 0)`` succeeded (Linux), else False.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: the shell tool and extension servers import this module too

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


@functools.lru_cache(maxsize=1)
def namespaces_available() -> bool:
    """True when running as root and ``unshare --pid --fork --mount-proc true`` works.

    Only root needs (and, without user namespaces, can make) a PID namespace: for other
    users :func:`protect_self` already protects. Probed once per process.
    """
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return False
    try:
        probe = subprocess.run(
            ["unshare", "--pid", "--fork", "--mount-proc", "true"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=_minimal_env(), timeout=NAMESPACE_START_S, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def _minimal_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")}


def _child_of(ppid: int) -> int | None:
    """The host pid of a child of ``ppid`` (the namespace's pid 1 is unshare's only child)."""
    try:
        with open(f"/proc/{ppid}/task/{ppid}/children", encoding="ascii") as fh:
            children = fh.read().split()
        if children:
            return int(children[0])
    except OSError:
        pass
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2 :].split()[1]) == ppid:
            return int(entry.name)
    return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End a namespace: close pid 1's stdin (it exits, the kernel kills the rest), reap."""
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    try:
        proc.wait(NAMESPACE_START_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


class PidNamespace:
    """One PID and mount namespace for a session's shell calls (root only).

    Started on first use by :meth:`wrap`; every call enters it with ``nsenter``, so a
    background job started by one call is still there for the next. :meth:`close` (also run
    when the object is collected or the interpreter exits, and implied by goosectx dying:
    pid 1 reads a pipe only goosectx holds) ends it and every process in it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._init_pid: int | None = None
        self._finalizer: Callable[[], object] | None = None

    def wrap(self, argv: list[str], cwd: str) -> list[str] | None:
        """``argv`` made to run inside the namespace in ``cwd``; None when it cannot start."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            if self._init_pid is None:
                return None
            return ["nsenter", f"--target={self._init_pid}", "--pid", "--mount",
                    f"--wd={cwd}", "--", *argv]

    def _start(self) -> None:
        self._close_locked()
        try:
            proc = subprocess.Popen(
                ["unshare", "--pid", "--fork", "--mount", "--propagation", "slave",
                 "--kill-child", "--", "bash", "-c", _INIT_SCRIPT,
                 f"{NAMESPACE_TAG}-{os.getpid()}"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=_minimal_env(), cwd="/", start_new_session=True,
            )
        except OSError:
            return
        self._proc = proc
        self._finalizer = weakref.finalize(self, _stop, proc)
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], NAMESPACE_START_S)
        line = os.read(proc.stdout.fileno(), 64) if ready else b""
        init_pid = _child_of(proc.pid) if line.startswith(b"ready") else None
        if init_pid is None:
            self._close_locked()
            return
        self._init_pid = init_pid

    def close(self) -> None:
        """End the namespace and every process still running in it."""
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._proc = None
        self._init_pid = None
        self._finalizer = None


def isolated_argv(argv: list[str], cwd: str, namespace: PidNamespace | None) -> list[str]:
    """``argv`` made to run inside ``namespace`` (as root, where the kernel allows it).

    Returns ``argv`` unchanged when ``namespace`` is None, for other users (non-dumpable
    goosectx already protects, :func:`protect_self`), or when the namespace cannot start.
    May block for up to :data:`NAMESPACE_START_S` seconds while the namespace starts.
    """
    if namespace is None or not namespaces_available():
        return argv
    return namespace.wrap(argv, cwd) or argv


def spawn_isolated(
    argv: list[str], *, cwd: str | os.PathLike[str], env: dict[str, str],
    namespace: PidNamespace | None, stdin: int | None = subprocess.DEVNULL,
    stdout: int | None = subprocess.PIPE, stderr: int | None = subprocess.PIPE,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` the way every command goosectx runs for the model or the user starts.

    In ``cwd``, with ``env`` as its whole environment (scrub it first:
    ``goosectx.tools.builtin.tool_env``), in a new session (its pid is its process group,
    for :func:`goosectx.tools.shell.kill_process_group`) and, as root, inside ``namespace``
    (:func:`isolated_argv`). The process group killed on timeout or cancel is the host's.

    Raises:
        OSError: the program cannot be started.
    """
    return subprocess.Popen(
        isolated_argv(argv, os.fspath(cwd), namespace), cwd=cwd, env=env, stdin=stdin,
        stdout=stdout, stderr=stderr, start_new_session=True,
    )
