"""Atomic file writes for the text editor and undo.

docs/architecture.md, house rules: the new bytes go to a temporary file in the same directory
as the real target (an edit through a symlink changes the target and the link stays), are
fsynced, get the old file's mode and owner, and are renamed over it. On any error the
original is untouched and the error names the file; a full disk says so. Reads, and the
:class:`~goosectx.tools.files.FileError` both raise: :mod:`goosectx.tools.files`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from goosectx.errors import is_disk_full
from goosectx.tools.files import FileError, check_regular


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _os_error(path: Path, exc: OSError) -> FileError:
    if is_disk_full(exc):
        return FileError(f"disk full: no space left to write {path}; the file is unchanged "
                         "— free some space and try again")
    return FileError(f"cannot write {path}: {exc.strerror or exc}; the file is unchanged")


def missing_dirs(path: Path) -> tuple[str, ...]:
    """The directories :func:`atomic_write` would create for ``path``, deepest first."""
    out: list[str] = []
    parent = Path(os.path.realpath(path)).parent
    while not os.path.lexists(parent) and parent != parent.parent:
        out.append(str(parent))
        parent = parent.parent
    return tuple(out)


def atomic_write(path: Path, data: bytes, *, follow: bool = True,
                 resolved: bool = False) -> Path:
    """Replace the file at ``path`` (through symlinks, its target) with ``data``, atomically.

    ``follow=False`` writes ``path`` itself: a symlink there is refused, not followed.
    ``resolved``: ``path`` is already resolved (the caller checked where it leads): a symlink
    found on its directory's path now is refused too. Its directory is opened once and every
    step after (the temporary file, the rename, the fsync) is made in the directory opened,
    so the file written is in the directory that was checked.

    Returns:
        The path actually written (the symlink's target, or ``path``).

    Raises:
        FileError: the target is not a regular file, its directory changed (``resolved``),
            or writing failed (disk full, no permission); the original file is then
            byte-identical and no temporary file is left behind.
    """
    target = Path(os.path.realpath(path) if follow else os.path.abspath(path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise _os_error(target, exc) from None
    try:
        if resolved and not _is_directory_at(dir_fd, target.parent):
            raise FileError(f"{target.parent} now leads elsewhere through a symlink (it changed "
                            f"since {target.name} was checked); nothing was written")
        _replace_in(dir_fd, target, data, follow=follow)
        try:
            os.fsync(dir_fd)
        except OSError:
            pass  # the rename is done; a directory fsync is best effort
    finally:
        os.close(dir_fd)
    return target


def _is_directory_at(dir_fd: int, directory: Path) -> bool:
    """True when ``directory`` names, with no symlink on the way, the directory ``dir_fd`` is."""
    try:
        return (os.path.realpath(directory) == str(directory)
                and os.path.samestat(os.stat(directory), os.fstat(dir_fd)))
    except OSError:
        return False


def _replace_in(dir_fd: int, target: Path, data: bytes, *, follow: bool) -> None:
    """Write ``data`` to a temporary file in ``dir_fd`` and rename it over ``target.name``."""
    name = target.name
    try:
        old: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=follow)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise _os_error(target, exc) from None
    if old is not None and stat.S_ISLNK(old.st_mode):
        raise FileError(f"{target} is a symlink now; it was not followed and nothing was "
                        "written")
    if old is not None and not stat.S_ISREG(old.st_mode):
        check_regular(target, old.st_mode)
    try:
        tmp, fd = _temporary_in(dir_fd, name)
    except OSError as exc:
        raise _os_error(target, exc) from None
    try:
        try:
            _write_all(fd, data)
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                try:
                    os.fchown(fd, old.st_uid, old.st_gid)
                except PermissionError:
                    pass  # not ours to give away: the new file keeps our owner
            else:
                os.fchmod(fd, 0o666 & ~_umask())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError as exc:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise _os_error(target, exc) from None


def _temporary_in(dir_fd: int, name: str) -> tuple[str, int]:
    """A new private file ``.<name>.<random>.goosectx-tmp`` in ``dir_fd``: its name and fd."""
    import secrets  # (here: random and hmac load with a write, not with the schemas)

    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(4)}.goosectx-tmp"
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                0o600, dir_fd=dir_fd)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name for {name}")
