"""One table of programs' options whose effect the rest of their command line does not show.

docs/architecture.md §4 (clause "permission rules"). Under an allow rule for a program that
reads, some of its options make it write a file the rules never judge as a write target
(``git diff --output=Makefile``, ``pytest --basetemp=.git``, which pytest empties), read two
paths whole (``git diff --no-index``), read the files a list or its input names (``sort
--files0-from=-``, ``tar -T list``, ``zip -@``, ``git rm --pathspec-from-file=F``), take its
command's arguments from a file (``parallel -a F``), run a program file (``make -f F``), or
write its output to a named file (``find -fprint F``, judged as a write target; curl's, wget's
and patch's output files are only judged so, as their rules let them write). :data:`OPTIONS`
says which, per program (``"git add"`` for a subcommand; the table's entries live in
:mod:`goosectx.option_programs`, re-exported here); :func:`option_hits` is the one
lookup, read by :mod:`goosectx.option_writes`, :mod:`goosectx.hidden_names`,
:mod:`goosectx.git_config_writes` and :func:`goosectx.shell_runners.hidden_program`.

Long options match as GNU getopt, git's and argparse's parsers take them: any unique prefix
(``--outp=F``); options are read up to ``--``. Core module: no printing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from goosectx.code_options import python_module
from goosectx.option_programs import (
    CURL_VALUED,
    JUDGED_OUTPUT,
    KNOWN,
    MODULES,
    OPTIONS,
    PATCH_VALUED,
    PIP_VALUED,
    TAR_VALUED,
    Does,
    Option,
    compiler_words,
)
from goosectx.shell_git import git_subcommand
from goosectx.shell_options import long_option, short_value, value_at

__all__ = ["CURL_VALUED", "JUDGED_OUTPUT", "KNOWN", "MODULES", "OPTIONS", "PATCH_VALUED",
           "TAR_VALUED", "Does", "Hit", "Option", "first_hit", "long_options", "option_hits",
           "table_name"]  # the table itself: option_programs.py


class Hit(NamedTuple):
    """One option of a command line found in :data:`OPTIONS`."""

    does: Does
    program: str
    """The program as the table names it (``pytest`` for ``python -m pytest``)."""
    word: str
    """The word the option was found in (``--outp=F``, ``-cT``)."""
    value: str | None
    """Its value for a long option or whole word (``=V`` or the next word); else ``None``."""


_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*")
_NODE_RUNNERS = frozenset({"npx", "bunx", "yarn", "pnpm", "bun"})
_NODE_TOOLS = frozenset({"eslint", "tsc", "prettier"})
"""``npx|bunx|yarn|pnpm|bun [run|exec|dlx|x] TOOL …`` runs the project's ``TOOL``."""


def table_name(name: str, args: list[str]) -> tuple[str, list[str]]:
    """The program the table names and its arguments: ``python -m pytest X`` is ``pytest X``.

    ``yarn eslint X`` (``npx``, ``pnpm exec`` …) is ``eslint X``.
    """
    if _PYTHON.fullmatch(name) and (module := python_module(args)) and module[0] in MODULES:
        return module  # python3 -mvenv, -Im venv, -I -X dev -m venv: code_options' one reader
    if name in _NODE_RUNNERS:
        rest = args
        for word in ("-", ("run", "exec", "dlx", "x"), "-", ("--",)):  # yarn -s run -- tsc
            while rest[:1] and (rest[0][:1] == "-" != rest[0] if word == "-" else rest[0] in word):
                rest = rest[1:]
        if rest[:1] and rest[0] in _NODE_TOOLS:
            return rest[0], rest[1:]
    return name, args


def option_hits(name: str, args: list[str]) -> Iterator[Hit]:
    """Each option of ``name ARGS`` that :data:`OPTIONS` lists, in the order of the words."""
    name, args = compiler_words(*table_name(name, args))
    entries = [(name, entry) for entry in OPTIONS.get(name, ())]
    if name == "git" and (at := git_subcommand(args)) < len(args):
        sub = f"git {args[at]}"  # git -C . rm --pathspec-from-file=F: "git rm"'s options too
        entries += [(sub, entry) for entry in OPTIONS.get(sub, ())]
    if name == "go" and args[:1] and args[0][:1] != "-":  # go env -w GOFLAGS=…: "go env"'s
        entries += [(f"go {args[0]}", entry) for entry in OPTIONS.get(f"go {args[0]}", ())]
    if name == "gh" and len(args) > 1:  # gh release download -O F: "gh release download"'s
        sub = f"gh {args[0]} {args[1]}"
        entries += [(sub, entry) for entry in OPTIONS.get(sub, ())]
    if name in ("pip", "pip3") and (pip_sub := _pip_subcommand(args)):  # pip download -d D
        entries += [(f"pip {pip_sub}", entry) for entry in OPTIONS.get(f"pip {pip_sub}", ())]
    if not entries:
        return
    starts = any(entry.starts for _program, entry in entries)
    shorts = any(entry.letters or entry.flags for _program, entry in entries)
    words = {w for _program, entry in entries for w in entry.words}
    ended = False
    for i, word in enumerate(args):
        ended = ended or word == "--"
        if not starts and (word[:1] != "-" and i or word[:2] != "--" and not shorts and (
                word not in words)):
            continue  # an operand, or find's -name (most words of a long line): no entry's
        for program, entry in entries:
            if _matches(entry, args, i, ended, KNOWN.get(program, frozenset())):
                value = _value(entry, args, i)
                if program == "pytest" and long_option(word, "--cov-report") and value is not None:
                    value = cov_report_file(value)
                yield Hit(entry.does, program, word, value)


_COV_REPORTS = {"html": "htmlcov", "xml": "coverage.xml", "json": "coverage.json",
                "lcov": "coverage.lcov", "markdown": "coverage.md",
                "markdown-append": "coverage.md"}
"""pytest-cov's report types that write a file, and the file or dir each writes by default."""


def cov_report_file(value: str) -> str | None:
    """The file ``pytest --cov-report=VALUE`` writes, or ``None`` for a report to the terminal.

    ``html`` writes ``htmlcov``, ``xml:out/cov.xml`` writes ``out/cov.xml`` (only the part after
    ``:`` is a path); ``term-missing:skip-covered`` none. An unknown type (``annotate`` writes
    beside each source) stays the whole value, judged as a file it names.
    """
    kind, colon, dest = value.partition(":")
    if kind in ("term", "term-missing", ""):  # --cov-report= : no report at all
        return None
    if kind in _COV_REPORTS:
        return dest if colon else _COV_REPORTS[kind]
    return value


def _pip_subcommand(args: list[str]) -> str | None:
    """The subcommand of ``pip ARGS`` (``pip --log F -q wheel .``: ``wheel``), or ``None``."""
    for i, word in enumerate(args):
        if word[:1] != "-" and (i == 0 or args[i - 1] not in PIP_VALUED):
            return word
    return None


def first_hit(name: str, args: list[str], *kinds: Does) -> Hit | None:
    """The first of :func:`option_hits` that does one of ``kinds``, or ``None``."""
    return next((hit for hit in option_hits(name, args) if hit.does in kinds), None)


_CACHES = {"mypy": "--cache-dir", "dmypy": "--cache-dir", "ruff": "--cache-dir",
           "eslint": "--cache-location", "prettier": "--cache-location"}
"""A linter's option naming the cache it keeps (of the files it checked), which it writes at each
run by default too (``.mypy_cache``, ``.ruff_cache``, ``.eslintcache``)."""


def own_cache(hit: Hit) -> bool:
    """True when ``hit`` names a linter's own cache (``mypy --cache-dir=.mypy_cache``).

    ``eslint --cache-location node_modules/.cache/eslint`` too: a path named as a cache (what
    it writes there is its cache); ``prettier --cache-location=Makefile`` replaces a project
    file, which no rule for prettier covers.
    """
    option = _CACHES.get(hit.program)
    return option is not None and hit.does is Does.OUTPUT and long_option(hit.word, option) and (
        "cache" in (hit.value or "").lower())


def long_options(name: str, does: Does) -> tuple[str, ...]:
    """The long options of ``name`` that do ``does`` (``make``'s ``--file``, ``--makefile``)."""
    return tuple(o for entry in OPTIONS.get(name, ()) if entry.does is does for o in entry.longs)


def _matches(entry: Option, args: list[str], i: int, ended: bool,
             known: frozenset[str]) -> bool:
    word = args[i]
    if word.startswith(entry.starts) and entry.starts:
        return True
    if _flag(word, entry.flags):
        return True
    if ended:
        return False
    exact = word.partition("=")[0]
    if word in entry.words or word[:2] == "--" and (exact in entry.longs or exact not in known
                                                    ) and any(
            long_option(word, option) for option in entry.longs):
        return True
    if not entry.letters:
        return False
    if word.startswith("-") and not word.startswith("--") and len(word) > 1:
        if entry.valued:
            short = short_value(args, i, entry.valued + entry.letters)
            return any(letter in short.flags + short.letter for letter in entry.letters)
        return any(letter in word[1:] for letter in entry.letters)
    return entry.bare and i == 0 and any(letter in word for letter in entry.letters)


def _flag(word: str, flags: tuple[str, ...]) -> bool:
    """True when ``word`` is one of go's or tsc's ``flags`` (``-o``, ``--outDir=D``)."""
    name = word[2:] if word[:2] == "--" else word[1:] if word[:1] == "-" else ""
    name = name.partition("=")[0].lower()
    return bool(name) and (name in flags or name.startswith("test.") and name[5:] in flags)


def _value(entry: Option, args: list[str], i: int) -> str | None:
    word = args[i]
    if word in entry.words or _flag(word, entry.flags) or word[:2] == "--" and any(
            long_option(word, option) for option in entry.longs):
        return word.partition("=")[2] if "=" in word else value_at(args, i + 1)
    if entry.valued and word[:1] == "-" and word[:2] != "--":  # sort -uo F, -oF
        short = short_value(args, i, entry.valued + entry.letters)
        return short.value if short.letter and short.letter in entry.letters else None
    return None
