"""The transient progress line of ``goosectx sessions import`` on a terminal's stderr.

A 45 MB transcript takes seconds to read and save, and the command said nothing meanwhile.
An import still under way after :data:`DELAY_S` shows one line on stderr, redrawn in place
(a carriage return; no escape sequence) and erased before the command prints anything else:
``importing big.jsonl: 12.4 of 45.0 MB read``, then ``importing big.jsonl (45.0 MB): saving
45,000 messages``. Nothing when stderr is not a terminal (a pipe, a log file), nor for an
import that is done sooner. The file's name passes the one sanitiser
(:func:`~goosectx.cli.sanitize.one_line_safe`). The figures come from
:data:`goosectx.importers.progress.reading`.
"""

from __future__ import annotations

import shutil
import sys
import threading
from types import TracebackType
from typing import TextIO

from goosectx.cli.sanitize import one_line_safe
from goosectx.importers.progress import reading

DELAY_S = 1.0
"""How long an import runs before the line is drawn."""
REDRAW_S = 0.2
"""How often the line is drawn again."""


class ImportProgress:
    """The progress line of one import (a context manager; see the module's text).

    Args:
        name: The file as the user knows it (``-``: stdin).
        total: Its size in bytes (0: unknown, then no "of N MB").
        stream: Where to draw (default ``sys.stderr``); only a terminal gets the line.
    """

    def __init__(self, name: str, total: int, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stderr
        self._name = one_line_safe("stdin" if name == "-" else name)
        self._total = total
        self._saving: str | None = None
        self._hidden = False
        self._drawn = 0  # columns of the line on screen (0: none)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            on = self._stream.isatty()
        except (AttributeError, ValueError, OSError):  # (a closed or odd stream)
            on = False
        if on:
            self._thread = threading.Thread(target=self._run, name="goosectx-import-progress",
                                            daemon=True)

    def __enter__(self) -> ImportProgress:
        reading.done = 0
        if self._thread is not None:
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def saving(self, number: int, of: int, messages: int) -> None:
        """Say that session ``number`` of ``of`` (``messages`` messages) is being saved."""
        what = f"session {number:,} of {of:,}, " if of > 1 else ""
        with self._lock:
            self._hidden = False
            self._saving = f"saving {what}{messages:,} message{'' if messages == 1 else 's'}"

    def hide(self) -> None:
        """Erase the line and draw nothing until :meth:`saving` (a question is asked)."""
        with self._lock:
            self._hidden = True
            self._erase()

    def stop(self) -> None:
        """Stop drawing and erase the line (the command prints its own lines next)."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join()
        with self._lock:
            self._erase()

    def _run(self) -> None:
        if self._stop.wait(DELAY_S):
            return
        while True:
            with self._lock:
                if not self._hidden and not self._stop.is_set():
                    self._draw(self._text())
            if self._stop.wait(REDRAW_S):
                return

    def _text(self) -> str:
        mb = 2**20
        if self._saving is not None:
            size = f" ({self._total / mb:,.1f} MB)" if self._total else ""
            return f"importing {self._name}{size}: {self._saving}"
        done = min(reading.done, self._total) if self._total else reading.done
        if self._total and done >= self._total:
            return f"importing {self._name}: {self._total / mb:,.1f} MB read, converting"
        of = f" of {self._total / mb:,.1f}" if self._total else ""
        return f"importing {self._name}: {done / mb:,.1f}{of} MB read"

    def _draw(self, text: str) -> None:
        from rich.cells import cell_len, set_cell_size

        room = max(10, shutil.get_terminal_size((80, 24)).columns - 1)
        if cell_len(text) > room:
            text = set_cell_size(text, room - 1) + "…"
        width = cell_len(text)
        self._write("\r" + text + " " * max(0, self._drawn - width))
        self._drawn = width

    def _erase(self) -> None:
        if self._drawn:
            self._write("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a terminal that is gone: the import goes on
            self._drawn = 0
