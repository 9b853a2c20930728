"""Which build made a kept scan state: a digest of the source of every module the scan runs.

Part of the compaction pipeline (docs/architecture.md §5). A state kept by the facts scan
(:mod:`.scan_state`) means what the scan's code made of the messages before its boundary;
another build's scan may record other facts, or the same ones another way, and a state it
resumed would silently lose or change facts. :func:`scan_modules` finds every goosectx module
the scan may import by reading the import statements of its entry module (:data:`SCAN_ENTRY`)
and of each module they name, so a module added to the scan is in the digest without a list
to keep (tests/test_scan_state_guards.py runs a scan in a fresh interpreter and checks that
every module it loaded is found); :func:`build_digest` hashes their files, once per process,
and a state is only resumed by a build with the same digest.

Finding and hashing the files (~4.5 ms: some ninety read) is done once per build, not once
per process: the digest is kept in the user cache dir with every path the walk looked at and
what it found there (a regular file's mtime and size, a directory, nothing). A later process
stats those paths (~0.5 ms) and takes the kept digest only when every one is as it was — the
walk depends on nothing else, so it would find the same files; a file changed in place keeps
neither its size nor its mtime (the test Python itself trusts to reuse a module's bytecode).
Otherwise it walks afresh and keeps the new record; a record that is missing, unreadable or
not ours is ignored, and writing it is best effort (:func:`~goosectx.text_counts.write_cache_file`).
"""

from __future__ import annotations

import json
import os
import re
import stat
from functools import cache
from pathlib import Path

from goosectx.digests import sha256

SCAN_ENTRY = "goosectx.compaction.facts_scan"
"""The facts scan's entry module (as :mod:`.layout` imports it)."""

_BASE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The directory holding the ``goosectx`` package: a module's file is found from its name."""

# The patterns are compiled at the first digest (re keeps them), not at import.
_FROM = rb"from[ \t]+(goosectx[\w.]*|\.+[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
"""``from M import names`` (M absolute within goosectx, or relative; names maybe in ``()``)."""
_IMPORT = rb"import[ \t]+(goosectx[^\n]*)"
"""``import goosectx.M[ as N][, …]``."""
_TYPES_ONLY = rb"if TYPE_CHECKING:[^\n]*\n(?:[ \t]+[^\n]*\n|[ \t]*\n)*"
"""An ``if TYPE_CHECKING:`` block (read only at the start of a line: top level), with the
indented and blank lines after it: what it imports is never loaded."""


CACHE_FORMAT = "goosectx-scan-build"
CACHE_VERSION = 1
"""Bump when what a kept record holds, or how the walk reads the files, changes."""

_Seen = list[object]
"""What a path held when the walk looked: ``["f", mtime_ns, size]`` for a regular file,
``["d"]`` for a directory, ``[]`` for anything else or nothing (as ``stat`` follows links)."""

_looked: dict[str, _Seen] = {}
"""Every path the walk of this process looked at, and what it found (:func:`_seen`)."""


def _seen(path: str) -> _Seen:
    """What ``path`` holds now (see :data:`_Seen`)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return []
    if stat.S_ISREG(st.st_mode):
        return ["f", st.st_mtime_ns, st.st_size]
    return ["d"] if stat.S_ISDIR(st.st_mode) else []


def _look(path: str) -> _Seen:
    """:func:`_seen`, recorded for the kept record of this walk."""
    found = _looked[path] = _seen(path)
    return found


def _file_of(name: str) -> tuple[str, bool] | None:
    """The source file of module ``name`` and whether it is a package (``None``: not ours)."""
    path = os.path.join(_BASE, *name.split("."))
    init = os.path.join(path, "__init__.py")
    if _look(init)[:1] == ["f"]:
        return init, True
    return (path + ".py", False) if _look(path + ".py")[:1] == ["f"] else None


def _names(listed: bytes) -> list[str]:
    """The names an import statement lists (``a as b, c`` or ``(a,  # note⏎ b)``): ``a``, ``c``."""
    words = b" ".join(line.partition(b"#")[0] for line in listed.splitlines())
    return [n.split()[0].decode() for n in words.strip(b"() \t\\").split(b",") if n.strip()]


def _at_line_start(data: bytes, start: int) -> bool:
    return not data[data.rfind(b"\n", 0, start) + 1:start].strip()


def _imported(name: str, package: bool, data: bytes) -> list[str]:
    """The goosectx modules ``data`` (module ``name``'s source) may import, and candidates.

    A statement inside a function counts (the shell modules are imported at the first
    command that needs reading); one in a top-level ``if TYPE_CHECKING:`` block does not (in
    an indented one it does: more files hashed is safe, fewer is not). A
    name imported ``from`` a module is a candidate submodule (kept if it has a file).
    """
    skip = [(m.start(), m.end()) for m in re.finditer(_TYPES_ONLY, data)
            if m.start() == 0 or data[m.start() - 1] == 0x0A  # at column 0
            ] if b"if TYPE_CHECKING:" in data else []

    def kept(start: int) -> bool:
        return _at_line_start(data, start) and not any(a <= start < b for a, b in skip)

    parts = name.split(".")
    here = parts if package else parts[:-1]
    found: list[str] = []
    for m in re.finditer(_FROM, data):
        if not kept(m.start()):
            continue
        source = m.group(1).decode()
        level = len(source) - len(source.lstrip("."))
        if level:
            rest = source[level:]
            source = ".".join(here[:len(here) - level + 1] + ([rest] if rest else []))
        found.append(source)
        if _look(os.path.join(_BASE, *source.split("."))) == ["d"]:  # names may be modules
            found.extend(f"{source}.{n}" for n in _names(m.group(2)))
    for m in re.finditer(_IMPORT, data):
        if kept(m.start()):
            found.extend(_names(m.group(1)))
    return found


@cache
def _sources() -> dict[str, bytes] | None:
    """Each module :data:`SCAN_ENTRY` may import, with its parent packages: its source.

    Read without importing (the shell modules stay unloaded in a dry run that needs none);
    ``None`` when a file cannot be read.
    """
    sources: dict[str, bytes] = {}
    seen: set[str] = set()
    todo = [SCAN_ENTRY]
    try:
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            found = _file_of(name)
            if found is None:
                continue
            with open(found[0], "rb") as f:
                sources[name] = data = f.read()
            parts = name.split(".")
            todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
            todo.extend(_imported(name, found[1], data))
    except OSError:
        return None
    return sources if SCAN_ENTRY in sources else None


def scan_modules() -> tuple[str, ...]:
    """Every goosectx module the facts scan may import, the scan's own included (sorted)."""
    return tuple(sorted(_sources() or ()))


@cache
def build_digest() -> str:
    """A digest of the files of :func:`scan_modules` as this process finds them.

    ``""`` when one cannot be found or read: a state is then neither kept nor resumed.
    The digest an earlier process kept is taken when every path its walk looked at is as it
    was then (:func:`_kept_digest`).
    """
    path = cache_path()
    kept = _kept_digest(path)
    if kept:
        return kept
    sources = _sources()
    if not sources:
        return ""
    digest = sha256()
    for name in sorted(sources):
        data = sources[name]
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    found = digest.hexdigest()[:32]
    if all(seen[:1] != ["f"] or _seen(p) == seen for p, seen in _looked.items()):
        from goosectx.text_counts import write_cache_file  # (none changed while read)

        write_cache_file(path, json.dumps({
            "format": CACHE_FORMAT, "version": CACHE_VERSION, "base": _BASE, "digest": found,
            "looked": sorted(_looked.items())}, separators=(",", ":")).encode())
    return found


def cache_path() -> Path:
    """Where this build's digest is kept: one file per directory holding the package."""
    from goosectx.text_counts import user_cache_dir

    key = sha256(_BASE.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return user_cache_dir() / f"scan-build-{key}.json"


def _kept_digest(path: Path) -> str:
    """The digest kept at ``path`` when every path its walk looked at is unchanged, else ``""``."""
    try:
        record = json.loads(path.read_bytes())
        if (not isinstance(record, dict) or record.get("format") != CACHE_FORMAT
                or record.get("version") != CACHE_VERSION or record.get("base") != _BASE):
            return ""
        digest, looked = record.get("digest"), record.get("looked")
        if not (isinstance(digest, str) and len(digest) == 32 and isinstance(looked, list)
                and looked):
            return ""
        for p, seen in looked:
            if not isinstance(p, str) or _seen(p) != seen:
                return ""
    except (OSError, ValueError, TypeError):
        return ""
    return digest
