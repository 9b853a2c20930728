"""Linters, formatters, type checkers and test runners that walk the dirs they are given.

docs/architecture.md §4 (clause "permission rules"). ``ruff check .`` reads every ``.py``
file below ``.`` and follows symlinks: through ``src/notes.py → ~/.ssh/id_rsa`` it printed the
key in a code frame, and ``ruff format .`` rewrote a file outside the project through
``src/shared.py → ../outside/shared.py``. Under an allow rule for such a tool
(:data:`WALKERS`), each dir operand (``.`` when the line names no dir nor a file the tool
reads: ``mypy --config-file mypy.ini`` checks what its config names) holding a
symlink that leads outside the project asks, as ``grep -R`` does
(:func:`goosectx.recursive_reads.links_out_below`): a link to a dir always, a link to a file
when its name is one the tool reads (``*.py`` for ruff; any for prettier).

The walk skips the dirs each tool skips by default, by name: ``.venv/bin/python →
/usr/bin/python3`` is in every Python project, and ruff, black, mypy and pytest never enter
``.venv``, ``venv`` and the like, nor eslint, prettier and tsc ``node_modules``
(:class:`Walker` ``skips``, ``dotted``); pytest skips a dir holding ``pyvenv.cfg``, a
virtualenv. No walk here enters ``.venv``, ``venv`` or a virtualenv: for prettier (which reads
``.gitignore``), eslint and tsc that counts on the project ignoring it, as Python projects do;
a venv holds no project source. A tool's ignore files (``.gitignore``, ``.prettierignore``,
``extend-exclude``) are not read otherwise: a link they exclude still asks.
cargo and go compile only the files their packages name, and pytest, like them, runs the
project's code, which may read anything: the project is trusted by such a rule (README,
"Permission rules"); pytest's walk is still judged, since its collection prints a file it
cannot import. Over :data:`~goosectx.glob_words.MAX_NAMES` names below a dir, too many to
check, it may be outside. ``python -m compileall DIR`` compiles (and prints a syntax error's
line of) a ``.py`` link wherever it leads, but enters no dir link (:attr:`Walker.dir_links`);
given no file or dir it compiles sys.path's dirs: asked.

Core module: no printing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from goosectx.glob_words import MAX_NAMES
from goosectx.option_table import table_name
from goosectx.sensitive import expand_user, inside, resolve, shown
from goosectx.shell_dirs import Dir
from goosectx.shell_options import short_value
from goosectx.shell_words import Word


class Walker(NamedTuple):
    """How one tool walks a dir: the dir names it skips, the file names it reads."""

    skips: frozenset[str]
    """Dir names it never enters by default."""
    dotted: bool
    """It skips every dir whose name starts with a dot (mypy, pytest, tsc)."""
    suffixes: tuple[str, ...] | None
    """The endings of the file names it reads; ``None``: any."""
    dir_links: bool = True
    """It enters a link to a dir (``python -m compileall`` does not: it compiles a file link)."""


_PYTHON_SKIPS = frozenset({
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache",
    ".svn", ".tox", ".venv", ".vscode", "__pypackages__", "_build", "buck-out", "dist",
    "node_modules", "site-packages", "venv"})
"""ruff's default ``exclude`` (black's is these but ``node_modules``, with ``build``)."""
_PY = (".py", ".pyi", ".ipynb")
_JS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue")
WALKERS: dict[str, Walker] = {
    "ruff": Walker(_PYTHON_SKIPS, False, _PY),
    "black": Walker(_PYTHON_SKIPS - {"node_modules"} | {"build"}, False, _PY),
    "mypy": Walker(frozenset({"__pycache__", "site-packages", "node_modules"}), True, _PY),
    "pytest": Walker(frozenset({"_darcs", "build", "CVS", "dist", "node_modules", "venv",
                                "{arch}"}), True, (".py",)),
    "tsc": Walker(frozenset({"node_modules", "bower_components", "jspm_packages"}), True,
                  (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".json")),
    "eslint": Walker(frozenset({"node_modules", ".git"}), False, _JS),
    "prettier": Walker(frozenset({"node_modules", ".git", ".svn", ".hg", ".sl", ".jj"}), False,
                       None),
    "compileall": Walker(frozenset({"__pycache__"}), False, (".py",), dir_links=False),
}
"""The tools whose dir operands are walked here, and how each walks (its documented defaults;
pytest's ``norecursedirs``, which also skips a dir holding ``pyvenv.cfg``)."""
WALKERS["py.test"] = WALKERS["dmypy"] = WALKERS["pytest"]
_VENVS = frozenset({".venv", "venv"})
_NOT_WALKING = frozenset({"rule", "version", "config", "linter", "clean", "server", "help",
                          "generate-shell-completion"})
"""ruff's subcommands that read no source tree."""


def tree_links_out(words: list[Word], dirs: tuple[Dir, ...], working_dir: Path,
                   real_dir: Path) -> Iterator[tuple[str, str]]:
    """The dir operand of a :data:`WALKERS` tool holding a link that leads outside.

    ``(word, why)``: ``src (holding src/notes.py → /home/me/.ssh/id_rsa) is outside the
    project``.

    ``words``: one simple command's words (``python -m ruff`` and ``npx eslint`` too);
    ``dirs``: the dirs it may run in (:func:`goosectx.shell_dirs.command_dirs`).
    """
    name, args = _tool([w.value for w in words])
    walker = WALKERS.get(name)
    if name == "ruff" and args[:1] and args[0] in _NOT_WALKING or walker is None:
        return
    if name == "ruff":  # ruff check|format|analyze graph .: the subcommand is no operand
        args = args[2:] if args[:2] == ["analyze", "graph"] else args[args[:1] in (
            ["check"], ["format"]):]
    if name == "compileall" and not _compileall_operands(args):
        line = " ".join(w.value for w in words)  # python -m compileall: every dir of sys.path
        yield line, f"{line} (no file or dir: it compiles sys.path's dirs) is outside the project"
        return
    bases = [base for base in dirs if isinstance(base, Path)]
    operands = [a.partition("::")[0] for a in args if a[:1] not in ("-", "@") and "\0" not in a]
    walked = [a for a in operands if any((b / expand_user(a)).is_dir() for b in bases)]
    sources = [a for a in operands if walker.suffixes is None or a.endswith(walker.suffixes)]
    for value in walked if walked or sources else ["."]:
        for base in bases:
            directory = base / expand_user(value)
            if not directory.is_dir():
                continue
            for found in _links_out(directory, real_dir, walker):
                yield value, (f"{value} (over {MAX_NAMES:,} names below it, too many to check) may "
                              "be outside the project" if found is None else
                              f"{value} (holding {shown(found, working_dir)} → "
                              f"{resolve(found)}) is outside the project")
                return


def _compileall_operands(args: list[str]) -> bool:
    """True when ``python -m compileall ARGS`` names a file or dir, or a list (``-i``)."""
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("--workers", "--invalidation-mode"):
            i += 2
        elif word[:1] == "-" and word[:2] != "--" and len(word) > 1:
            short = short_value(args, i, "rdspxijoe")
            if short.letter == "i":
                return True
            i = short.next
        elif word[:1] != "-" or word == "-":
            return True
        else:
            i += 1
    return False


def _tool(values: list[str]) -> tuple[str, list[str]]:
    """The tool a command runs and its arguments (``npx eslint .``: ``eslint``, ``["."]``)."""
    return table_name(values[0].rsplit("/", 1)[-1], values[1:]) if values else ("", [])


def _links_out(directory: Path, real_dir: Path, walker: Walker) -> Iterator[Path | None]:
    """Each link below ``directory`` the tool would read that leads outside ``real_dir``.

    A ``None`` past :data:`MAX_NAMES` names. The dirs the tool skips are not entered.
    """
    seen = 0
    for top, subdirs, files in os.walk(directory):
        subdirs[:] = [d for d in subdirs if d not in walker.skips and d not in _VENVS and not (
            walker.dotted and d.startswith(".")) and not os.path.isfile(
            os.path.join(top, d, "pyvenv.cfg"))]
        for name in (*subdirs, *files):
            seen += 1
            if seen > MAX_NAMES:
                yield None
                return
            path = Path(top) / name
            if not os.path.islink(path) or inside(resolve(path), real_dir):
                continue
            if name in subdirs and walker.dir_links or name not in subdirs and (
                    walker.suffixes is None or name.endswith(walker.suffixes)):
                yield path
