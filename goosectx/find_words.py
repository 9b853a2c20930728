"""How the words of ``find``, ``fd`` and the listers that can go through links read.

docs/architecture.md §4 (clause "permission rules"): ``find``'s starting points and expression,
the dirs ``find … -exec`` / ``fd -x`` run a command on, the pattern words of a ``find`` that
only prints names (``-name .env`` names no file), which names a ``find`` prints
(:func:`find_printed`: ``-name '*.md' -type f``), and the dirs a lister walks through the links
below them (``find -L``, ``ls -LR``, ``tree -l``, ``du -L``). Read by
:mod:`goosectx.recursive_reads`, :mod:`goosectx.shell_paths` and :mod:`goosectx.piped_names`.

Core module: no printing.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable

from goosectx.shell_options import long_option
from goosectx.shell_words import Word

_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
_FD_RUNS = frozenset({"-x", "--exec", "-X", "--exec-batch"})


def find_runs_starts(args: list[str]) -> list[str] | None:
    """The dirs ``find … -exec CMD {} ;`` walks (``.`` when it names none): CMD reads each file.

    ``-delete`` deletes each. ``None`` when it runs no command on what it finds (``find .
    -name x`` reads no file).
    """
    return find_starts(args) if _FIND_RUNS.intersection(args) else None


def find_starts(args: list[str]) -> list[str]:
    """The starting points of ``find`` (its words after the program), ``.`` when none."""
    return find_split(args)[0]


def _find_options_end(args: list[str]) -> int:
    """Where ``find``'s leading options (``-L``, ``-D debug``, ``-O2``) end in its words."""
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P") or i < len(args) and args[i][
            :2] in ("-D", "-O"):
        i += 2 if args[i] == "-D" else 1
    return i


def find_split(args: list[str]) -> tuple[list[str], list[str]]:
    """``find``'s starting points (``.`` when none) and the words of its expression."""
    i = _find_options_end(args)
    starts = []
    for value in args[i:]:
        if value.startswith(("-", "(", "!", ")")):
            break
        starts.append(value)
    return starts or ["."], args[i + len(starts):]


_FIND_PATTERNS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
                            "-regex", "-iregex", "-lname", "-ilname"})
"""``find`` tests whose operand is a pattern matched against the names found, not a path."""
FIND_STATS = frozenset({"-newer", "-anewer", "-cnewer", "-samefile"})
"""``find`` tests whose operand is a file compared by its metadata (times, inode), never read;
``-newerXY`` (:func:`stats_file`) too."""


def stats_file(word: str) -> bool:
    """True for a ``find`` test whose file (or time) it only stats: ``-newer``, ``-newermt``."""
    return word in FIND_STATS or len(word) == 8 and word.startswith("-newer") and (
        word[6] in "aBcm" and word[7] in "aBcmt")


_FIND_ACTS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls")
"""``find`` actions that open, delete or write a file, not only print a name."""


def find_patterns(words: list[Word]) -> list[Word]:
    """The pattern words of a ``find`` that only prints names: ``.env`` of ``-name .env``.

    Listing a name reads nothing (``ls -a`` lists ``.env``), nor does comparing a file's times
    (``-newer .env``, :func:`stats_file`), nor printing a format (``-printf '%h/.env'``); none
    when an action opens, deletes or writes (:data:`_FIND_ACTS`): ``-exec cat {} ;`` is judged
    by the walk of its dirs, a pipe into ``xargs`` by the names printed
    (:mod:`goosectx.piped_names`).
    """
    if not words or words[0].value.rsplit("/", 1)[-1] != "find":
        return []
    args = [w.value for w in words[1:]]
    if any(a.startswith(_FIND_ACTS) for a in args):
        return []
    expression = find_split(args)[1]
    first = len(args) - len(expression) + 1  # words[first] is the expression's first word
    return [words[first + i + 1] for i, a in enumerate(expression[:-1])
            if a in _FIND_PATTERNS or stats_file(a) or a == "-printf"]  # -newer .env: times


_FIND_TESTS_VALUED = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
    "-newer", "-anewer", "-cnewer", "-user", "-group", "-uid", "-gid", "-perm", "-links",
    "-inum", "-samefile", "-maxdepth", "-mindepth", "-regextype", "-lname", "-ilname",
    "-fstype", "-used"})
"""``find`` tests (and options) taking one value that only select among the names found."""
_FIND_TESTS_BARE = frozenset({
    "-empty", "-readable", "-writable", "-executable", "-true", "-prune", "-print", "-print0",
    "-nouser", "-nogroup", "-xdev", "-mount", "-depth", "-noleaf", "-daystart",
    "-ignore_readdir_race", "-noignore_readdir_race", "-follow", "-a", "-and", "(", ")"})
"""``find`` words that select (or print a name found) with no value; ``-a`` joins terms."""


_FIND_PATH_TESTS = frozenset({"-path", "-ipath", "-wholename", "-iwholename"})
_WILD = re.compile(r"[*?\[\]\\]")


def _path_name(pattern: str) -> str | None:
    r"""A base-name glob every path a ``-path PATTERN`` matches has, ``None``: none known.

    The path ends with the pattern's plain tail (after its last ``*``, ``?``, ``[``, ``]`` or
    ``\``; find's ``*`` and ``?`` match a ``/`` too): ``*.py`` → ``*.py``; a tail with a
    ``/`` gives the base name itself (``*/src/a.py`` → ``a.py``); an empty one (``*``,
    ``*/``) nothing.
    """
    tail = _WILD.split(pattern)[-1]
    if "/" in tail:
        return tail.rsplit("/", 1)[1] or None
    return "*" + tail if tail else None


def find_printed(expression: list[str]) -> Callable[[str, bool], bool] | None:
    r"""Which names ``find``'s expression prints, when it is a conjunction of plain tests.

    Terms joined by the implied ``-a`` (no ``-o``, ``,``; parentheses around terms change
    nothing then): each test narrows what is printed, so leaving one out (``-size -1k``,
    ``-newer .env``, ``-not -path './.venv/*'``) only lets more names through. The
    constraint kept: every ``-name``/``-iname`` not negated, the base name a ``-path``/
    ``-wholename``/``-ipath``/``-iwholename`` not negated implies (:func:`_path_name`), and
    ``-type f``. A pattern with
    ``[`` or ``\`` is read differently by Python's fnmatch than by find: ``None`` (any name),
    as for every other expression (``-o``, ``-printf``, an action, a negated group).
    """
    patterns: list[tuple[str, bool]] = []
    files_only = False
    negated = False
    i = 0
    while i < len(expression):
        word, value = expression[i], expression[i + 1] if i + 1 < len(expression) else None
        if word in ("!", "-not"):
            if negated or value in (None, "("):
                return None  # (a negated group: its insides may widen; rare)
            negated = True
            i += 1
            continue
        if word in _FIND_TESTS_BARE:
            negated = False
            i += 1
            continue
        if word not in _FIND_TESTS_VALUED and not stats_file(word) or value is None:
            return None
        if word in ("-name", "-iname") and not negated:
            if "[" in value or "\\" in value:
                return None
            patterns.append((value.lower() if word == "-iname" else value, word == "-iname"))
        elif word in _FIND_PATH_TESTS and not negated and (name := _path_name(value)):
            folded = word.startswith("-i")
            patterns.append((name.lower() if folded else name, folded))
        files_only |= word == "-type" and value == "f" and not negated
        negated = False
        i += 2

    def printed(name: str, is_dir: bool) -> bool:
        return not (files_only and is_dir) and all(fnmatch.fnmatchcase(
            name.lower() if icase else name, pattern) for pattern, icase in patterns)

    return printed


def find_exec_printed(args: list[str]) -> Callable[[str, bool], bool] | None:
    """Which names ``find ARGS`` hands to its first ``-exec``/``-ok``/``-delete``.

    The tests before that action filter what reaches it (``find . -name '*.py' -exec wc -l {}
    +`` runs ``wc`` on ``.py`` files only), read as :func:`find_printed` reads a listing's
    expression; ``None`` when they may let any name through (``-o``, a negated group).
    """
    expression = find_split(args)[1]
    cut = next((i for i, word in enumerate(expression) if word in _FIND_RUNS), len(expression))
    return find_printed(expression[:cut])


def fd_runs_dirs(args: list[str]) -> list[str] | None:
    """The dirs ``fd PATTERN [DIR…] -x CMD`` searches (``.`` when it names none), else ``None``.

    Every word that is no option is taken (a word that is no directory is skipped by the walk).
    """
    if not any(a in _FD_RUNS or a.startswith(("-x", "-X")) for a in args):
        return None
    words = [a for a in args if not a.startswith("-")]
    return [*words, "."] if len(words) <= 1 else words


_LISTERS_FOLLOWING: dict[str, tuple[tuple[str, ...], str, tuple[str, ...], str]] = {
    "ls": (("--recursive",), "R", ("--dereference",), "L"),
    "tree": ((), "", ("--follow",), "l"),
    "du": ((), "", ("--dereference",), "L"),
}
"""Listers that go through a dir link when given a recursion and a follow option (long
options, short letters of each; ``tree``/``du`` recurse anyway): ``ls -LR docs``."""


def walks_links(words: list[Word]) -> list[str] | None:
    """The dirs a lister walks through the links below them (``.`` when it names none), else None.

    ``find -L docs``, ``find docs -follow``, ``ls -LR docs``, ``tree -l``, ``du -L``: each lists
    (or sizes) what a dir link below leads to, outside the project too. ``ls -R`` and ``find``
    without them stay on this side of a link.
    """
    name = words[0].value.rsplit("/", 1)[-1] if words else ""
    args = [w.value for w in words[1:]]
    if name == "find":
        starts, expression = find_split(args)
        return starts if "-L" in args[:_find_options_end(args)] or (
            "-follow" in expression) else None
    if name not in _LISTERS_FOLLOWING:
        return None
    recurse_longs, recurse_letters, follow_longs, follow_letters = _LISTERS_FOLLOWING[name]
    recursive, follows, operands = not recurse_letters, False, []
    for i, value in enumerate(args):
        if value == "--":
            operands.extend(args[i + 1:])
            break
        if value.startswith("--"):
            recursive |= any(long_option(value, one) for one in recurse_longs)
            follows |= any(long_option(value, one) for one in follow_longs)
        elif value.startswith("-") and len(value) > 1:
            recursive |= bool(recurse_letters) and recurse_letters in value
            follows |= follow_letters in value
        else:
            operands.append(value)
    return (operands or ["."]) if recursive and follows else None
