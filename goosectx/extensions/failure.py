"""Why an MCP server failed, in one line: how its process ended, or what its error was.

Part of the extensions adapter (docs/architecture.md §1, §9): :mod:`goosectx.extensions.server`
keeps this line as a server's reason, shown by ``/extension list`` and in a failed call's result.
"""

from __future__ import annotations

import signal

from mcp.shared.exceptions import MCPError

from goosectx.extensions.process import NOT_FOUND


def exit_reason(code: int | None) -> str:
    """How a server process ended: ``exited with code 3``, ``killed by SIGTERM``, ``exited``.

    ``code`` is the process's return code (negative: the signal that ended it).
    """
    if code is None:
        return "exited"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


def failure_reason(exc: BaseException) -> str:
    """What went wrong, in one line.

    A start that failed (command not found, permission denied), an MCP error with its code,
    else the exception's type and first line; of a group, its first exception.
    """
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return failure_reason(exc.exceptions[0])
    if isinstance(exc, FileNotFoundError):
        said = exc.strerror if (exc.strerror or "").startswith(NOT_FOUND) else NOT_FOUND
        return f"could not start: {exc.filename or 'the command'} {said}"
    if isinstance(exc, PermissionError):
        return f"could not start: permission denied ({exc.filename or ''})"
    if isinstance(exc, MCPError):
        return f"error {exc.code}: {exc.message}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
