"""Writing a file the user named (``sessions export -o``): one check, one atomic writer.

Every command that writes a path given on its command line goes through
:func:`write_private_file`, which first refuses goosectx's own files
(:func:`refuse_own_file`): the session database, its WAL / SHM / journal, lock files, the
log, tool-output files — anything in the data dir, reached directly, through a symlink, as
a hard link or through a bind mount (compared by device and inode). A path that cannot be
written (read-only file system, no permission, a name too long) is one line, exit 2, with
nothing left behind; a full disk keeps its own line and exit
code (:func:`goosectx.cli.endings.cannot_write`).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from goosectx.errors import UsageError
from goosectx.testhooks import pause_point

_DB_NAME = "sessions.db"


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _files_of(directory: str) -> Iterator[os.DirEntry[str]]:
    """The files of ``directory`` and of its subdirectories, one level down (locks, output)."""
    try:
        with os.scandir(directory) as top:
            entries = list(top)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                with os.scandir(entry.path) as sub:
                    yield from (e for e in sub if e.is_file(follow_symlinks=False))
            elif entry.is_file(follow_symlinks=False):
                yield entry
        except OSError:
            continue


def _dirs_of(home: str) -> dict[tuple[int, int], str]:
    """The data dir and its subdirectories (locks, tool output), by device and inode."""
    found: dict[tuple[int, int], str] = {}
    paths = [home]
    try:
        with os.scandir(home) as top:
            paths += [e.path for e in top if e.is_dir(follow_symlinks=False)]
    except OSError:
        return found
    for directory in paths:
        try:
            st = os.stat(directory)
        except OSError:
            continue
        found[(st.st_dev, st.st_ino)] = directory
    return found


def _reached_through(real: str, home: str) -> str | None:
    """``real`` as a path in the data dir when one of its directories is a data dir one.

    Compared by device and inode, so a second way to the same directory — a bind mount, a
    container volume, another spelling on a case-insensitive disk — is seen for what it is.
    """
    own_dirs = _dirs_of(home)
    directory, below = real, []
    while own_dirs:
        parent, name = os.path.split(directory)
        if parent == directory:
            return None
        directory = parent
        below.append(name)
        try:
            st = os.stat(directory)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in own_dirs:
            return os.path.join(own_dirs[(st.st_dev, st.st_ino)], *reversed(below))
    return None


def _same_file_in(real: str, home: str) -> str | None:
    """The data dir's file that ``real`` is (a hard link, or a bind mount of the file)."""
    try:
        st = os.stat(real)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    key = (st.st_dev, st.st_ino)
    for entry in _files_of(home):
        try:
            other = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == key:
            return entry.path
    return None


def refuse_own_file(path: Path, data_dir: Path) -> None:
    """Raise :class:`UsageError` when ``path`` is (or would be) a file of goosectx's data dir.

    Symlinks are resolved; then the path's directories are compared by device and inode with
    the data dir (a bind mount of it is the data dir), and an existing file with the data
    dir's files (a hard link to ``sessions.db``, or a bind mount of it, is the database).
    """
    home = os.path.realpath(data_dir)
    real = os.path.realpath(path)
    if _inside(real, home):
        own: str | None = real
    else:
        own = _reached_through(real, home) or _same_file_in(real, home)
    if own is None:
        return
    if os.path.basename(own).startswith(_DB_NAME):
        why = f"it is goosectx's own session database ({own}); every session would be lost"
    else:
        why = f"it is in goosectx's own data dir ({home}): its sessions, locks and logs"
    raise UsageError(f"refusing to write {path}: {why}", "give -o a file outside the data dir")


_MAX_LINKS = 40
"""Symbolic links followed in a row before the path is refused (the kernel's ELOOP limit)."""


def _foreign_link(link: Path, parent: Path) -> int | None:
    """The owner of ``link`` when the kernel's ``fs.protected_symlinks`` would not follow it.

    That is: ``parent`` is sticky and writable by everyone (``/tmp``) and the link is owned
    neither by us nor by the directory's owner — anyone may have planted it there.
    """
    try:
        link_uid = os.lstat(link).st_uid
        dir_st = os.stat(parent)
    except OSError:
        return None
    shared = dir_st.st_mode & stat.S_ISVTX and dir_st.st_mode & stat.S_IWOTH
    if shared and link_uid not in (os.geteuid(), dir_st.st_uid):
        return link_uid
    return None


def final_target(given: Path) -> Path:
    """The file ``given`` names once every symlink on its way is followed.

    Followed here, in user space (as ``os.path.realpath`` does), so the kernel's
    ``fs.protected_symlinks`` does not guard it: its rule is applied instead — a symlink in a
    sticky world-writable directory that another user owns (not us, not the directory's
    owner) is refused, so root's export to ``/tmp/x`` (or ``/tmp/dir/x``) cannot be pointed
    at a file of root's by whoever planted ``/tmp/x`` (or ``/tmp/dir``). Our own symlinks
    are followed as before.

    Returns:
        An absolute path with no symlink in it (its last component may not exist): what
        the export is renamed over.

    Raises:
        UsageError: such a symlink, or more than 40 on the way (a loop).
    """
    links_left = [_MAX_LINKS]

    def resolve(base: str, rest: str) -> str:
        current = "/" if rest.startswith("/") else base
        for part in rest.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                current = os.path.dirname(current)
                continue
            candidate = os.path.join(current, part)
            try:
                if not stat.S_ISLNK(os.lstat(candidate).st_mode):
                    current = candidate
                    continue
                target = os.readlink(candidate)
            except OSError:  # missing (a new file) or not ours to look at: the write says why
                current = candidate
                continue
            _refuse_foreign_link(given, Path(candidate), Path(current))
            links_left[0] -= 1
            if links_left[0] < 0:
                raise UsageError(f"cannot write {given}: too many levels of symbolic links",
                                 "give -o the file itself")
            current = resolve(current, target)
        return current

    return Path(resolve(os.getcwd(), str(given)))


def _refuse_foreign_link(given: Path, link: Path, parent: Path) -> None:
    owner = _foreign_link(link, parent)
    if owner is not None:
        what = "it" if link == Path(os.path.abspath(given)) else str(link)
        raise UsageError(
            f"refusing to write {given}: {what} is a symbolic link in the shared "
            f"directory {parent} (sticky, writable by everyone) that another user "
            f"(uid {owner}) owns, so it may point anywhere",
            "remove the link or give -o another path")


def _unwritable(path: Path, exc: OSError) -> Exception:
    """A full disk stays itself (one line, exit 1); any other failure is exit 2 with the fix."""
    from goosectx.cli.exit_signals import WRITE_FAILED_ERRNOS

    if exc.errno in WRITE_FAILED_ERRNOS:
        return exc
    reason = exc.strerror or str(exc)
    return UsageError(f"cannot write {path}: {reason}", "write the export somewhere else")


def write_private_file(path: Path, text: str | Iterable[str], *, data_dir: Path) -> int:
    """Write ``text`` (or its pieces, as they come) to ``path`` atomically.

    A temp file in the same directory, flushed and synced, is renamed over ``path`` (through a
    symlink, its target — but not through another user's symlink in a sticky shared directory
    such as /tmp: :func:`final_target`). A new file is mode 0600 (an export holds the
    conversation); a file that existed keeps its mode (and, best effort, its owner and
    group), and one with no write permission at all (0444) is refused, even for root: the
    rename would replace a file its owner marked read-only. A device or a pipe
    (``-o /dev/null``, a FIFO) is written to as it is: a rename would put a regular file in
    its place.

    Returns:
        How many other hard links the replaced file had: those names keep the old contents
        (the caller says so).

    Raises:
        UsageError: ``path`` is goosectx's own file, a directory, read-only, in a directory
            that does not exist, another user's symlink in a sticky shared directory, or
            cannot be written or replaced (nothing is left behind).
        OSError: the disk filled up while writing.
    """
    final_target(path)  # a planted symlink in /tmp: refused before anything is looked at
    refuse_own_file(path, data_dir)
    try:
        return _write(path, [text] if isinstance(text, str) else text)
    except OSError as exc:
        raise _unwritable(path, exc) from exc


def _not_replaceable(given: Path, parent: Path, exc: OSError) -> Exception:
    """An existing file whose directory takes no new file (``/proc/version``): say why."""
    from goosectx.cli.exit_signals import WRITE_FAILED_ERRNOS

    if exc.errno in WRITE_FAILED_ERRNOS:
        return exc
    return UsageError(
        f"cannot write {given}: it cannot be replaced atomically — the export is written to a "
        f"new file in {parent} and renamed over it, and {parent} refused that "
        f"({exc.strerror or exc})", "write the export somewhere else")


def _write(given: Path, pieces: Iterable[str]) -> int:
    if given.is_dir():
        raise UsageError(f"{given} is a directory", "give a file name with -o")
    try:  # followed as the OS follows it: /dev/stdout → /proc/self/fd/1 → a pipe
        old: os.stat_result | None = given.stat()
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        with open(given, "w", encoding="utf-8") as out:
            out.writelines(pieces)
        return 0
    path = final_target(given)  # not realpath(): a link planted since is replaced, not followed
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"directory {parent} does not exist", "create it first")
    _sweep_stale(parent, path.name)
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.{_TEMP_TAG}{os.getpid()}.",
                                   suffix=".tmp")
    except OSError as exc:
        if old is None:
            raise
        raise _not_replaceable(given, parent, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            _refuse_read_only(given, old)  # here: where no new file goes, that is the reason
            pause_point("export:writing")
            fh.writelines(pieces)
            fh.flush()
            _keep_mode(fh.fileno(), old)
            os.fsync(fh.fileno())
        try:
            os.replace(tmp, path)
        except OSError as exc:
            if old is None:
                raise
            raise _not_replaceable(given, parent, exc) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return 0 if old is None else old.st_nlink - 1


_TEMP_TAG = "goosectx-"
"""Marks the temp file an export writes: ``.FILE.goosectx-PID.XXXX.tmp``."""


def _sweep_stale(parent: Path, name: str) -> None:
    """Remove the temp files an export to ``name`` left when it was killed (``kill -9``).

    Only ours (named with :data:`_TEMP_TAG`, owned by us) whose process is gone: a live
    export's temp file, or another program's, is left alone.
    """
    stale = re.compile(re.escape(f".{name}.{_TEMP_TAG}") + r"(\d+)\.[^/]*\.tmp")
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        match = stale.fullmatch(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
            continue  # alive (or another user's): its export may still be writing
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat(
                    follow_symlinks=False).st_uid == os.geteuid():
                os.unlink(entry.path)
        except OSError:
            continue


def _refuse_read_only(given: Path, old: os.stat_result | None) -> None:
    """Refuse a file with no write permission at all (0444), even for root, who could."""
    if old is not None and not old.st_mode & 0o222:
        raise UsageError(
            f"cannot write {given}: it is read-only (mode {stat.S_IMODE(old.st_mode):04o})",
            "make it writable first (chmod u+w), or write the export somewhere else")


def _keep_mode(fd: int, old: os.stat_result | None) -> None:
    """A new file 0600; the replaced file's mode, and its owner and group where we may."""
    if old is None:
        os.fchmod(fd, 0o600)
        return
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass  # not ours to give away (not root): the new file keeps our owner
        else:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))  # chown clears set-id bits
