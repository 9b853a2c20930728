"""The stdio transport of an MCP server: its child process, pipes, stderr tail and its end.

Written here instead of the SDK's ``stdio_client`` so goosectx knows every child's process
group: the child starts in its own session (its pid is its group id), its stderr goes to a
private temporary file whose tail explains a failure, and stopping it is bounded — stdin
closed, :data:`STDIN_GRACE_S`, SIGTERM to the group, :data:`TERM_GRACE_S`, SIGKILL. It starts
through :func:`goosectx.isolation.isolated_argv` like a shell call: as root, in a PID and mount
namespace of its own (ended, with anything the server left behind, when it stops), so it cannot
read goosectx's environment through ``/proc``.
A line on its stdout that is not JSON-RPC is counted in :class:`StdoutNoise` and dropped, never
handed to the session; more than :data:`NOISE_LIMIT_LINES` of them before its first JSON-RPC
message end its start at once (see docs/architecture.md, "Extension servers"). A message's
bytes that are not UTF-8 and its lone surrogate escapes are read as U+FFFD; a reply that still
cannot be read fails its request at once; a line is at most :data:`LINE_LIMIT_BYTES` long, a
longer one fails the call it answers and stops the server, and the reply to a cancelled call is
dropped as it arrives (:mod:`goosectx.extensions.stdout_lines`).
:func:`kill_all_now` is the last resort: every group still recorded gets SIGKILL at exit, and
an extension manager's own groups (those started on its event loop) when it stops.

Imports mcp and anyio; only the extension manager's background thread imports this module.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import IO

import anyio
import anyio.abc
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

from goosectx.extensions.stdout_lines import (
    LINE_LIMIT_BYTES,
    UNREADABLE_PREFIX,
    UNREADABLE_REPLY,
    Lines,
    parse,
)
from goosectx.isolation import PidNamespace, isolated_argv
from goosectx.tools.shell import group_alive

log = logging.getLogger("goosectx.extensions")

STDIN_GRACE_S = 0.5
"""How long a server gets to exit by itself once its stdin is closed, seconds."""
TERM_GRACE_S = 1.0
"""How long the process group gets after SIGTERM before SIGKILL, seconds."""
EXIT_CODE_WAIT_S = 2.0
"""How long a server whose stdout ended gets to exit, so its exit code can be named, seconds
(as root it exits through ``nsenter``, one more process, which a busy machine can delay)."""
STDERR_TAIL_CHARS = 2_000
NOISE_LIMIT_LINES = 1_000
"""How many lines that are not JSON-RPC a server may write to stdout before its first JSON-RPC
message (a banner is tolerated); one more and its start fails at once."""
__all__ = ["LINE_LIMIT_BYTES", "UNREADABLE_PREFIX", "UNREADABLE_REPLY"]  # (the server's names)

_live_groups: dict[int, object] = {}
"""Process groups of the servers started and not yet seen gone → the event loop each was
started on (its owner: every extension manager runs its servers on a loop of its own)."""
_groups_lock = threading.Lock()


def live_groups() -> set[int]:
    """Process groups of the servers started and not yet seen gone (a copy)."""
    with _groups_lock:
        return set(_live_groups)


def kill_group(pgid: int) -> None:
    """SIGKILL one process group (a server that did not start in time)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill_all_now(owner: object | None = None) -> int:
    """SIGKILL every recorded server process group still alive; returns how many.

    With ``owner`` (an event loop), only the groups started on it: one manager's stop leaves
    another manager's servers in the same process running. Safe from any thread and from a
    signal handler's aftermath; used when the graceful stop could not run or did not finish.
    """
    killed = 0
    with _groups_lock:
        groups = [g for g, by in _live_groups.items() if owner is None or by is owner]
        for pgid in groups:
            del _live_groups[pgid]
    for pgid in groups:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
            killed += 1
    return killed


class StderrTail:
    """A private temporary file the child writes its stderr to; :meth:`tail` reads its end."""

    def __init__(self) -> None:
        self.file: IO[bytes] = tempfile.TemporaryFile(prefix="goosectx-ext-")  # noqa: SIM115

    def tail(self, max_chars: int = STDERR_TAIL_CHARS) -> str:
        """The last ``max_chars`` characters written (decoded, invalid bytes replaced).

        Cut at a line start when more was written; a last line longer than ``max_chars``
        keeps its end, after "…".
        """
        if self.file.closed:
            return ""
        try:
            fd = self.file.fileno()
            size = os.fstat(fd).st_size
            start = max(0, size - max_chars * 4)
            data = os.pread(fd, size - start, start)
        except OSError:
            return ""
        text = data.decode("utf-8", errors="replace")
        if len(text) > max_chars or start > 0:
            text = text[-max_chars:]
            _cut, newline, rest = text.partition("\n")
            text = rest if newline and rest.strip() else "…" + text[1:]
        return text.strip()

    def close(self) -> None:
        """Remove the file."""
        with suppress(OSError):
            self.file.close()


class StdoutNoise:
    """The lines a server wrote to stdout that are not JSON-RPC (dropped, only counted).

    Attributes:
        lines: How many, in all.
        before_start: How many came before its first JSON-RPC message.
        flooded: ``before_start`` passed :data:`NOISE_LIMIT_LINES`; the server was killed.
        abandon: Set by the start-up watchdog: stop reading what the server wrote.
        overlong: Why the server was stopped for a line past :data:`LINE_LIMIT_BYTES`
            (``None``: it was not).
    """

    def __init__(self) -> None:
        self.lines = 0
        self.before_start = 0
        self.flooded = False
        self.abandon = False
        self.overlong: str | None = None
        self._started = False

    def add(self, line: bytes) -> None:
        """Count one such line (only the first is logged)."""
        if not self.lines:
            log.debug("a line from an MCP server that is not JSON-RPC: %.200r", line)
        self.lines += 1
        if not self._started:
            self.before_start += 1
            self.flooded = self.before_start > NOISE_LIMIT_LINES

    def message(self) -> None:
        """A JSON-RPC message arrived."""
        self._started = True

    def reason(self) -> str:
        """Why a server that wrote such lines before starting failed (one line)."""
        count = f"over {NOISE_LIMIT_LINES}" if self.flooded else str(self.before_start)
        return (f"wrote {count} lines that are not JSON-RPC on stdout before starting; "
                "MCP servers must write only JSON-RPC to stdout — log to stderr")


async def _wait_exit(process: anyio.abc.Process, timeout_s: float) -> bool:
    with anyio.move_on_after(timeout_s):
        while process.returncode is None:
            await anyio.sleep(0.02)
    return process.returncode is not None


async def _wait_group_gone(pgid: int, timeout_s: float) -> bool:
    with anyio.move_on_after(timeout_s):
        while group_alive(pgid):
            await anyio.sleep(0.02)
        return True
    return not group_alive(pgid)


async def stop_process(process: anyio.abc.Process) -> None:
    """Close stdin, then SIGTERM and SIGKILL the process group as needed (bounded).

    Once its exit is seen the process is closed (its pipes, then its transport), so none is
    left for the garbage collector to find unclosed after the loop ended.
    """
    pgid = process.pid
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if not await _wait_exit(process, STDIN_GRACE_S) or group_alive(pgid):
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
        if not await _wait_group_gone(pgid, TERM_GRACE_S):
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        await _wait_exit(process, TERM_GRACE_S)
    if process.returncode is not None:  # its pipes and transport closed now, on this loop
        with anyio.move_on_after(EXIT_CODE_WAIT_S):
            await process.aclose()
    with _groups_lock:
        _live_groups.pop(pgid, None)


@asynccontextmanager
async def stdio_transport(
    argv: list[str], env: dict[str, str], cwd: str | None, stderr: StderrTail,
    on_exit: Callable[[int | None], None], on_spawn: Callable[[int], None] | None = None,
    noise: StdoutNoise | None = None,
) -> AsyncIterator[TransportStreams]:
    """Start ``argv`` and exchange newline-delimited JSON-RPC over its stdin/stdout.

    Args:
        argv: Program and arguments.
        env: The child's whole environment (already scrubbed).
        cwd: Its working directory.
        stderr: Where its stderr goes.
        on_exit: Called with the exit code (or ``None``) when its stdout ends unasked.
        on_spawn: Called with the child's pid (= its process group) once it runs.
        noise: Counts the stdout lines that are not JSON-RPC; a flood of them before the
            first message kills the child (``noise.flooded``), as does ``noise.abandon``.

    Raises:
        OSError: the program cannot be started.
    """
    _check_program(argv[0], env, cwd)  # inside nsenter a missing one would only exit 127
    namespace = PidNamespace()
    try:
        argv = await anyio.to_thread.run_sync(isolated_argv, argv, cwd or os.getcwd(), namespace)
        process = await anyio.open_process(argv, env=env, cwd=cwd, stderr=stderr.file,
                                           start_new_session=True)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(namespace.close)
        raise
    try:
        async with _exchange(process, on_exit, on_spawn, noise or StdoutNoise()) as streams:
            yield streams
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(namespace.close)


NOT_FOUND = "not found"
"""How :func:`_check_program` says a program is missing (its error's ``strerror`` begins so)."""


def _check_program(program: str, env: dict[str, str], cwd: str | None) -> None:
    """Raise what starting ``program`` directly would: FileNotFoundError, PermissionError.

    A relative path with a ``/`` is taken from ``cwd`` (the server's working dir: its ``cwd``
    setting, else the session's), as the child would; not found, the error says where.
    """
    candidate = program
    relative = os.sep in program and not os.path.isabs(program)
    if relative:
        candidate = os.path.join(cwd or os.getcwd(), program)
    if shutil.which(candidate, path=env.get("PATH", os.defpath)) is None:
        if os.sep in candidate and os.path.exists(candidate):
            raise PermissionError(errno.EACCES, "not executable", program)
        raise FileNotFoundError(errno.ENOENT, NOT_FOUND + (
            f" in {cwd or os.getcwd()} (a relative cmd is looked up from the server's working "
            "dir: give an absolute path, or set cwd)" if relative else ""), program)


@asynccontextmanager
async def _exchange(process: anyio.abc.Process, on_exit: Callable[[int | None], None],
                    on_spawn: Callable[[int], None] | None, noise: StdoutNoise
                    ) -> AsyncIterator[TransportStreams]:
    with _groups_lock:
        _live_groups[process.pid] = asyncio.get_running_loop()
    if on_spawn is not None:
        on_spawn(process.pid)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    stopping = False
    lines = Lines()

    async def reader() -> None:
        assert process.stdout is not None
        try:
            async for chunk in process.stdout:
                for line in lines.feed(chunk):
                    # Each line handed on costs the session a task: drop what is not JSON-RPC.
                    message = parse(line) if line.lstrip()[:1] == b"{" else None
                    if message is not None:
                        noise.message()
                        await read_writer.send(message)
                    elif line.strip():
                        noise.add(line)
                if lines.overlong is not None:  # fail the call it answers; stop the server
                    noise.overlong = lines.overlong
                    if (failed := lines.failed_reply()) is not None:
                        await read_writer.send(failed)
                    kill_group(process.pid)
                    break
                if noise.flooded or noise.abandon:
                    kill_group(process.pid)
                    break
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        if not stopping:  # the server went away unasked: say so before the session notices
            with anyio.CancelScope(shield=True):
                await _wait_exit(process, EXIT_CODE_WAIT_S)
            on_exit(process.returncode)
        await read_writer.aclose()

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    if '"notifications/cancelled"' in data:  # its reply is dropped as it comes
                        lines.cancelled(data)
                    await process.stdin.send((data + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            stopping = True
            with anyio.CancelScope(shield=True):
                write_stream.close()
                read_stream.close()
                await stop_process(process)
            tg.cancel_scope.cancel()
    for stream in (read_writer, read_stream, write_stream, write_reader):
        stream.close()
