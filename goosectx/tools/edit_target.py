"""Where a ``text_editor`` edit lands, and how its path is named when a symlink leads away.

A path can lead outside the working dir through a symlink (a repo's ``notes.txt`` linked to
``~/.bashrc``): the approval asks about that by the real file's name
(``approval._write_through_symlink``), and the names below add it to the diff and the result.
The edit writes the file its path resolved to once, when it was checked here
(:func:`checked_target`): a path swapped for a link to outside after the approval decided
(a background job flipping it) is refused, not written through.
"""

from __future__ import annotations

import os
from pathlib import Path

from goosectx.sensitive import outside, resolve, symlinked_outside
from goosectx.tools.base import ToolContext
from goosectx.tools.files import FileError


def label(path: Path, ctx: ToolContext) -> str:
    """The path as a diff names it: relative to the working dir when inside it.

    A symlink leading outside adds the real file: ``notes.txt → /home/me/.bashrc``.
    """
    try:
        shown = str(path.relative_to(os.path.abspath(ctx.working_dir)))
    except ValueError:
        shown = str(path)
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
