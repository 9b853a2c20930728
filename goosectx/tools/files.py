r"""Safe file access for the text editor: bounded reads.

Reads open only regular files (a device, FIFO or socket is refused before it is opened, and
the file is opened non-blocking and checked again, so ``/dev/zero`` cannot fill memory and a
FIFO cannot hang the call). ``read_lines`` reads only as far as the asked line range and at
most :data:`MAX_SCAN_BYTES`.

Writes are atomic: :mod:`goosectx.tools.file_writes`.

Lines are split on ``\n`` only, everywhere (``view``, snippets, error messages), so a line
number means the same thing in all of them; a trailing ``\r`` is a CRLF line ending.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the read target's checks load with a read that has one
    from goosectx.read_target import JudgedFile

MAX_SCAN_BYTES = 64 * 1024 * 1024
"""Bytes ``view`` reads at most to reach the asked lines (past it: use the shell tool)."""
MAX_EDIT_BYTES = 32 * 1024 * 1024
"""Largest file the editor loads whole (``str_replace``, ``insert``, ``write`` over it)."""
BINARY_SNIFF_BYTES = 8192
_CHUNK_BYTES = 1024 * 1024


class FileError(Exception):
    """A user-facing failure naming the file; the tool turns it into an error result."""


class FileChanged(FileError):
    """The file opened is not the one judged: its path leads elsewhere since (``where``)."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


def check_regular(path: Path, mode: int) -> None:
    """Raise :class:`FileError` unless ``mode`` (``path``'s) is a regular file's, naming it."""
    if stat.S_ISDIR(mode):
        raise FileError(f"{path} is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise FileError(f"{path} is a {_kind(mode)}, not a regular file; text_editor only "
                        "reads and edits regular files")


def open_regular(path: Path, judged: JudgedFile | None = None) -> tuple[int, os.stat_result]:
    """An fd open for reading on the regular file ``path``, and its stat.

    ``judged``: the file an approval judged ``path`` to be; the fd must be that file.

    Raises:
        FileError: missing, a directory, or a device / FIFO / socket;
            :class:`FileChanged`: not the file judged.
    """
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise FileError(f"{path} does not exist") from None
    check_regular(path, before.st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    after = os.fstat(fd)
    try:
        check_regular(path, after.st_mode)  # replaced between stat and open
        if judged is not None:
            from goosectx.read_target import led_elsewhere, opened_elsewhere

            if (why := opened_elsewhere(fd, judged)) is not None:
                raise FileChanged(why, led_elsewhere(fd, judged) or "")
    except FileError:
        os.close(fd)
        raise
    return fd, after


def _binary_error(path: Path, size_bytes: int) -> FileError:
    return FileError(f"{path} is a binary file ({size_bytes:,} bytes); text_editor only "
                     "handles text files")


def read_bytes(path: Path, max_bytes: int = MAX_EDIT_BYTES,
               judged: JudgedFile | None = None) -> bytes:
    """The whole regular file ``path`` (for an edit; ``judged``: :func:`open_regular`'s)."""
    fd, st = open_regular(path, judged)
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > max_bytes:
            raise FileError(f"{path} is {st.st_size:,} bytes; text_editor edits files up to "
                            f"{max_bytes:,} bytes — use the shell tool (sed, patch) instead")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileError(f"{path} grew past {max_bytes:,} bytes while it was read")
    return data


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
"""The byte order marks a UTF-16 file starts with (Windows editors' "Unicode")."""


def utf16_fix(file: str) -> str:
    """The command that writes ``file`` (UTF-16) as UTF-8 next to it."""
    stem, dot, ext = file.rpartition(".") if "." in file.lstrip(".") else (file, "", "")
    return (f"iconv -f UTF-16 -t UTF-8 {shlex.quote(file)} > "
            f"{shlex.quote(stem + '-utf8' + dot + ext)}")


def decode(path: Path, data: bytes, *, first_line: int = 1, size_bytes: int | None = None
           ) -> str:
    """``data`` as UTF-8 text. Raises FileError for binary (NUL) or invalid UTF-8.

    ``size_bytes``: the file's size, said for a binary file when ``data`` is only part of it.
    """
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise _binary_error(path, len(data) if size_bytes is None else size_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        raise FileError(f"{path} is not UTF-8 text (invalid byte at line {line}); "
                        "text_editor only handles UTF-8 files") from None


def split_lines(text: str) -> list[str]:
    r"""``text`` split on ``\n`` (a final newline ends the last line, it starts none)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True, slots=True)
class LineRange:
    """What :func:`read_lines` found.

    Attributes:
        lines: The lines ``first`` .. (at most) ``last``, without their line endings.
        first: Number of the first line returned (1-based).
        total_lines: Lines in the file when it was read to the end, else ``None``.
        size_bytes: The file's size.
        cut: Why fewer lines than asked came back: ``""`` (none), ``"keep"`` (the byte
            budget of the answer was reached) or ``"scan"`` (:data:`MAX_SCAN_BYTES` read).
    """

    lines: list[str]
    first: int
    total_lines: int | None
    size_bytes: int
    cut: str


def read_lines(path: Path, first: int, last: int | None, *, keep_bytes: int,
               scan_bytes: int = MAX_SCAN_BYTES, judged: JudgedFile | None = None
               ) -> LineRange:
    """Lines ``first``..``last`` (1-based, inclusive; ``last=None``: to the end) of ``path``.

    Reads chunk by chunk and stops after line ``last``, after ``keep_bytes`` bytes of wanted
    lines, or after ``scan_bytes`` bytes in all — never the whole of a large file for two
    lines. Raises FileError for special, binary or non-UTF-8 files, and for one that is not
    the file ``judged`` (:func:`open_regular`).
    """
    fd, st = open_regular(path, judged)
    kept: list[bytes] = []
    kept_bytes = 0
    line_no = 1
    current = bytearray()
    scanned = 0
    cut = ""
    eof = False
    with os.fdopen(fd, "rb") as fh:
        while True:
            chunk = fh.read(min(_CHUNK_BYTES, scan_bytes - scanned))
            if scanned == 0 and b"\x00" in chunk[:BINARY_SNIFF_BYTES]:
                raise _binary_error(path, st.st_size)
            if not chunk:
                eof = scanned < scan_bytes or not fh.read(1)
                cut = "" if eof else "scan"
                break
            scanned += len(chunk)
            pieces = chunk.split(b"\n")
            for n, piece in enumerate(pieces):
                wanted = line_no >= first and (last is None or line_no <= last)
                if wanted:
                    take = piece[: keep_bytes - kept_bytes]
                    current += take
                    kept_bytes += len(take)
                    if len(take) < len(piece) or (kept_bytes >= keep_bytes
                                                  and n < len(pieces) - 1):
                        cut = "keep"
                        break
                if n < len(pieces) - 1:  # a newline ends this line
                    if wanted:
                        kept.append(bytes(current))
                    current.clear()
                    line_no += 1
            if cut or (last is not None and line_no > last):
                break
    wanted = line_no >= first and (last is None or line_no <= last)
    if current and wanted and (eof or cut):  # a last line without a newline, or a cut one
        kept.append(bytes(current))
    if eof and current:
        line_no += 1
    lines = [line[:-1] if line.endswith(b"\r") else line for line in kept]
    if cut and lines:
        lines[-1] = _trim_partial_char(lines[-1])
    text = [decode(path, line, first_line=first + i) for i, line in enumerate(lines)]
    return LineRange(text, first, line_no - 1 if eof else None, st.st_size, cut)


def _trim_partial_char(data: bytes) -> bytes:
    """``data`` without a UTF-8 character cut in two at its end."""
    for drop in range(4):
        try:
            (data[: len(data) - drop] if drop else data).decode("utf-8")
        except UnicodeDecodeError:
            continue
        return data[: len(data) - drop] if drop else data
    return data


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` (hex): what undo checks before it restores."""
    return hashlib.sha256(data).hexdigest()


def file_state(path: Path) -> str:
    """What ``path`` holds now, to notice a change: its bytes' SHA-256, or why it is unread.

    Equal results mean an edit computed on the first would give the same on the second.
    """
    try:
        return digest(read_bytes(path))
    except (FileError, OSError) as exc:  # missing, a directory, too large: said the same
        return f"not read: {exc}"


def listed_name(name: str) -> str:
    """A file name as a listing the model reads shows it (``tree``, a directory's ``view``).

    A name holding a character that is not printable is written as Python writes it in a
    string literal (a newline as backslash-n), so a newline in a name cannot forge another
    entry; a printable name (spaces, any script) is kept as it is.
    """
    return name if name.isprintable() else repr(name)[1:-1]
