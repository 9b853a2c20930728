"""Files 0600 and directories 0700: what goosectx keeps of a user's work is theirs alone.

README: the data dir 0700, its files 0600. A file or directory made before (by an older
version, under a umask of 022) or copied in keeps a wider mode until something takes it off:
:func:`make_private` does, for the database, the debug log, the session locks and the
tool-output overflow files and their directories.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def make_private(*paths: Path) -> None:
    """Take group and other access off each of ``paths`` that exists.

    Only what this user owns, never a shared (sticky) directory such as /tmp; a path that
    cannot be changed (read-only media) is left as it is. A symbolic link to a file is left
    alone too: its target is not goosectx's to change (a ``sessions.db`` linked to
    ``/etc/passwd``); one to a directory (a data dir the user keeps elsewhere) is followed.
    """
    uid = os.geteuid()
    for path in paths:
        try:
            st = os.stat(path)
            if not stat.S_ISDIR(st.st_mode) and stat.S_ISLNK(os.lstat(path).st_mode):
                continue
        except OSError:
            continue
        _tighten(path, st, uid)


def make_private_dirs(directory: Path, base: Path) -> None:
    """Create ``directory`` and each missing level between it and ``base``, all 0700.

    ``mkdir(parents=True, mode=0o700)`` gives the umask's mode to the levels above the last
    (0777 under ``umask 000``) and masks the last one; each level made here is chmodded to
    0700 after its mkdir, whatever the umask. ``base`` (the data dir) is made as the store
    makes it when missing; a level that exists already is only tightened (:func:`make_private`).

    Raises:
        OSError: a level cannot be made (a file in its place, a full disk).
    """
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    levels = [directory, *directory.parents]
    missing = levels[: levels.index(base)] if base in levels else [directory]
    for level in reversed(missing):
        try:
            level.mkdir(mode=0o700)
        except FileExistsError:
            make_private(level)
        else:
            os.chmod(level, 0o700)


def make_private_dir(directory: Path) -> None:
    """:func:`make_private` of ``directory`` and of the regular files in it (not below).

    A symbolic link in it is left alone (its target is not goosectx's).
    """
    make_private(directory)
    uid = os.geteuid()
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        _tighten(Path(entry.path), st, uid)
    except OSError:
        pass


def _tighten(path: Path, st: os.stat_result, uid: int) -> None:
    if st.st_mode & 0o077 and st.st_uid == uid and not st.st_mode & stat.S_ISVTX:
        with contextlib.suppress(OSError):
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o077)
