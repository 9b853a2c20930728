"""The files an archive extraction writes: the member names read from the archive.

docs/architecture.md §4, clause 2 of the one approval decision: part of
:func:`goosectx.shell_hidden.hidden_reason`. ``tar xf a.tar`` and ``unzip a.zip`` write
whatever names the archive holds, and one holding ``.git/hooks/pre-commit`` made a hook that
ran at the next commit. An extraction's archive in the project is read at decision time
(:mod:`tarfile` / :mod:`zipfile` listing, size-, count- and time-limited as
:mod:`goosectx.diff_targets` reads a diff) and each member, below the dir it extracts into
(``-C DIR``, ``--directory=DIR``, ``unzip -d DIR``, the dir a ``cd`` left), is judged as a
write target (:func:`goosectx.protected_paths.protected_write`); so is that dir itself
(``tar xCf .git a.tar``, ``cd .git && tar xf ../a.tar``, ``cd .git && cpio -idm < a.cpio``).
A named archive that cannot be read (too big, a format not listed here, a name bash makes
at run time) or one whose names are rewritten (``--transform``) makes the call one the
rules cannot read: asked under a deny or ask rule. One read from standard input, or not there
at decision time (made earlier in the line), is not read.
What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import posixpath
import tarfile
import time
import zipfile
from collections.abc import Callable
from functools import lru_cache
from lzma import LZMAError
from typing import BinaryIO, NamedTuple, Protocol, cast

from goosectx.option_table import TAR_VALUED, table_name
from goosectx.protected_paths import Where, git_dirs, protected_write
from goosectx.shell_dirs import Unknown
from goosectx.tree_writers import SEVEN_Z, TAR_EXTRACT, TARS, UNZIP_READS

MAX_ARCHIVE_BYTES = 64_000_000
"""The largest tar archive read (a compressed one is read whole); a zip's listing is its
central directory, read at any size."""
MAX_UNPACKED_BYTES = 1_000_000_000
"""The most bytes a compressed tar is unpacked to while listing it."""
MAX_MEMBERS = 50_000
MAX_SECONDS = 2.0
_TARS = TARS
_TAR_VALUED = TAR_VALUED + "T"
"""tar's short options that take a value (in a cluster, in order: ``xCf DIR A``)."""
_RENAMES = ("--transform", "--xform", "-s")
_UNZIPS = frozenset({"unzip", "bsdunzip"})
_UNZIP_VALUED = frozenset({"-d", "-P", "-I", "-O"})
_PROTECTED_NAMES = frozenset({".git", "node_modules", ".venv", "venv", "pyvenv.cfg"})


class Extraction(NamedTuple):
    """What an extracting command reads and where it writes."""

    archive: str | None
    """The archive's name as written; ``None``: standard input (not read)."""
    into: str
    """The dir it extracts into, as written (``.``: the dir it runs in)."""
    strip: int = 0
    """``--strip-components=N``: the leading parts dropped from each name."""
    renames: bool = False
    """Names rewritten by an expression (``--transform``): what it writes is not known."""


def extraction(name: str, args: list[str]) -> Extraction | None:
    """The extraction ``name ARGS`` does, or ``None`` (no extracting command)."""
    if name in _TARS:
        return _tar(args)
    if name in _UNZIPS or name == "jar" and args[:1] and "x" in args[0].lstrip("-"):
        if any(a in UNZIP_READS for a in args):
            return None
        operands, into, k = [], ".", 0
        while k < len(args):
            word = args[k]
            if word in _UNZIP_VALUED and name != "jar":
                into = args[k + 1] if word == "-d" and k + 1 < len(args) else into
                k += 2
                continue
            if word == "-x":
                break  # the names left out follow
            if word[:1] != "-":
                operands.append(word)
            k += 1
        if name == "jar":  # jar xf A / jar -xf A: the archive after the mode word
            operands = [a for a in args[1:] if a[:1] != "-"]
            return Extraction(operands[0] if "f" in args[0] and operands else None, ".")
        return Extraction(operands[0], into) if operands else None
    if name in SEVEN_Z and args[:1] in (["x"], ["e"]):
        operands = [a for a in args[1:] if a[:1] != "-"]
        into = next((a[2:] for a in args if a.startswith("-o") and len(a) > 2), ".")
        return Extraction(operands[0], into) if operands else None
    if name in ("cpio", "bsdcpio") and any(
            a in ("-i", "--extract") or a[:1] == "-" and a[1:2] != "-" and "i" in a for a in args):
        into = next((args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-D", "--directory")),
                    ".")
        return Extraction(None, into)
    if name in ("zipfile", "tarfile") and args[:1] and args[0] in ("-e", "--extract"):
        return Extraction(args[1], args[2] if len(args) > 2 else ".") if len(args) > 1 else None
    return None


def _tar(args: list[str]) -> Extraction | None:
    """The extraction tar does: ``xf A``, ``-xzf A -C D``, ``xCf D A``, ``--extract --file=A``."""
    archive: str | None = None
    into, strip, renames, extracts = ".", 0, False, False
    k = 0
    while k < len(args):
        word = args[k]
        option, equals, value = word.partition("=")
        if word[:2] == "--":
            extracts = extracts or option in TAR_EXTRACT
            takes = option in ("--file", "--directory", "--strip-components", "--transform",
                               "--xform")
            given = value if equals else (args[k + 1] if takes and k + 1 < len(args) else "")
            if option == "--file":
                archive = given
            elif option == "--directory":
                into = given
            elif option == "--strip-components":
                strip = int(given) if given.isdigit() else -1
            renames = renames or option in _RENAMES
            k += 1 if equals or not takes else 2
            continue
        if word[:1] == "-" or k == 0:  # -xzf A, or the bare first cluster (xCf D A)
            letters = word[1:] if word[:1] == "-" else word
            renames = renames or word == "-s"
            nxt = k + 1
            for at, letter in enumerate(letters):
                extracts = extracts or letter == "x"
                if letter not in _TAR_VALUED:
                    continue
                if word[:1] == "-" and at + 1 < len(letters):  # -fA, -C.git: the rest
                    given = letters[at + 1:]
                    archive, into = (given, into) if letter == "f" else (
                        archive, given if letter == "C" else into)
                    break
                given = args[nxt] if nxt < len(args) else ""
                nxt += 1
                archive = given if letter == "f" else archive
                into = given if letter == "C" else into
            k = nxt
            continue
        k += 1
    if not extracts:
        return None
    return Extraction(None if archive in (None, "-") else archive, into, strip, renames)


def archive_writes(name: str, args: list[str], where: Where | None) -> str | None:
    """Why ``name ARGS`` extracts a file into the git dir, a virtualenv or node_modules."""
    found = extraction(*table_name(name, args))  # python3 -m zipfile -e A D: zipfile's
    if found is None:
        return None
    tops = git_dirs(where)
    if why := protected_write(name, found.into, where, tops=tops):
        return why  # tar xCf .git a.tar, cd .git && cpio -idm < a.cpio
    if found.archive is None or where is None:
        return None  # curl … | tar xz: standard input, not read
    if found.renames or found.strip < 0:
        return (f"{name} rewrites the names it extracts from {found.archive}: it may write "
                "anywhere, a git hook or config too")
    members = _read(found.archive, where)
    if isinstance(members, str):
        return (f"{name} extracts {found.archive}, whose names cannot be read here "
                f"({members}): it may hold a git hook or config")
    for path in _judged_paths(members, found.strip):
        if why := protected_write(name, posixpath.join(found.into, path), where, tops=tops):
            return why
    return None


def _judged_paths(members: tuple[str, ...], strip: int) -> list[str]:
    """The paths judged for ``members``: each naming a protected dir, and the dirs of the rest.

    A member with a part named ``.git``, ``node_modules``, ``.venv``, ``venv`` or
    ``pyvenv.cfg`` is judged whole (``.git/hooks/pre-commit``); of the others, their first
    two dirs (``rel-1.0``, ``rel-1.0/src``), where a link in the project to the git dir or a
    virtualenv already there would take them: a release of 20,000 files is a few checks.
    """
    paths: dict[str, None] = {}
    for member in members:
        parts = [p for p in member.split("/") if p not in ("", ".")][strip:]
        if _PROTECTED_NAMES.intersection(p.lower() for p in parts):
            paths["/".join(parts)] = None
        elif parts:
            paths.update(dict.fromkeys("/".join(parts[:k]) for k in (1, 2)[:len(parts)]))
    return list(paths)


def _read(archive: str, where: Where) -> tuple[str, ...] | str:
    """The member names (and link targets) of ``archive`` as seen from ``where``, or why not."""
    if any(c in archive for c in "$`*?[{\0"):
        return "a name bash makes at run time"
    places = []
    for base in where.dirs:
        if isinstance(base, Unknown):
            return f"it is looked for after {base.after}"
        places.append(base / os.path.expanduser(archive))
    found: tuple[str, ...] = ()
    for place in dict.fromkeys(places):
        try:
            stat = place.stat()
        except FileNotFoundError:
            continue  # not there yet: nothing to read (curl -o a.tar URL && tar xf a.tar)
        except OSError:
            return "it cannot be opened"
        names = _members(str(place), stat.st_size, stat.st_mtime_ns)
        if isinstance(names, str):
            return names
        found += names
    return found


@lru_cache(maxsize=64)
def _members(path: str, size: int, mtime_ns: int) -> tuple[str, ...] | str:
    """:func:`_read` of one file (cached by its size and time); a link's target joined."""
    del mtime_ns  # part of the cache key only
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as opened:
                names = opened.namelist()
            return tuple(names) if len(names) <= MAX_MEMBERS else "too many members"
        if size > MAX_ARCHIVE_BYTES:
            return "too big"
        with open(path, "rb") as raw:
            return _tar_members(raw)
    except _TooLong:
        return "it takes too long to list"
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError, LZMAError):
        return "not a tar or zip archive"


def _tar_members(raw: BinaryIO) -> tuple[str, ...] | str:
    """The names of the tar archive ``raw`` holds, read as a stream, decompressed here."""
    magic = raw.read(6)
    raw.seek(0)
    opener = next((one for start, one in _COMPRESSED if magic.startswith(start)), None)
    unpacked: _Readable = raw if opener is None else opener(raw)
    names = []
    bounded = cast(BinaryIO, _Bounded(unpacked))  # stream mode ("r|") only reads it
    with tarfile.open(fileobj=bounded, mode="r|") as opened:
        for member in opened:
            names.append(member.name)
            if member.issym() or member.islnk():  # x -> .git/hooks: what a later x/y writes
                base = posixpath.dirname(member.name) if member.issym() else ""
                names.append(posixpath.normpath(posixpath.join(base, member.linkname)))
            if len(names) > MAX_MEMBERS:
                return "too many members"
    return tuple(names)


class _Readable(Protocol):
    """What the listing reads a tar from: a file, or one unpacked as it is read."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes."""
        ...


class _TooLong(Exception):
    """Listing an archive went past :data:`MAX_SECONDS` or :data:`MAX_UNPACKED_BYTES`."""


class _Bounded:
    """A stream read for at most :data:`MAX_SECONDS` and :data:`MAX_UNPACKED_BYTES`.

    A small ``.tgz`` of one huge member (a bomb) is given up, not unpacked whole.
    """

    def __init__(self, stream: _Readable) -> None:
        self.stream = stream
        self.left = MAX_UNPACKED_BYTES
        self.until = time.monotonic() + MAX_SECONDS

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes; raises :class:`_TooLong` past a limit."""
        if self.left <= 0 or time.monotonic() > self.until:
            raise _TooLong
        data = self.stream.read(self.left if size < 0 else min(size, self.left))
        self.left -= len(data)
        return data


_COMPRESSED: tuple[tuple[bytes, Callable[[BinaryIO], _Readable]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw)),
    (b"BZh", lambda raw: bz2.BZ2File(raw)),
    (b"\xfd7zXZ", lambda raw: lzma.LZMAFile(raw)),
)
"""The compressions a tar is read through (gzip, bzip2, xz), by their first bytes."""
