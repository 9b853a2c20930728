"""Paths whose files a later command runs: the git directory, a virtualenv, ``node_modules``.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.git_config_writes` judges a path a command writes. A file in the git directory
(``.git/`` at any depth, also ``$GIT_DIR``) is a hook, git config or the repository itself
(``HEAD``, ``index``, refs: an empty one breaks it); one in a virtualenv (a dir holding
``pyvenv.cfg``, or named ``.venv`` / ``venv`` in the project) or in ``node_modules`` is
installed code a later allowed command runs (a ``.pth`` file runs at every Python start,
under an allowed ``pytest`` too). :func:`protected_write` judges the path normalised (``.``,
``..``, ``//``) and taken in each dir the command may run in (:class:`Where`, from the one walk
of :func:`goosectx.shell_dirs.command_dirs`: ``cd .git/hooks && tee pre-commit``), and, where
a symlink leads elsewhere, the file it reaches (a ``..`` after a link too:
``hooksdir/../config``); a word bash expands gives each name it expands to (``.gi[t]/config``,
``.{git,x}/config``: the read checks' :func:`goosectx.glob_words.pattern_paths`); one made at
run time that may be in the git directory (``$d/config``, ``$GIT_DIR/hooks/x``) asks. A relative
path after a ``cd`` to a dir not known here (``cd "$X" && tee HEAD``) may be any of these: it
asks, and a build tool run there (:func:`build_elsewhere`: ``cd "$X" && make``) runs a build
file the project does not hold. A worktree's ``.git`` file (``gitdir: DIR``) is followed to
its git directory and the common one (hooks, config). What the command text shows, not a
sandbox.

Core module: no printing.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from goosectx.glob_words import pattern_paths
from goosectx.own_files import own_write
from goosectx.protected_hooks import git_location, hooks_write
from goosectx.sensitive import expand_user, inside, resolve
from goosectx.shell_dirs import Dir, Unknown, Walked, chdir_dirs, command_dirs, expanded
from goosectx.shell_options import long_option, short_value, value_at

_MOVES = re.compile(r"\b(?:cd|pushd|popd)\b")
"""A line without these runs every part in the working dir: no walk needed."""
_GLOBAL_CONFIG = re.compile(r"(?:^|.*/)(?:\.gitconfig|\.config/git/config)")
_MAGIC = re.compile(r"[*?[{]")
"""A word with these is one bash may expand: braces, then a glob."""
_RUN_TIME_GIT_DIR = re.compile(
    r"\$\{?GIT_(?:COMMON_)?DIR\b|(?:\$\w+|\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`)/+"
    r"(?:config|HEAD|index|packed-refs|(?:hooks|refs|info|objects)(?:/.*)?)$")
"""A path bash makes at run time that may be in the git directory: one naming ``$GIT_DIR``
(``$GIT_COMMON_DIR``), or a variable or ``$(…)`` followed by what a git directory holds
(``$d/config``, ``"$(…)"/hooks/pre-commit``): the variable may be the git directory."""
_VENV_NAMES = frozenset({".venv", "venv"})
_NESTED = frozenset({"modules", "worktrees"})  # .git/modules/NAME/hooks: a submodule's


@dataclass(frozen=True, slots=True)
class Where:
    """Where a simple command runs: the project's dir and the dirs a ``cd`` may leave it in."""

    root: Path
    dirs: tuple[Dir, ...]


@dataclass(frozen=True, slots=True)
class LineDirs:
    """The dirs each part of a shell line may run in, by the part's text (its walk's)."""

    root: Path
    by_text: dict[str, tuple[Dir, ...]] = field(default_factory=dict)

    def at(self, text: str, outer: Where | None = None) -> Where:
        """Where the part written ``text`` runs (``outer``: the line it is part of runs)."""
        default = outer.dirs if outer is not None else (self.root,)
        return Where(self.root, self.by_text.get(text, default))


def moves(command: str) -> bool:
    """True when ``command`` may run a part elsewhere than the working dir (a ``cd``)."""
    return _MOVES.search(command) is not None


def line_dirs(command: str, working_dir: Path, walked: Walked | None = None) -> LineDirs:
    """The dirs of every part of ``command``, inner lines' too (``bash -c 'cd .git && …'``).

    ``walked``: the line's walk, when the caller has it (the decision's one walk, shared
    with the path checks: :func:`goosectx.approval.decide`).
    """
    found = LineDirs(working_dir)
    if not moves(command):
        return found
    for part, dirs in command_dirs(command, working_dir) if walked is None else walked:
        known = found.by_text.get(part.text, ())
        found.by_text[part.text] = tuple(dict.fromkeys((*known, *dirs)))
    return found


def chdir_where(name: str, args: list[str], where: Where | None) -> Where | None:
    """``where`` with the dir a wrapper's ``--chdir`` option moves its command to added.

    ``env -C .git tee HEAD`` writes ``.git/HEAD`` (:func:`goosectx.shell_dirs.chdir_dirs`).
    """
    if where is None:
        return where
    return Where(where.root, chdir_dirs(name, args, where.dirs))


def copies_as_links(args: list[str]) -> bool:
    """True when ``cp ARGS`` makes links rather than copies (``-l``, ``-s``, ``-al``, ``--link``).

    A hard link shares the file (``cp -al .git g``: a write to ``g/config`` is one to
    ``.git/config``), a symbolic one leads there: judged as ``ln`` is, its sources linked to.
    """
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return False
        if word[:2] == "--":
            if long_option(word, "--link") or long_option(word, "--symbolic-link"):
                return True
        elif word[:1] == "-" and len(word) > 1:
            short = short_value(args, i, "St")  # -S SUFFIX, -t DIR take a value
            if "l" in short.flags or "s" in short.flags:
                return True
            i = short.next
            continue
        i += 1
    return False


def protected_write(who: str, path: str, where: Where | None, verb: str = "writes",
                    tops: tuple[Path, ...] | None = None, cache: bool = False) -> str | None:
    """Why ``who`` writing ``path`` may change what a later command runs, or ``None``.

    ``who``: the program, or ``>`` / ``>>`` for a redirection; ``verb``: what it does there
    (``removes``: ``mv``'s sources). ``where``: the project and the dirs the command may run
    in; ``None``: judged on the text alone. A relative path in a dir not known here (``cd
    "$X" && tee HEAD``) may be any of them. ``tops``: :func:`git_dirs` of ``where``, when the
    caller judges many paths. ``cache``: ``path`` is a linter's own cache
    (:func:`goosectx.option_table.own_cache`), which may be in ``node_modules/.cache`` (where
    tools keep their caches: no package, nothing npm or node runs from), a link followed too.
    """
    if not path or "\0" in path:
        return None
    who = "a redirection" if who in (">", ">>") else who
    if _RUN_TIME_GIT_DIR.search(path):  # for d in .git; do tee $d/config; cp x $GIT_DIR/hooks/x
        return (f"{who} {verb} {path}, a path bash makes at run time that may be in the git "
                "directory: a hook or git config is a command a later git runs")
    unknown = next((base for base in where.dirs if isinstance(base, Unknown)), None) if (
        where is not None and not expand_user(path).is_absolute()) else None
    if unknown is not None:
        return (f"{who} {verb} {path} after {unknown.after}, in a dir not known here: it "
                "may be the git directory, a virtualenv or node_modules")
    tops = git_dirs(where) if tops is None else tops
    candidates = _candidates(path, where, follow=True)
    if isinstance(candidates, str):  # tee .gi[t]/*: what it names is not known here
        return f"{who} {verb} {path}, whose names are not known here ({candidates})"
    for target, root in candidates:
        why = _judged(f"{who} {verb}", target, root, tops, cache=cache) or own_write(
            f"{who} {verb}", target) or hooks_write(  # > ~/.config/goosectx/config.toml
            f"{who} {verb}", target, root)  # core.hooksPath=.githooks: > .githooks/pre-commit
        if why is None and target.is_absolute() and root is not None:
            real = resolve(target)  # ln -s .git/hooks h; tee h/pre-commit
            why = _judged(f"{who} {verb}", real, resolve(root), tops,
                          cache=cache) if real != target else None
        if why is not None:
            return why
    return None


def names_git_dir(paths: list[str], where: Where | None) -> bool:
    """True when one of ``paths`` is the git directory or a path in it, or git's config.

    Each taken in the dirs of ``where`` as written (``cd .git && make ARGS=-oHEAD``), no link
    followed; after a ``cd`` to a dir not known here, by its text: words a program hands on
    may be no paths at all.
    """
    tops = git_dirs(where) if paths else ()
    moved = where is not None and any(isinstance(base, Path) and ".git" in str(base).lower()
                                      for base in where.dirs)  # cd .git && make ARGS=-oHEAD
    if not tops and not moved:  # then only a word naming it reaches it: the others skipped
        paths = [p for p in paths if ".git" in p.lower() or "git/config" in p.lower()
                 or _MAGIC.search(p)]  # .gi[t]/hooks/x
    for path in paths:
        candidates = _candidates(path, where) if path and "\0" not in path else []
        if isinstance(candidates, str) or any(
                _judged("", target, root, tops, git_only=True) is not None
                for target, root in candidates):
            return True
    return False


def _candidates(path: str, where: Where | None,
                follow: bool = False) -> list[tuple[Path, Path | None]] | str:
    """``path`` normalised in each dir of ``where``, with the project it is judged in.

    A word bash expands (``.gi[t]/config``, ``.{git,x}/config``) gives each name it expands to
    there (:func:`goosectx.glob_words.pattern_paths`, the read checks' expansion), or why they
    cannot be known. ``follow``: a ``..`` is also taken after the links before it are followed
    (``hooksdir/../config`` is ``.git/config`` when ``hooksdir`` links to ``.git/hooks``).
    """
    written = expand_user(path)
    if where is None or written.is_absolute() and not _MAGIC.search(path):
        return [(Path(posixpath.normpath(written)), where.root if where else None)]
    found: list[tuple[Path, Path | None]] = []
    for base in (where.root,) if written.is_absolute() else where.dirs:
        if isinstance(base, Unknown):
            found.append((Path(posixpath.normpath(path)), None))
            continue
        names = pattern_paths(path, base, fold=False) if _MAGIC.search(path) else [base / written]
        if isinstance(names, str):
            return names
        for name in names:
            found.append((Path(os.path.normpath(name)), where.root))
            if follow and ".." in name.parts:  # realpath follows each link before its ..
                found.append((resolve(name), resolve(where.root)))
    return found


def git_dirs(where: Where | None) -> tuple[Path, ...]:
    """The git directories other than a ``.git`` one: ``$GIT_DIR``, a worktree's.

    A worktree's (or a submodule's) ``.git`` is a file, ``gitdir: DIR``, in the project or a
    dir above it: ``DIR`` and the common dir its ``commondir`` names (the hooks and config
    every worktree uses), as written and resolved.
    """
    if where is None:
        return ()
    root, found = where.root, []
    if git_dir := os.environ.get("GIT_DIR"):
        found.append(Path(os.path.normpath(root / expand_user(git_dir))))
    top, named, common = git_location(root)
    if named is not None and named != top / ".git":  # a .git file's (a .git dir is judged
        found += [d for d in (named, common) if d is not None]  # as .git)
    return tuple(dict.fromkeys((*found, *map(resolve, found))))


def _judged(done: str, target: Path, root: Path | None, tops: tuple[Path, ...] = (),
            git_only: bool = False, cache: bool = False) -> str | None:
    """:func:`protected_write`'s reason for one normalised ``target`` (``root``: the project).

    ``done``: who does what (``tee writes``, ``mv removes``); ``tops``: :func:`git_dirs`;
    ``cache``: a linter's cache, let be in ``node_modules/.cache`` (not ``.bin``, a package).
    """
    within = root is not None and target.is_absolute() and inside(target, root)
    parts = target.relative_to(root).parts if within and root is not None else target.parts
    shown = "/".join(parts) if within else str(target)
    lowered = [p.lower() for p in parts]
    if ".git" in lowered:
        return _in_git_dir(done, shown, parts[len(lowered) - lowered[::-1].index(".git"):])
    for top in tops if target.is_absolute() else ():
        if inside(target, top):
            return _in_git_dir(done, shown, target.relative_to(top).parts)
    if _GLOBAL_CONFIG.fullmatch(str(target)):
        return f"{done} {shown}: {_CONFIG}"
    if git_only:
        return None
    last = len(lowered) - lowered[::-1].index("node_modules") if "node_modules" in lowered else 0
    if last and not (cache and lowered[last:last + 1] == [".cache"] and len(lowered) > last + 1):
        return (f"{done} {shown} {_into(done)} node_modules: installed code a later npm, npx or "
                "node command runs")
    relative = not target.is_absolute() or within
    named = next((k for k, p in enumerate(parts) if p in _VENV_NAMES), None) if relative else None
    venv = "/".join(parts[:named + 1]) if named is not None else _venv_above(target, root)
    if venv is not None:
        return (f"{done} {shown} {_into(done)} the virtualenv {venv}: code there runs at every "
                "Python start and as the commands it installs")
    return None


_CONFIG = "git config may set a command a later git runs (core.pager, a ! alias)"


def _into(done: str) -> str:
    return "into" if done.endswith(" writes") else "in"


def _in_git_dir(done: str, shown: str, rest: tuple[str, ...]) -> str:
    """The reason for a write at ``rest`` below a git directory (``()``: the dir itself)."""
    while len(rest) > 2 and rest[0] in _NESTED:
        rest = rest[2:]  # .git/modules/NAME/hooks/x, .git/worktrees/NAME/config.worktree
    if rest[:1] == ("hooks",):
        return f"{done} {shown}: a hook is a command a later git runs"
    if rest in (("config",), ("config.worktree",)):
        return f"{done} {shown}: {_CONFIG}"
    if not rest and done.endswith(" writes"):
        return (f"{done} into the git directory {shown}: a file there may be its config or a "
                "hook, a command a later git runs")
    if not rest:
        return f"{done} the git directory {shown}, which holds the repository"
    return (f"{done} {shown} in the git directory, which holds the repository (HEAD, "
            "index, refs, objects) and the commands git runs")


def _venv_above(target: Path, root: Path | None) -> str | None:
    """The virtualenv (a dir holding ``pyvenv.cfg``) ``target`` is in, below ``root``."""
    if not target.is_absolute():
        return None
    within = root is not None and inside(target, root)
    for up in (target, *target.parents):
        if within and root is not None and (up == root or not inside(up, root)):
            return None  # the project itself is no virtualenv of its own
        if (up / "pyvenv.cfg").is_file():
            return "/".join(up.relative_to(root).parts) if within and root else str(up)
    return None


BUILDERS = frozenset({"make", "gmake", "bmake", "just", "ninja"})
"""Programs that run what the build file of the dir they run in says (``Makefile``)."""
_BUILD_OPTIONS = {
    **dict.fromkeys(("make", "gmake", "bmake"), ("CfIoW", "C", ("--directory",),
                                                 ("--file", "--makefile"))),
    "just": ("fd", "d", ("--working-directory",), ("--justfile",)),
    "ninja": ("Cfjkldtw", "C", (), ()),
}
"""Per build tool: its short options that take a value, the one naming the dir it runs in
(``-f`` names the build file), its long options naming that dir (``make -C DIR``, ``just -d
DIR``, ``ninja -C DIR``) and the build file (``make -f F``, ``just --justfile F``)."""


def build_elsewhere(name: str, args: list[str], where: Where | None) -> str | None:
    """Why a build tool runs a build file the project does not hold, or ``None``.

    ``cd "$X" && make``: the Makefile of a dir not known here; ``cd /tmp && make``, ``make -C
    /tmp/x``, ``make -f ../x/Makefile``, ``just -d DIR``, ``ninja -C DIR``: one outside the
    project; ``make -C "$X"``: a dir named at run time. A ``make`` in the project (``make -C
    build``) runs the project's own build file, as before.
    """
    if name not in BUILDERS or where is None:
        return None
    for one in where.dirs:
        if isinstance(one, Unknown):
            return (f"{name} runs the build file of a dir the line goes to at run time "
                    f"({one.after}), which the rules cannot read")
        if not inside(one, where.root):
            return f"{name} runs the build file in {one}, outside the project"
    for value, is_dir in _build_places(name, args):
        for base in where.dirs:
            if isinstance(base, Unknown):
                continue
            named = expanded(value, base) if _RUN_TIME.search(value) else value
            if named is None:
                return (f"{name} runs the build file {'in ' if is_dir else ''}{value}, named at "
                        "run time, which the rules cannot read")
            path = Path(os.path.normpath(base / expand_user(named)))
            if not inside(path, where.root) or not inside(resolve(path), resolve(where.root)):
                return (f"{name} runs the build file in {value}, outside the project" if is_dir
                        else f"{name} runs the build file {value}, outside the project")
    return None


_RUN_TIME = re.compile(r"[$`]")


def _build_places(name: str, args: list[str]) -> list[tuple[str, bool]]:
    """The dirs (``True``) and build files (``False``) ``name ARGS`` names by its options."""
    valued, into, dirs, files = _BUILD_OPTIONS[name]
    found: list[tuple[str, bool]] = []
    for i, word in enumerate(args):
        if word == "--":
            break
        if word[:2] == "--":
            value = word.partition("=")[2] if "=" in word else value_at(args, i + 1)
            if value is not None and any(long_option(word, o) for o in dirs):
                found.append((value, True))
            elif value is not None and any(long_option(word, o) for o in files):
                found.append((value, False))
        elif word[:1] == "-" and len(word) > 1:
            short = short_value(args, i, valued)
            if short.value is not None and short.letter in (into, "f"):
                found.append((short.value, short.letter == into))
    return found
