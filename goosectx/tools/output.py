"""Tool output: decoding, streaming redaction, capping and overflow files.

A command's output passes through ``bytes → OutputStream.feed → text`` without ever being
held whole in memory: the stream keeps at most ``max_chars`` characters from the head and
``max_chars`` from the tail, and once it grows past ``max_chars`` writes everything to an
overflow file (up to :data:`~goosectx.tools.overflow_files.MAX_FILE_BYTES`, then its tail:
:mod:`goosectx.tools.overflow_files`). Bytes are decoded losslessly (``surrogateescape``), so
the overflow file holds exactly the bytes the command wrote (binary output too), secrets
redacted; only the text the model sees has invalid bytes and NULs replaced.
``render_streams`` then picks a head and a tail of each stream that fit the cap together and
names the file holding the rest.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from pathlib import Path
from typing import IO

from goosectx.errors import is_disk_full
from goosectx.tools import overflow_files
from goosectx.tools.overflow_files import fit_bytes, open_private, overflow_path

REDACT_HOLDBACK_CHARS = 4096
"""Characters held back before redaction so a secret split across two reads is still
caught; secrets longer than this could slip through a read boundary."""


CUT_MARKER = re.compile(r"\[\.\.\. (?:[\d,]+ characters of \S+ cut; .* \.\.\.|"
                        r"output cut at [\d,]+ of [\d,]+ characters; .*)\]")
"""A whole line that is one of the cut markers below (:meth:`OutputStream.text`,
:func:`cap_text`): what the drawing of a folded result looks for (``fullmatch``)."""


_UNSHOWABLE = {i: "\ufffd" for i in (0, *range(0xDC80, 0xDD00))}
"""NUL and the lone surrogates ``surrogateescape`` makes of invalid bytes → U+FFFD."""


def _shown(text: str) -> str:
    return text.translate(_UNSHOWABLE)


def _save_error(exc: OSError) -> str:
    if is_disk_full(exc):
        return "disk full"
    return exc.strerror or str(exc)


class OutputStream:
    """One output stream (stdout or stderr) of a command, decoded, redacted and capped.

    Bytes are decoded as UTF-8, invalid bytes kept as lone surrogates (one per byte) so the
    overflow file gets them back exactly; ``redact`` is applied before anything is kept or
    written. :meth:`text` shows invalid bytes and NUL characters as U+FFFD.

    Attributes:
        label: ``stdout`` / ``stderr``; used in the overflow file name and the cut marker.
        total_chars: Characters seen so far (after redaction).
        path: The overflow file holding the full stream (its head and tail past
            ``MAX_FILE_BYTES``), once one was written.
        dropped_chars: Characters left out of the overflow file at its cap.
        save_error: Why the overflow file could not be written ("disk full"), if it could
            not; the head and tail are still kept and the marker says so.
    """

    def __init__(
        self,
        label: str,
        max_chars: int,
        overflow_dir: Path,
        redact: Callable[[str], str] = lambda text: text,
        name_prefix: str = "shell",
        session_id: str = "",
    ) -> None:
        self.label = label
        self.total_chars = 0
        self.path: Path | None = None
        self.save_error: str | None = None
        self._max_chars = max(1, max_chars)
        self._overflow_dir = overflow_dir
        self._prefix = name_prefix
        self._session_id = session_id
        self.dropped_chars = 0
        self._file_bytes = 0
        self._redact = redact
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        self._pending = ""
        self._head = ""
        self._tail = ""
        self._file: IO[str] | None = None

    def feed(self, data: bytes) -> None:
        """Take the next chunk of raw output."""
        self._pending += self._decoder.decode(data)
        if len(self._pending) > 2 * REDACT_HOLDBACK_CHARS:
            text = self._redact(self._pending)
            self._keep(text[:-REDACT_HOLDBACK_CHARS])
            self._pending = text[-REDACT_HOLDBACK_CHARS:]

    def close(self) -> None:
        """Flush what was held back and close the overflow file; call once at EOF."""
        self._pending += self._decoder.decode(b"", final=True)
        self._keep(self._redact(self._pending))
        self._pending = ""
        self._close_file()

    def _close_file(self) -> None:
        if self._file is None:
            return
        try:
            if self.dropped_chars:
                self._write_tail()
            self._file.close()
        except OSError as exc:
            self._failed(exc)
        self._file = None
        if self.path is not None:
            overflow_files.prune(self._overflow_dir, keep=self.path)

    def _write_tail(self) -> None:
        """After the cap: the stream's last characters, with a line on what was dropped."""
        assert self._file is not None
        tail = self._tail[-self.dropped_chars:]
        cut = self.dropped_chars - len(tail)
        if cut:
            self._file.write(
                f"\n[... {cut:,} characters of {self.label} dropped here: an overflow file "
                f"keeps the first {overflow_files.MAX_FILE_BYTES:,} bytes of a stream and its "
                f"last {len(tail):,} characters, below ...]\n")
        self._file.write(tail)
        self.dropped_chars = cut

    def _write(self, text: str) -> None:
        """``text`` into the overflow file, up to ``MAX_FILE_BYTES``; the rest is counted."""
        assert self._file is not None
        room = overflow_files.MAX_FILE_BYTES - self._file_bytes
        if self.dropped_chars or room <= 0:
            self.dropped_chars += len(text)
            return
        size = len(text.encode("utf-8", "surrogateescape"))
        if size > room:
            text, whole = fit_bytes(text, room), text
            self.dropped_chars += len(whole) - len(text)
            size = len(text.encode("utf-8", "surrogateescape"))
        self._file.write(text)
        self._file_bytes += size

    def _failed(self, exc: OSError) -> None:
        """The overflow file cannot be written: drop it, keep head and tail in memory."""
        self.save_error = self.save_error or _save_error(exc)
        if self.path is not None:
            try:
                self.path.unlink()
            except OSError:
                pass
        self.path = None
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError:
                pass

    def _keep(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        if self._file is None and self.total_chars <= self._max_chars:
            self._head += text
            return
        if self._file is None and self.save_error is None and self.path is None:
            self._tail = self._head[-self._max_chars:]
            try:
                self.path = self._new_path()
                self._file = open_private(self.path)
                self._write(self._head)
            except OSError as exc:
                self._failed(exc)
            self._head = self._head[: self._max_chars]
        if self._file is not None:
            try:
                self._write(text)
            except OSError as exc:
                self._failed(exc)
        self._tail = (self._tail + text)[-self._max_chars:]
        if len(self._head) < self._max_chars:
            self._head = (self._head + text)[: self._max_chars]

    def text(self, budget_chars: int) -> str:
        """The stream within ``budget_chars``: whole, or head + cut marker + tail.

        The marker says how many characters were cut and names the overflow file holding
        the full stream (written now if the stream was small enough to be held in memory).
        """
        budget_chars = min(budget_chars, self._max_chars)
        if self.total_chars <= budget_chars:
            return _shown(self._head)
        if self.path is None and self.save_error is None:
            self.path = self._new_path()
            try:
                with open_private(self.path) as fh:
                    fh.write(self._head)
            except OSError as exc:
                self._failed(exc)
            else:
                overflow_files.prune(self._overflow_dir, keep=self.path)
        marker_len = len(self._marker(self.total_chars))
        keep = max(0, budget_chars - marker_len)
        head_chars = keep // 2
        tail_chars = keep - head_chars
        cut = self.total_chars - head_chars - tail_chars
        tail = self._tail[len(self._tail) - tail_chars:] if tail_chars else ""
        return _shown(self._head[:head_chars]) + self._marker(cut) + _shown(tail)

    def _new_path(self) -> Path:
        return overflow_path(self._overflow_dir, f"{self._prefix}.{self.label}",
                             self._session_id)

    def _marker(self, cut_chars: int) -> str:
        if self.path is None:
            return (f"\n[... {cut_chars:,} characters of {self.label} cut; the full "
                    f"{self.label} ({self.total_chars:,} characters) could not be saved: "
                    f"{self.save_error} ...]\n")
        if self.dropped_chars:
            return (
                f"\n[... {cut_chars:,} characters of {self.label} cut; its first "
                f"{overflow_files.MAX_FILE_BYTES:,} bytes and its end ({self.total_chars:,} "
                f"characters in all, {self.dropped_chars:,} not kept) in {self.path} ...]\n")
        return (
            f"\n[... {cut_chars:,} characters of {self.label} cut; "
            f"full {self.label} ({self.total_chars:,} characters) in {self.path} ...]\n"
        )


def share_budget(streams: list[OutputStream], budget_chars: int) -> list[int]:
    """Split ``budget_chars`` between streams: small ones whole, the rest equal shares.

    Returns:
        One budget per stream, in the order given; their sum is at most ``budget_chars``.
    """
    budgets = [0] * len(streams)
    remaining = max(0, budget_chars)
    order = sorted(range(len(streams)), key=lambda i: streams[i].total_chars)
    for n, i in enumerate(order):
        share = min(streams[i].total_chars, remaining // (len(order) - n))
        budgets[i] = share
        remaining -= share
    return budgets


def cap_text(text: str, max_chars: int, hint: str) -> str:
    """``text`` cut to about ``max_chars`` characters (head kept), ending with a marker.

    Args:
        text: Output already in memory (a file view, a listing).
        max_chars: The cap, characters; the result is never longer.
        hint: What the model can do to see the rest, e.g. "view a smaller view_range".
    """
    if len(text) <= max_chars:
        return text
    marker = f"\n[... output cut at {max_chars:,} of {len(text):,} characters; {hint}]"
    keep = max(0, max_chars - len(marker))
    return text[:keep] + marker[: max_chars - keep]
