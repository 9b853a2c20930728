"""The paths a git repository's index lists: what a worktree ``git diff`` may show.

docs/architecture.md §4 (clause "permission rules"). ``git diff -- '*.yml'`` (no revision, no
``--cached``) compares the files the index lists with the working tree: an untracked
``.config/gh/hosts.yml`` is never shown. :func:`tracked_paths` reads ``.git/index`` as git
writes it (versions 2, 3 and 4, SHA-1 object names), without running git (a repository's
config may name a program git runs: ``core.fsmonitor``). What is not read here gives
``None``: a split index (``link``), a sparse index (a dir entry), a submodule (``git diff
--submodule=diff`` shows its files), SHA-256 object names, a damaged file.

Core module: no printing.
"""

from __future__ import annotations

import struct
from pathlib import Path

_HEADER = struct.Struct(">4sII")
_FIXED = 62
"""Bytes of an entry before its path: ten 32-bit stat fields, a SHA-1, 16 bits of flags."""
_MAX_BYTES = 64 << 20
"""A bigger index is not read (``None``)."""


def tracked_paths(git_dir: Path) -> tuple[str, ...] | None:
    """The paths ``git_dir``'s index lists, in its order; ``()`` with no index file.

    ``None`` when the index is not read here (see the module).
    """
    try:
        config = (git_dir / "config").read_text(encoding="utf-8", errors="replace").lower()
        with open(git_dir / "index", "rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
    except FileNotFoundError:
        return () if (git_dir / "HEAD").is_file() else None
    except OSError:
        return None
    if "objectformat" in config or "splitindex" in config or len(data) > _MAX_BYTES:
        return None
    return _entries(data)


def _entries(data: bytes) -> tuple[str, ...] | None:  # noqa: C901
    """The paths of an index file's bytes, ``None`` when they are not read here."""
    if len(data) < _HEADER.size + 20:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return None
    paths: list[str] = []
    at, previous = _HEADER.size, b""
    end = len(data) - 20  # the trailing checksum
    for _ in range(count):
        if at + _FIXED > end:
            return None
        mode = struct.unpack_from(">I", data, at + 24)[0]
        flags = struct.unpack_from(">H", data, at + 60)[0]
        if mode >> 12 in (0o04, 0o16):  # a sparse index's dir entry; a submodule, whose
            return None  # files git diff --submodule=diff shows from another index
        start = at + _FIXED + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            drop, shift, start = 0, 0, start
            while True:  # git's offset varint: 7 bits a byte, +1 per continuation
                if start >= end:
                    return None
                byte = data[start]
                start += 1
                drop = (drop << 7) | (byte & 0x7F)
                if not byte & 0x80:
                    break
                drop += 1
                shift += 1
                if shift > 4:
                    return None
            stop = data.find(b"\0", start, end)
            if stop < 0 or drop > len(previous):
                return None
            path = previous[:len(previous) - drop] + data[start:stop]
            at = stop + 1
        else:
            stop = data.find(b"\0", start, end)
            if stop < 0:
                return None
            path = data[start:stop]
            at += (stop - at + 8) // 8 * 8  # NUL padded to a multiple of 8 bytes
        paths.append(path.decode("utf-8", "surrogateescape"))
        previous = path
    while at + 8 <= end:  # extensions: a split index's entries live in another file
        signature, size = data[at:at + 4], struct.unpack_from(">I", data, at + 4)[0]
        if signature in (b"link", b"sdir"):
            return None
        at += 8 + size
    return tuple(paths) if at == end else None
