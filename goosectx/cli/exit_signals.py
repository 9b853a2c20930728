"""SIGTERM and SIGHUP end a command the way Ctrl-C does (docs/architecture.md §1, "Who writes").

Closing the terminal window (SIGHUP) or a ``kill`` (SIGTERM) used to end goosectx at once: an
answer streaming in was lost and extension servers were left to the exit guard. Here each of
them becomes a Ctrl-C press: whatever handles SIGINT at that moment handles it — the REPL's
:class:`~goosectx.cli.driver.TurnDriver` (the turn is cancelled and closed out: the partial
answer kept and marked, open tool calls answered, everything recorded), the prompt (the REPL
then leaves, saying the session is saved), ``run``'s ``KeyboardInterrupt`` handling — so there
is one path, not two. The signal is remembered: :func:`received` tells the REPL to leave once
the turn is closed out, and :func:`exit_status` makes the exit status the conventional
128 + the signal's number (143, 129) instead of Ctrl-C's 130.

:class:`GoneTerminalFile` keeps writes to a terminal that is gone (the window closed: EIO)
from ending the REPL before what is still in flight is saved.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any, TextIO, cast

from goosectx.cli import early_cancel

__all__ = ["GoneTerminalFile", "as_ctrl_c", "exit_status", "received", "received_name",
           "survive_hangup"]

SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""The signals that end goosectx like Ctrl-C."""

_received: list[int] = []


def received() -> int | None:
    """The first SIGTERM / SIGHUP received inside the last :func:`as_ctrl_c`, or ``None``."""
    return _received[0] if _received else None


def received_name() -> str | None:
    """The name of :func:`received`'s signal (``"SIGTERM"``, ``"SIGHUP"``), or ``None``."""
    signum = received()
    return None if signum is None else signal.Signals(signum).name


def exit_status(code: int) -> int:
    """``code``, or 128 + the signal's number once SIGTERM (143) or SIGHUP (129) came."""
    signum = received()
    return code if signum is None else 128 + signum


def _as_ctrl_c(signum: int, _frame: Any) -> None:
    """Remember the signal, then press Ctrl-C: the current SIGINT handler takes it from here."""
    if not _received:
        _received.append(signum)
    pressed = signal.getsignal(signal.SIGINT)
    if early_cancel.is_guard(pressed) and callable(pressed):  # still starting: it ends the
        pressed(signum, _frame)  # process, naming this signal (143 / 129, not Ctrl-C's 130)
    if callable(signal.getsignal(signal.SIGINT)):
        signal.raise_signal(signal.SIGINT)  # the driver's, the prompt's or Python's default
    else:  # SIGINT ignored (a background job): still leave the way Ctrl-C would
        raise KeyboardInterrupt


@contextlib.contextmanager
def as_ctrl_c() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP act as Ctrl-C (main thread only; else nothing changes).

    A signal whose handling someone changed from the default (e.g. ignored with ``nohup``) is
    left alone, except the start-up guard's (:mod:`goosectx.cli.early_cancel`), which this
    takes over; the defaults are back on leaving. :func:`received` starts empty and keeps its
    answer after leaving (for the exit status).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    taken = [s for s in SIGNALS if signal.getsignal(s) == signal.SIG_DFL
             or early_cancel.is_guard(signal.getsignal(s))]
    for signum in taken:
        signal.signal(signum, _as_ctrl_c)
    try:
        yield
    finally:
        for signum in taken:
            signal.signal(signum, signal.SIG_DFL)


class GoneTerminalFile:
    """A console's output file that survives the terminal going away.

    Once a write or flush fails with ``OSError`` (EIO after the window closed), it stops
    writing: the REPL goes on to close out the turn and save it, drawing nothing. Everything
    else is the wrapped stream's.

    Args:
        stream: The real output (``sys.stdout``).
    """

    def __init__(self, stream: IO[str], only: frozenset[int] | None = None) -> None:
        self._stream = stream
        self._only = only
        self.gone = False
        """True once a write failed: nothing is written any more."""
        self.error: OSError | None = None
        """The failure that made it gone (``only``: the errnos taken; others are raised)."""

    def _failed(self, exc: OSError) -> None:
        if self._only is not None and exc.errno not in self._only:
            raise exc
        self.gone, self.error = True, exc

    def write(self, text: str) -> int:
        """Write ``text`` unless the terminal is gone; returns its length either way."""
        if not self.gone:
            try:
                self._stream.write(text)
            except OSError as exc:
                self._failed(exc)
        return len(text)

    def flush(self) -> None:
        """Flush unless the terminal is gone."""
        if not self.gone:
            try:
                self._stream.flush()
            except OSError as exc:
                self._failed(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


WRITE_FAILED_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""An output that could not be written for want of room (or a device error)."""


CLOSED_PIPE_ERRNOS = frozenset({errno.EPIPE})
"""An output pipe whose reader left (``| head -c 20``, a pager quitting)."""


def survive_lost_output(stream: TextIO, *, full_disk: bool = True) -> TextIO:
    """``stream`` through a :class:`GoneTerminalFile` that takes a closed pipe's errors.

    With ``full_disk`` (stdout) a full disk's too. ``run`` then finishes its turn and saves the
    answer it paid for; it reports the lost output after (the wrapper's ``error``). Any other
    write error is raised.
    """
    if isinstance(stream, GoneTerminalFile):
        return stream
    taken = CLOSED_PIPE_ERRNOS | (WRITE_FAILED_ERRNOS if full_disk else frozenset())
    return cast("TextIO", GoneTerminalFile(stream, taken))


def survive_hangup(stream: TextIO) -> TextIO:
    """``stream`` through a :class:`GoneTerminalFile` when it is a terminal, else unchanged.

    A pipe keeps its errors (a closed pipe still ends ``run`` with 141).
    """
    isatty = getattr(stream, "isatty", None)
    if isatty is None or not isatty():
        return stream
    return cast("TextIO", GoneTerminalFile(stream))


def closed_pipe() -> int:
    """Exit status 141 for an output pipe closed by its reader (``| head -1``), as SIGPIPE.

    Nothing is said (as other CLIs). stdout is pointed at the null device so the final flush
    of what it still buffers does not fail again at exit.
    """
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    return 141
