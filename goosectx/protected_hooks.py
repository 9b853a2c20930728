"""The hooks dir a repository's config names (``core.hooksPath``), protected as ``.git/hooks``.

docs/architecture.md §4, clause 2 of the one approval decision: part of
:func:`goosectx.protected_paths.protected_write`. With ``core.hooksPath = .githooks`` in
``.git/config`` (husky and pre-commit set-ups), ``echo … > .githooks/pre-commit`` writes a
command the next ``git commit`` runs. The value is read from the config of the repository
the project is in (a worktree's common config too), a relative one taken from the top of the
work tree, where git runs hooks; each file is parsed once per change (its size and mtime), the
repository found once per decision (:func:`read_once`).
The user's global config is not read. What the files show, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from goosectx.sensitive import expand_user, inside

_SECTION = re.compile(r"\s*\[\s*([A-Za-z0-9.-]+)(?:\s+\"[^\"]*\")?\s*\]\s*(.*)$")
_KEY = re.compile(r"\s*hookspath\s*=\s*(.*?)\s*$", re.IGNORECASE)
_MAX_CONFIG = 1_000_000
"""A config past this size is not read (git's own are a few hundred bytes)."""


def hooks_write(done: str, target: Path, root: Path | None) -> str | None:
    """Why ``done`` at the absolute ``target`` writes a hook of the configured hooks dir."""
    if root is None or not target.is_absolute():
        return None
    for hooks in configured_hooks(root):
        if not inside(target, hooks) or inside(root, hooks) and (
                target.parent != hooks or target.name not in HOOK_NAMES):
            continue  # hooksPath = .: only ./pre-commit … there is a hook, not every file
        shown, dir_ = (str(p.relative_to(root)) if inside(p, root) and p != root else str(p)
                       for p in (target, hooks))
        return (f"{done} {shown} in {dir_}, the hooks dir core.hooksPath names: a hook is a "
                "command a later git runs")
    return None


HOOK_NAMES = frozenset({
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
    "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
    "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "p4-changelist",
    "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change"})
"""The hooks git runs (githooks(5)): in a hooks dir that holds the project itself
(``core.hooksPath = .``), only these files are hooks."""


_MEMO: ContextVar[dict[Path, tuple[Path, ...]] | None] = ContextVar("goosectx_hooks",
                                                                   default=None)
"""The hooks dirs found for each project dir during one decision (:func:`read_once`)."""


@contextmanager
def read_once() -> Iterator[None]:
    """Read each repository's hooks dirs once in the block (one decision: many paths)."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def configured_hooks(root: Path) -> tuple[Path, ...]:
    """The dirs ``core.hooksPath`` names in the config of the repository ``root`` is in."""
    memo = _MEMO.get()
    if memo is None:
        return _configured(root)
    if root not in memo:
        memo[root] = _configured(root)
    return memo[root]


def _configured(root: Path) -> tuple[Path, ...]:
    top, configs = _repository(root)
    found: list[Path] = []
    for config in configs:
        try:
            stat = os.stat(config)
        except OSError:
            continue
        value = _hooks_path(str(config), stat.st_mtime_ns, stat.st_size)
        if value:
            found.append(Path(os.path.normpath(top / expand_user(value))))
    return tuple(dict.fromkeys(found))


def _repository(root: Path) -> tuple[Path, list[Path]]:
    """The top of the work tree ``root`` is in and its config files (a worktree's common one)."""
    top, git_dir, common = git_location(root)
    if git_dir is None:
        return top, []
    if git_dir == top / ".git":
        return top, [git_dir / "config"]
    return top, [*(d / "config" for d in (common,) if d is not None),
                 git_dir / "config.worktree"]


def git_location(root: Path) -> tuple[Path, Path | None, Path | None]:
    """``(top, git dir, common dir)`` of the work tree ``root`` is in.

    A ``.git`` dir: ``(its parent, it, None)``; a ``.git`` file ``gitdir: DIR`` (a worktree,
    a submodule): ``DIR`` and the common dir its ``commondir`` names (``None`` without one);
    no ``.git`` above ``root``, or one that names no dir: no git dir.
    """
    for up in (root, *root.parents):
        dot_git = up / ".git"
        if dot_git.is_dir():
            return up, dot_git, None
        try:
            with open(dot_git, encoding="utf-8", errors="replace") as f:
                line = f.readline(4096).strip()
        except OSError:
            continue
        named = line[7:].strip() if line.startswith("gitdir:") else ""
        if not named:
            return up, None, None
        git_dir = Path(os.path.normpath(up / named))
        try:
            common = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            common = ""
        return up, git_dir, Path(os.path.normpath(git_dir / common)) if common else None
    return root, None, None


@lru_cache(maxsize=32)
def _hooks_path(config: str, _mtime_ns: int, size: int) -> str | None:
    """The last ``core.hooksPath`` value of the config file ``config`` (``None``: none)."""
    if size > _MAX_CONFIG:
        return None
    try:
        text = Path(config).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section, value = "", None
    for line in text.splitlines():
        if match := _SECTION.match(line):
            section, line = match.group(1).lower(), match.group(2)
        if section == "core" and (key := _KEY.match(line)):
            value = _unquoted(key.group(1))
    return value


def _unquoted(raw: str) -> str:
    """A config value as git reads it: a comment after ``#``/``;`` dropped, quotes removed."""
    out, quoted = [], False
    for char in raw:
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()
