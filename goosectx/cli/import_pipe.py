"""``goosectx sessions import -`` (stdin) and ``import <(…)`` / ``/dev/fd/N``: a pipe as a file.

The importers read a file by path more than once (format detection, parsing, the content hash
of the second-import check), which a pipe cannot give. So a pipe is first copied, a chunk at a
time, into a private temporary file (its own ``0700`` directory, removed afterwards), and that
file goes through the same checks and size caps as any other (docs/architecture.md §6). The copy
stops at :data:`MAX_PIPE_BYTES`: past it, a one-line error says to save the input to a file. An
empty pipe is said to be empty. Error lines name the pipe as the user gave it (``stdin``,
``/dev/fd/63``), not by the copy's name: :func:`shown_as_given`.

The copy holds the transcript unredacted. An import killed before it could remove it (kill -9,
the OOM killer) would leave it in the temporary directory for good, so the directory is locked
(``flock``) while its copy is in use, and every import first removes each
``goosectx-import-*`` directory of this user that no process holds locked any more
(:func:`sweep_stale_copies`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from goosectx.errors import ImportFormatError

MAX_PIPE_BYTES = 1024 * 1024 * 1024
"""Most bytes read from a pipe (1 GiB): the copy goes to the temporary directory's disk."""

CHUNK_BYTES = 1024 * 1024
STDIN = "-"
_DIR_PREFIX = "goosectx-import-"
_COPY_NAME = "goosectx-pipe-copy"
"""The copy of a named pipe: a name no error text has otherwise, replaced by the pipe's."""


def _is_pipe(path: Path) -> bool:
    """``path`` is ``-`` or names a pipe or socket (``/dev/stdin``, ``/dev/fd/N``)."""
    if str(path) == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # the importer says the path is not a file
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.contextmanager
def readable_path(path: Path) -> Iterator[Path]:
    """``path`` itself, or for a pipe a temporary copy of what it carries (removed on exit).

    The copy is named ``stdin`` for ``-`` (what error lines call it), else :data:`_COPY_NAME`
    (:func:`shown_as_given` puts ``path`` back in its place).

    Raises:
        ImportFormatError: ``-`` while stdin is a terminal; a pipe that is empty, carries more
            than :data:`MAX_PIPE_BYTES`, or cannot be read (nothing is imported either way).
    """
    sweep_stale_copies()
    if not _is_pipe(path):
        yield path
        return
    with _locked_directory() as directory:
        copy = directory / ("stdin" if str(path) == STDIN else _COPY_NAME)
        if str(path) == STDIN:
            if sys.stdin is None or sys.stdin.isatty():
                raise ImportFormatError("'-' reads the transcript from stdin, which is a "
                                        "terminal", "pipe the file in, or give its path")
            _copy(sys.stdin.buffer, copy, "stdin")
        else:
            try:
                with path.open("rb") as source:
                    _copy(source, copy, str(path))
            except OSError as exc:
                raise ImportFormatError(f"cannot read {path}: {exc.strerror}",
                                        "check the path") from None
        yield copy


@contextlib.contextmanager
def _locked_directory() -> Iterator[Path]:
    """A new private (0700) temporary directory, locked until it is removed on exit."""
    directory = Path(tempfile.mkdtemp(prefix=_DIR_PREFIX))
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            # Taken before the copy is made in it: a sweep skips an empty directory.
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield directory
        finally:
            os.close(fd)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def sweep_stale_copies() -> None:
    """Remove the pipe copies imports killed before their end left in the temporary dir.

    A ``goosectx-import-*`` directory this user owns (not a symlink), not empty, whose lock
    (:func:`_locked_directory`) no running import holds. Best effort: what cannot be read or
    removed is left as it is.
    """
    base = tempfile.gettempdir()
    uid = os.geteuid()
    try:
        with os.scandir(base) as scan:
            found = [e.path for e in scan if e.name.startswith(_DIR_PREFIX)]
    except OSError:
        return
    for directory in found:
        try:
            st = os.lstat(directory)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid:
                continue
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: an import is using it
            if os.listdir(fd):
                shutil.rmtree(directory, ignore_errors=True)
        except OSError:
            pass
        finally:
            os.close(fd)


def shown_as_given(exc: ImportFormatError, path: Path, copy: Path) -> ImportFormatError:
    """``exc`` (about ``copy``, the pipe's copy) naming ``path`` as the user gave it instead."""
    if copy == path:
        return exc
    shown = "stdin" if str(path) == STDIN else str(path)
    exc.message = exc.message.replace(str(copy), shown).replace(_COPY_NAME, shown)
    exc.args = (exc.message,)
    return exc


def _copy(source: BinaryIO, target: Path, shown: str) -> None:
    size = 0
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            for chunk in iter(lambda: source.read(CHUNK_BYTES), b""):
                size += len(chunk)
                if size > MAX_PIPE_BYTES:
                    raise ImportFormatError(
                        f"{shown} carries more than {MAX_PIPE_BYTES // 2**20} MB, the most "
                        "goosectx reads from a pipe", "save it to a file first and import the file")
                out.write(chunk)
    except OSError as exc:  # a full disk, on a write or when the copy is closed
        raise _copy_failed(shown, target, exc) from None
    if not size:
        raise ImportFormatError(f"{shown} is empty: nothing to import",
                                "pipe a transcript in, or give its path")


def _copy_failed(shown: str, target: Path, exc: OSError) -> ImportFormatError:
    return ImportFormatError(
        f"cannot copy {shown} to a temporary file in {target.parent.parent}: "
        f"{exc.strerror or exc}", "free some space there (or set TMPDIR), or save the input "
        "to a file first and import the file")
