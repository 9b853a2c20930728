"""Where a ``text_editor`` edit lands, and how its path is named when a symlink leads away.

A path can lead outside the working dir through a symlink (a repo's ``notes.txt`` linked to
``~/.bashrc``): the approval asks about that by the real file's name
(``approval._write_through_symlink``), and the names below add it to the diff and the result.
The edit writes the file its path resolved to once, when it was checked here
(:func:`checked_target`): a path swapped for a link to outside after the approval decided
(a background job flipping it) is refused, not written through. It reads the old text from
that same file (:func:`open_target`: the descriptor opened is checked to be the file found
there), and writes only while that file is still the one read (:meth:`EditTarget.unchanged`):
a path swapped between the check, the read and the write shows and edits no other file.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from goosectx.read_target import JudgedFile
from goosectx.sensitive import outside, relative_name, resolve, symlinked_outside
from goosectx.testhooks import pause_point
from goosectx.tools.base import ToolContext
from goosectx.tools.editdiff import SPLIT_LINKS, SPLIT_LINKS_END
from goosectx.tools.files import FileError, decode, read_bytes


def label(path: Path, ctx: ToolContext) -> str:
    """The path as a diff names it: relative to the working dir when inside it.

    Inside it through the logical current dir too (``$PWD``, a symlinked path to it:
    :func:`~goosectx.sensitive.relative_name`).

    A symlink leading outside adds the real file: ``notes.txt → /home/me/.bashrc``.
    """
    shown = str(relative_name(path, ctx.working_dir))
    real = symlinked_outside(path, ctx.working_dir)
    return shown if real is None else f"{shown} → {real}"


def named(path: Path, written: Path, ctx: ToolContext) -> str:
    """The path as a result names it, with the real file when a symlink led it outside.

    ``written``: the file the edit wrote (:func:`checked_target`), not the path resolved
    again, which may lead elsewhere by now.
    """
    real = written if written != path and outside(written, ctx.working_dir) else None
    return str(path) if real is None else f"{path} → {real} (outside the working dir)"


def checked_target(path: Path, ctx: ToolContext) -> Path:
    """The real file an edit of absolute ``path`` writes, resolved once (symlinks followed).

    Write the file returned, without following symlinks again
    (``atomic_write(..., follow=False)``): the path checked is the path written.

    Raises:
        FileError: a symlink now leads ``path`` outside the working dir to another file than
            the one the call's approval saw (``ctx.write_target``): it was swapped after the
            check, and nothing is written.
    """
    real = resolve(path)
    if real != path and real != ctx.write_target and outside(real, ctx.working_dir):
        raise FileError(f"{path} now leads through a symlink to {real}, outside the working "
                        "dir, which is not what was checked before this call (it changed "
                        "since); nothing was written — call again to be asked about it")
    return real


def split_links_note(path: Path, links: int) -> str:
    """The note for an edit of ``path`` when its file has ``links`` names (``st_nlink``).

    Every edit writes a new file and renames it over the old one (atomically): the other
    names keep the old text, and the link is broken. ``""`` when the file has no other name.
    """
    others = links - 1
    if others < 1:
        return ""
    what, names = ("hard link", "name keeps") if others == 1 else ("hard links", "names keep")
    return (f"{SPLIT_LINKS}{path} has {others} other {what}; the edit writes a new file, so "
            f"the other {names}{SPLIT_LINKS_END}")


@dataclass(slots=True)
class EditTarget:
    """The file one edit reads and writes, found once.

    Attributes:
        path: The path as the call named it, absolute.
        real: The file written: ``path`` resolved once (:func:`checked_target`).
        identity: What was at ``real`` (not followed): device, inode, file type and change
            time (an inode freed and reused at once is another file); ``None``: nothing.
        data: The regular file's bytes, read through the descriptor checked to be that file;
            ``None`` when there was no file (or a directory: ``is_dir``).
        is_dir: A directory was at ``real``.
        links: The regular file's names (``st_nlink`` when it was read; 0: no such file):
            the write splits them (:func:`split_links_note`).
        after: The text the edit leaves (set by the editor; ``None``: no file).
        split_note: The note an edit that wrote says about the names it split ("": none).
        undo_note: The note an edit says when ``/undo`` will not be able to restore the file
            (the journal's answer; "": it can).
    """

    path: Path
    real: Path
    identity: tuple[int, ...] | None
    data: bytes | None
    is_dir: bool = False
    links: int = 0
    after: str | None = None
    split_note: str = ""
    undo_note: str = ""

    def text(self) -> str:
        """The file's text. Raises FileError when missing, a directory, binary or not UTF-8."""
        if self.is_dir:
            raise FileError(f"{self.path} is a directory")
        if self.data is None:
            raise FileError(f"{self.path} does not exist")
        return decode(self.path, self.data)

    def before(self) -> str | None:
        """Contents to restore on undo (``surrogateescape``); ``None``: no file was there."""
        return None if self.data is None else self.data.decode("utf-8", "surrogateescape")

    def unchanged(self) -> None:
        """Raise FileError when ``real`` no longer holds the file read (nothing is written)."""
        if _identity(self.real) != self.identity:
            raise FileError(f"{self.path} changed after text_editor read it (another file "
                            "or link is there now); nothing was written — view it and edit "
                            "again")


def _identity(real: Path) -> tuple[int, ...] | None:
    try:
        return _identity_of(os.stat(real, follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return None


def _identity_of(info: os.stat_result) -> tuple[int, ...]:
    return info.st_dev, info.st_ino, stat.S_IFMT(info.st_mode), info.st_ctime_ns


def open_target(path: Path, ctx: ToolContext) -> EditTarget:
    """The file an edit of absolute ``path`` changes, resolved once and read through one fd.

    Raises:
        FileError: as :func:`checked_target`; a file that is special, too large to edit, or
            (:class:`~goosectx.tools.files.FileChanged`) swapped for a link or another file
            between the check and the read.
    """
    real = checked_target(path, ctx)
    pause_point("edit:checked")  # tests swap the file on the way here
    try:
        info = os.stat(real, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return EditTarget(path, real, None, None)
    identity = _identity_of(info)
    if stat.S_ISDIR(info.st_mode):
        return EditTarget(path, real, identity, None, is_dir=True)
    links = info.st_nlink if stat.S_ISREG(info.st_mode) else 0
    judged = JudgedFile(path, real, (info.st_dev, info.st_ino), info.st_nlink)
    return EditTarget(path, real, identity, read_bytes(real, judged=judged), links=links)
