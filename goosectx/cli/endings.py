"""How a goosectx command ends: the one-line error, and exits that say what went wrong.

Used by :mod:`goosectx.cli.app`'s ``main`` and :mod:`goosectx.cli.dispatch`: a closed stdout
or stderr (``>&-``), an output that could not be written (a full disk), a current directory
deleted under the command, and the exit without interpreter teardown of the commands that save
and close before they return.
"""

from __future__ import annotations

import contextlib
import os
import sys


def closed_output() -> int:
    """1 after one line on stderr when stdout or stderr is closed (``>&-``), else 0.

    Nothing could say what a command did; ``run`` would pay for an answer it cannot show.
    """
    if sys.stdout is not None and sys.stderr is not None:
        return 0
    which = "standard output" if sys.stdout is None else "standard error"
    line = (f"goosectx: error: {which} is closed — run goosectx with it open (send it to "
            "/dev/null to discard it)\n")
    with contextlib.suppress(OSError):
        os.write(2 if sys.stderr is not None else 1, line.encode())
    return 1


def cwd_gone() -> bool:
    """True when the current directory was deleted since the command started."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def print_cwd_gone() -> int:
    """The one-line error for a deleted current directory; returns its exit code, 2."""
    from goosectx.cli.common import CWD_GONE
    from goosectx.errors import UsageError

    error = UsageError(*CWD_GONE)  # as current_dir() raises it for the commands it guards
    print_error(error.one_line())
    return error.exit_code


def cannot_write(exc: OSError) -> int:
    """The one-line error for an output (stdout or an ``-o`` file) that could not be written.

    Whatever stdout still buffers is dropped (its descriptor then points at the null device):
    the teardown's flush would fail again with a traceback-like message.
    """
    where = f"{exc.filename}" if exc.filename else "the output"
    print_error(f"cannot write {where}: {exc.strerror or exc} — free some space, or write "
                 "the output somewhere else")
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    return 1


def exit_now(code: int) -> None:
    """Flush stdout, stderr and the log, then end the process without interpreter teardown."""
    import logging
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it
            code = code or 141
    logging.shutdown()
    os._exit(code)


def print_error(line: str) -> None:
    """The one-line error, made safe and kept on one line (``sanitize.one_line_safe``).

    It may quote a provider's body or a file name: a newline in a file's name shows as ``␊``;
    a URL's password and key-like query values show as ``[REDACTED]``. A line with no URL
    (no ``://``: ``redact_urls`` returns such a text as it is) is written without importing
    the redactor (~7 ms: a dry run that would change nothing ends here).
    """
    from goosectx.cli.sanitize import one_line_safe

    if "://" in line:
        from goosectx.redaction import redact_urls

        line = redact_urls(line)
    sys.stderr.write(f"goosectx: error: {one_line_safe(line)}\n")
