"""The ``shell`` tool: one ``bash -c`` command in the session's working directory.

Each call runs in its own process group (``start_new_session``) with stdin closed. A
timeout or the turn's cancel event kills the whole group — SIGTERM, then SIGKILL after
:data:`KILL_GRACE_S` — so background children die with the command. stdout and stderr are
read concurrently from one thread (``selectors``), decoded as UTF-8 with replacement,
redacted and capped as they arrive (:class:`goosectx.tools.output.OutputStream`).

Every call starts through :func:`goosectx.isolation.spawn_isolated`: as root, where the kernel
allows it, inside the tool's own PID and mount namespace (:class:`goosectx.isolation.PidNamespace`,
entered with ``nsenter``), so ``/proc`` does not show goosectx; the process group killed on
timeout or cancel is still the host's. :meth:`ShellTool.close` (the tool registry's close, when
the session ends) ends the namespace and every process left in it.
"""

from __future__ import annotations

import errno
import os
import selectors
import signal
import subprocess
import time
from typing import TYPE_CHECKING, Any

from goosectx.isolation import PidNamespace, spawn_isolated
from goosectx.tools.base import ToolContext, ToolResult, working_dir_gone
from goosectx.tools.definitions import SHELL_DESCRIPTION, SHELL_NAME, SHELL_PARAMETERS

if TYPE_CHECKING:  # loaded at the first call (not for the schema alone)
    from goosectx.tools.output import OutputStream

KILL_GRACE_S = 0.5
"""Seconds between SIGTERM and SIGKILL when a command's process group is killed."""

POST_EXIT_GRACE_S = 0.5
"""Seconds to keep reading after bash exits while a background process still holds its
output pipes open; after that the call returns and later output is dropped."""

_POLL_S = 0.05
_READ_CHUNK_BYTES = 65536

ELAPSED_AFTER_S = 2.0
"""Seconds a command runs before the spinner shows its elapsed time."""
STATUS_INTERVAL_S = 0.25
"""Least time between two status lines of a running command."""
_TAIL_CHARS = 2_000


class _Status:
    """A running command's spinner line: ``running shell… 5s · <its last output line>``."""

    def __init__(self, ctx: ToolContext) -> None:
        self.report = ctx.spinner
        self.redact = ctx.redact
        self.started = time.monotonic()
        self.tail = ""
        self.sent = ""
        self.next_s = self.started

    def feed(self, data: bytes) -> None:
        if self.report is not None:
            self.tail = (self.tail + data.decode("utf-8", "replace"))[-_TAIL_CHARS:]

    def tick(self, now: float) -> None:
        if self.report is None or now < self.next_s:
            return
        elapsed = now - self.started
        text = "running shell…" + (f" {elapsed:.0f}s" if elapsed >= ELAPSED_AFTER_S else "")
        lines = [ln for ln in self.redact(self.tail).replace("\r", "\n").split("\n")
                 if ln.strip()]
        if lines:
            text += " · " + lines[-1].strip()
        if text != self.sent:
            self.sent = text
            self.report(text)
        self.next_s = now + STATUS_INTERVAL_S


def group_alive(pgid: int) -> bool:
    """True while a process of group ``pgid`` is running (zombies do not count).

    ``killpg(pgid, 0)`` alone also counts zombies, which linger when pid 1 does not reap
    orphans (common in containers), so on Linux ``/proc`` is checked as well.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return True
    for pid in entries:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        state, _ppid, pgrp = stat[stat.rfind(")") + 2 :].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            return True
    return False


def kill_process_group(proc: subprocess.Popen[bytes], grace_s: float = KILL_GRACE_S) -> None:
    """Kill ``proc``'s whole process group: SIGTERM, then SIGKILL after ``grace_s`` seconds.

    ``proc`` must have been started with ``start_new_session=True`` (its pid is the group
    id). Returns once ``proc`` is reaped and the group is empty (or, for a process stuck in
    the kernel, ``grace_s`` after SIGKILL).
    """
    pgid = proc.pid
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        proc.wait()
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        proc.poll()  # reap bash so its zombie does not keep the group "alive"
        if not group_alive(pgid):
            break
        time.sleep(0.01)
    else:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        # SIGKILL is delivered asynchronously; return once the group is really gone.
        deadline = time.monotonic() + grace_s
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.01)
    proc.wait()


def _timeout_arg(arguments: dict[str, Any], default_s: float) -> float | str:
    value = arguments.get("timeout_s", default_s)
    if value is None:
        return default_s
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        return f"timeout_s must be a number of seconds greater than 0; got {value!r}"
    return float(value)


class ShellTool:
    """Runs a bash command; see the module docstring for process and output handling."""

    name = SHELL_NAME
    nul_free = {"command": "a shell command"}
    """Arguments that cannot hold a NUL character (``ToolRegistry.nul_refusal``)."""
    description = SHELL_DESCRIPTION
    parameters: dict[str, Any] = SHELL_PARAMETERS

    def __init__(self) -> None:
        self.namespace = PidNamespace()
        """Where this tool's calls run as root (shared with a REPL ``!command``)."""

    def close(self) -> None:
        """End the namespace of this tool's calls (root only) and every process in it."""
        self.namespace.close()

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Never: a shell command can change anything."""
        return False

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run ``arguments["command"]`` with ``bash -c`` in ``ctx.working_dir``.

        Returns:
            stdout, then ``[stderr]`` and stderr when there is any, then a status line
            (``[exit code: N]``, or a timeout/cancel note); at most ``ctx.max_output_chars``
            characters, redacted with ``ctx.redact``. ``is_error`` is set for a non-zero exit,
            a timeout, a cancel, or a command that could not start.
        """
        from goosectx.tools.output import OutputStream

        command = arguments.get("command")
        if not isinstance(command, str) or not command.strip():
            return ToolResult("shell needs a non-empty string 'command'", is_error=True)
        timeout_s = _timeout_arg(arguments, ctx.timeout_s)
        if isinstance(timeout_s, str):
            return ToolResult(timeout_s, is_error=True)
        if ctx.cancel.is_set():
            return ToolResult("[cancelled before the command started]", is_error=True)
        try:
            proc = spawn_isolated(["bash", "-c", command], cwd=ctx.working_dir, env=ctx.env,
                                  namespace=self.namespace)
        except OSError as exc:
            if exc.errno == errno.E2BIG:  # one argument over the kernel's limit (128 KiB)
                return ToolResult(
                    f"the command is too long to run ({len(command):,} characters; one "
                    "argument may be at most 131,072 bytes): write the script to a file with "
                    "text_editor and run the file", is_error=True)
            if not os.path.isdir(ctx.working_dir):
                return ToolResult("could not start bash: " + working_dir_gone(
                    ctx.working_dir, "no command can run"), is_error=True)
            return ToolResult(f"could not start bash in {ctx.working_dir}: "
                              f"{exc.strerror or exc}", is_error=True)
        streams = [
            OutputStream(label, ctx.max_output_chars, ctx.overflow_dir, ctx.redact,
                         session_id=ctx.session_id)
            for label in ("stdout", "stderr")
        ]
        try:
            stop, lingering = self._pump(proc, streams, timeout_s, ctx)
        finally:
            if proc.poll() is None:
                kill_process_group(proc)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            for stream in streams:
                stream.close()
        return self._result(proc.returncode, stop, lingering, timeout_s, streams, ctx)

    def _pump(
        self,
        proc: subprocess.Popen[bytes],
        streams: list[OutputStream],
        timeout_s: float,
        ctx: ToolContext,
    ) -> tuple[str | None, bool]:
        """Read both pipes until EOF and exit; returns (stop reason or None, lingering)."""
        assert proc.stdout is not None and proc.stderr is not None
        by_fd = {proc.stdout.fileno(): streams[0], proc.stderr.fileno(): streams[1]}
        stop: str | None = None
        exited_at: float | None = None
        deadline = time.monotonic() + timeout_s
        status = _Status(ctx)
        with selectors.DefaultSelector() as selector:
            for fd in by_fd:
                selector.register(fd, selectors.EVENT_READ)
            while True:
                if selector.get_map():
                    for key, _ in selector.select(_POLL_S):
                        data = os.read(key.fd, _READ_CHUNK_BYTES)
                        if data:
                            by_fd[key.fd].feed(data)
                            status.feed(data)
                        else:
                            selector.unregister(key.fd)
                else:
                    try:
                        proc.wait(_POLL_S)
                    except subprocess.TimeoutExpired:
                        pass
                now = time.monotonic()
                status.tick(now)
                if stop is None and (ctx.cancel.is_set() or now >= deadline):
                    stop = "cancelled" if ctx.cancel.is_set() else "timeout"
                    kill_process_group(proc)
                if proc.poll() is not None:
                    if not selector.get_map():
                        return stop, False
                    exited_at = exited_at if exited_at is not None else now
                    if now - exited_at > POST_EXIT_GRACE_S:
                        return stop, True

    def _result(
        self,
        returncode: int | None,
        stop: str | None,
        lingering: bool,
        timeout_s: float,
        streams: list[OutputStream],
        ctx: ToolContext,
    ) -> ToolResult:
        from goosectx.tools.output import share_budget

        if stop == "timeout":
            status = (f"[timed out after {timeout_s:g} s; the command and its child processes "
                      "were killed]")
        elif stop == "cancelled":
            status = "[cancelled; the command and its child processes were killed]"
        elif returncode is not None and returncode < 0:
            status = f"[killed by signal {-returncode}]"
        else:
            status = f"[exit code: {returncode}]"
        if lingering:
            status = ("[a background process kept the output open after the command exited; "
                      "its later output is not shown — redirect it to a file]\n" + status)
        shown = [s for s in streams if s.total_chars]
        headers = {"stdout": "", "stderr": "[stderr]\n"}
        fixed_chars = len(status) + sum(len(headers[s.label]) + 1 for s in shown)
        if not shown:
            body = "(no output)\n"
        else:
            budgets = share_budget(shown, ctx.max_output_chars - fixed_chars)
            body = ""
            for stream, budget in zip(shown, budgets, strict=True):
                text = stream.text(budget)
                body += headers[stream.label] + text + ("" if text.endswith("\n") else "\n")
        is_error = stop is not None or returncode != 0
        return ToolResult(ctx.redact(body + status), is_error=is_error)
