"""The ``tree`` tool: the files under a directory, respecting .gitignore.

``.gitignore`` files are read from the repository root (the nearest ancestor holding
``.git``) down to each listed directory and applied as git does: deeper files override
shallower ones, ``!pattern`` re-includes, and an ignored directory is not entered. ``.git``
itself is always skipped. Patterns are matched by ``pathspec.GitIgnoreSpec``. An entry that
cannot be read (a directory it may not list, ``/proc/1/fd/0``'s link) is marked on its line
and the rest is listed; only a root that cannot be listed fails the call.

What is listed is what was judged: the root is opened once and, when the call's approval
judged it (``ToolContext.read_target``), checked to be that directory
(:func:`goosectx.read_target.opened_elsewhere`), as ``view`` checks its file; each directory
below is opened from its parent's descriptor without following a symlink. A directory
swapped for a link to ``~/.ssh`` after the check is not listed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.prompts import find_repo_root
from goosectx.sensitive import expand_user
from goosectx.testhooks import pause_point
from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.definitions import (
    TREE_DEFAULT_DEPTH,
    TREE_DESCRIPTION,
    TREE_NAME,
    TREE_PARAMETERS,
)
from goosectx.tools.files import listed_name

if TYPE_CHECKING:
    import pathspec

DEFAULT_DEPTH = TREE_DEFAULT_DEPTH
COUNT_LIMIT = 100_000
"""Entries walked at most: past them a directory is not entered (its line says so), its
siblings still listed, and the count left out is reported as "N+"."""

_Rules = tuple[tuple[Path, "pathspec.GitIgnoreSpec"], ...]


def _read_rules(directory: Path, inherited: _Rules) -> _Rules:
    """``inherited`` plus ``directory``'s own .gitignore, if it has a readable one."""
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return inherited
    import pathspec  # at first use: the REPL imports this module before its prompt

    return (*inherited, (directory, pathspec.GitIgnoreSpec.from_lines(lines.splitlines())))


def _ignored(path: Path, is_dir: bool, rules: _Rules) -> bool:
    """Git's verdict for ``path``: the deepest .gitignore with a matching pattern decides."""
    verdict = False
    for base, spec in rules:
        relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        include = spec.check_file(relative).include
        if include is not None:
            verdict = include
    return verdict


def _repo_rules(directory: Path) -> _Rules:
    """Rules from the .gitignore files of the repository root down to ``directory``."""
    chain = [directory, *directory.parents]
    root = find_repo_root(directory)
    if root is None:
        return ()
    rules: _Rules = ()
    for ancestor in reversed(chain[: chain.index(root) + 1]):
        rules = _read_rules(ancestor, rules)
    return rules


@dataclass(frozen=True, slots=True)
class _Entry:
    depth: int
    text: str


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _scan(fd: int) -> list[os.DirEntry[str]] | str:
    """The entries of the directory open on ``fd``, or why they cannot be listed."""
    try:
        with os.scandir(fd) as entries:
            return list(entries)
    except OSError as exc:
        return exc.strerror or str(exc)


def _open_below(name: str, dir_fd: int) -> int | str:
    """``name`` in the directory ``dir_fd`` opened as a directory, not following a symlink."""
    try:
        return os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        return exc.strerror or str(exc)


def _walk(directory: Path, fd: int, depth: int, max_depth: int, rules: _Rules,
          entries: list[os.DirEntry[str]], room: list[int]) -> Iterator[_Entry]:
    """``entries`` of ``directory`` depth-first, directories first, names case-insensitive.

    An entry that cannot be read (a directory it may not list, a link it may not read) is
    marked on its own line and the rest listed, as ``tree(1)`` does. ``room``: [entries still
    to walk, directories not entered]; at 0 left a directory is not entered
    (:data:`COUNT_LIMIT`).
    """
    visible = []
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False  # its line says what is wrong (below)
        if entry.name == ".git" or _ignored(directory / entry.name, is_dir, rules):
            continue
        visible.append((not is_dir, entry.name.lower(), entry, is_dir))
    for _, _, entry, is_dir in sorted(visible, key=lambda v: (v[0], v[1])):
        room[0] -= 1
        name = listed_name(entry.name)
        try:
            is_link = entry.is_symlink()
        except OSError as exc:
            yield _Entry(depth, f"{name} (cannot read: {exc.strerror or exc})")
            continue
        if is_link:
            try:
                target = listed_name(os.readlink(entry.name, dir_fd=fd))
            except OSError as exc:
                target = f"? (cannot read the link: {exc.strerror or exc})"
            yield _Entry(depth, f"{name} -> {target}")
        elif not is_dir:
            yield _Entry(depth, name)
        else:
            yield from _walk_below(directory / entry.name, fd, depth, max_depth, rules, room)


def _walk_below(child: Path, parent_fd: int, depth: int, max_depth: int,
                rules: _Rules, room: list[int]) -> Iterator[_Entry]:
    """The line of the directory ``child`` (in ``parent_fd``) and, within depth, its tree."""
    name = listed_name(child.name)
    pause_point("tree:descending")  # tests swap the directory for a link here
    fd = _open_below(child.name, parent_fd)
    if isinstance(fd, str):
        yield _Entry(depth, f"{name}/ (cannot list: {fd})")
        return
    try:
        if isinstance(children := _scan(fd), str):
            yield _Entry(depth, f"{name}/ (cannot list: {children})")
        elif depth + 1 >= max_depth or room[0] <= 0:
            count = _count(child, children, rules)
            why = "deeper than depth" if depth + 1 >= max_depth else "not walked: too many"
            room[1] += depth + 1 < max_depth
            yield _Entry(depth, f"{name}/ ({count} entries, {why})")
        else:
            yield _Entry(depth, f"{name}/")
            yield from _walk(child, fd, depth + 1, max_depth, _read_rules(child, rules),
                             children, room)
    finally:
        os.close(fd)


def _count(directory: Path, entries: list[os.DirEntry[str]], rules: _Rules) -> int:
    rules = _read_rules(directory, rules)
    count = 0
    for e in entries:
        try:
            is_dir = e.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        count += e.name != ".git" and not _ignored(directory / e.name, is_dir, rules)
    return count


class TreeTool:
    """Lists a directory tree, skipping .git and what .gitignore ignores."""

    name = TREE_NAME
    nul_free = {"path": "a file path"}
    """Arguments that cannot hold a NUL character (``ToolRegistry.nul_refusal``)."""
    description = TREE_DESCRIPTION
    parameters: dict[str, Any] = TREE_PARAMETERS

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Always: listing changes nothing."""
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """List ``path`` (relative to ``ctx.working_dir``) down to ``depth`` levels.

        Returns:
            The root path, then one line per entry indented two spaces per level; at most
            ``ctx.max_output_chars`` characters, ending with a count of the entries left
            out when the cap was reached.
        """
        from goosectx.read_target import opened_elsewhere

        raw_path = arguments.get("path") or "."
        depth = arguments.get("depth", DEFAULT_DEPTH)
        if not isinstance(raw_path, str):
            return ToolResult("'path' must be a string", is_error=True)
        if depth is None:
            depth = DEFAULT_DEPTH
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
            return ToolResult(f"'depth' must be a whole number of at least 1; got {depth!r}",
                              is_error=True)
        root = Path(os.path.abspath(ctx.working_dir / expand_user(raw_path)))
        try:
            fd = os.open(root, _DIR_FLAGS)
        except (FileNotFoundError, NotADirectoryError) as exc:
            what = ("is not a directory" if isinstance(exc, NotADirectoryError)
                    and root.exists() else "does not exist")
            return ToolResult(f"{root} {what}", is_error=True)
        except OSError as exc:
            return ToolResult(f"{root} cannot be listed: {exc.strerror or exc}", is_error=True)
        try:
            judged = ctx.read_target
            if judged is not None and judged.path == root:
                if (why := opened_elsewhere(fd, judged)) is not None:
                    return ToolResult(why, is_error=True)
            return self._list(root, fd, depth, ctx)
        finally:
            os.close(fd)

    def _list(self, root: Path, fd: int, depth: int, ctx: ToolContext) -> ToolResult:
        """The tree of the directory ``root``, open on ``fd`` (see :meth:`run`).

        Over the cap, the lines kept are chosen level by level (:func:`_kept`): the top level
        is listed before any directory's contents, so a 20,000-file subdirectory cannot hide
        the files beside it; the last line says how many were left out and where.
        """
        entries = _scan(fd)
        if isinstance(entries, str):
            return ToolResult(f"{root} cannot be listed: {entries}", is_error=True)
        rules = _repo_rules(root) or _read_rules(root, ())
        room = [COUNT_LIMIT, 0]
        walked = list(_walk(root, fd, 0, depth, rules, entries, room))
        head = f"{root}/"
        lines = ["  " * (entry.depth + 1) + entry.text for entry in walked]
        parents = _parents(walked)
        kept = _kept(walked, parents, lines, ctx.max_output_chars - len(head) - 1 - 240)
        shown = [head, *(line for i, line in enumerate(lines) if i in kept)]
        if not walked:
            shown.append("  (empty)")
        if len(kept) < len(walked) or room[1]:
            left_out = len(walked) - len(kept)
            count = f"{left_out:,}+" if room[1] else f"{left_out:,}"
            where = _where(walked, parents, kept)
            shown.append(f"[... {count} more entries not shown ({where}); list "
                         "a subdirectory or use a smaller depth]")
        return ToolResult(ctx.redact("\n".join(shown)[: ctx.max_output_chars]))


def _parents(walked: list[_Entry]) -> list[int]:
    """The index of each entry's directory in ``walked`` (pre-order), ``-1`` for the root."""
    parents: list[int] = []
    open_dirs: list[int] = []  # the listed directory at each depth above the entry
    for i, entry in enumerate(walked):
        del open_dirs[entry.depth:]
        parents.append(open_dirs[-1] if open_dirs else -1)
        if entry.text.endswith("/"):  # a directory whose entries follow (a name ends no "/")
            open_dirs.append(i)
    return parents


def _kept(walked: list[_Entry], parents: list[int], lines: list[str],
          room_chars: int) -> set[int]:
    """The entries shown within ``room_chars``: level by level, each directory a share.

    A level's entries are taken the first of each directory, then the second of each, …
    (a directory of 20,000 files and one of 2 both show theirs), in the tree's order;
    ``parents``: :func:`_parents` of ``walked``.
    """
    seen: dict[int, int] = {}
    rank = []
    for parent in parents:
        seen[parent] = seen.get(parent, 0) + 1
        rank.append(seen[parent])
    kept: set[int] = set()
    used = 0
    for i in sorted(range(len(walked)), key=lambda i: (walked[i].depth, rank[i], i)):
        used += len(lines[i]) + 1
        if used > room_chars:
            break
        kept.add(i)
    return kept


def _where(walked: list[_Entry], parents: list[int], kept: set[int]) -> str:
    """Where entries were left out: the top level and the 3 directories missing the most.

    ``parents``: :func:`_parents` of ``walked``.
    """
    missing: dict[int, int] = {}
    for i in range(len(parents)):
        if i not in kept:
            at = parents[i]
            while at >= 0 and at not in kept:
                at = parents[at]
            missing[at] = missing.get(at, 0) + 1

    def path(i: int) -> str:
        names = []
        while i >= 0:
            names.append(walked[i].text)
            i = parents[i]
        return "".join(reversed(names))

    most = sorted(missing.items(), key=lambda item: -item[1])[:3]
    return ", ".join(f"{'the top level' if at < 0 else path(at)} {n:,}" for at, n in most) \
        + (", …" if len(missing) > 3 else "")


def gitignore_rules(directory: Path, top: Path) -> _Rules:
    """The .gitignore rules that apply in ``directory`` (for ``@`` completion).

    The repository's when ``directory`` is in one, else those of ``top`` (the working dir)
    down to ``directory``.
    """
    rules = _repo_rules(directory)
    if rules:
        return rules
    chain = [directory, *directory.parents]
    if top not in chain:
        return ()
    for ancestor in reversed(chain[: chain.index(top) + 1]):
        rules = _read_rules(ancestor, rules)
    return rules


def is_ignored(path: Path, is_dir: bool, rules: _Rules) -> bool:
    """Git's verdict for ``path`` under ``rules`` (see :func:`gitignore_rules`)."""
    return _ignored(path, is_dir, rules)
