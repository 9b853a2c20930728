"""Command lines some programs take in a form of their own, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. socat runs
the command of an ``EXEC:CMD`` / ``SYSTEM:CMD`` / ``SHELL:CMD`` address (``socat -
EXEC:'rm x',pty``); ``gh alias set --shell NAME 'CMD'`` stores a shell command a later ``gh
NAME`` runs, and ``gh alias set NAME 'pr merge'`` a gh command (as ``git config alias.x`` does,
:mod:`goosectx.shell_git`). :func:`given_lines` gives those lines, read like ``sh -c``'s;
:func:`given_hidden` tells what such a program would run from text the rules cannot read
(``gh alias import FILE``). ``gh config set pager|editor|browser 'CMD'`` stores a command a
later gh command runs; ``python3 -m uv run rm x`` runs ``uv run rm x``: a python module that
is the command-line tool of a runner (:data:`_RUNNER_MODULES`) is read as that tool. What the
command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
from shlex import join

from goosectx.code_options import python_module

_SOCAT_RUNS = re.compile(r"(?i)(?:exec|system|shell):(.*)", re.DOTALL)
"""socat addresses whose parameter is a command it starts (``SHELL:`` since socat 1.8)."""
_SOCAT_FILE = re.compile(r"(?i)(?:create|creat|open|gopen|file):(.*)", re.DOTALL)
"""socat addresses whose parameter is a file it opens, and may create and write."""
_GH_ALIAS_FLAGS = frozenset({"--shell", "-s", "--clobber"})
_GH_COMMAND_KEYS = frozenset({"pager", "editor", "browser"})
"""gh settings whose value is a command line a later gh command runs."""
_PYTHON = re.compile(r"(?:python|pypy)[\d.]*[a-z]?")
_RUNNER_MODULES = frozenset({"uv", "poetry", "pipx", "pdm", "hatch", "pipenv", "tox", "nox",
                             "rye", "pixi", "conda", "virtualenv"})
"""Python modules that are the command-line tool of a runner (``python3 -m poetry run CMD``
is ``poetry run CMD``)."""


def _socat_command(parameter: str) -> str:
    """An address's command: its text up to the first comma outside quotes (its options)."""
    quote = ""
    for i, char in enumerate(parameter):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            return parameter[:i]
    return parameter


def _gh_alias(args: list[str]) -> list[str]:
    """The line ``gh alias set [--shell] NAME EXPANSION`` stores (``gh EXPANSION`` if no shell)."""
    operands = [a for a in args[2:] if a not in _GH_ALIAS_FLAGS and a != "--"]
    if len(operands) < 2 or operands[1] == "-":
        return []  # the expansion read from standard input: given_hidden
    expansion = operands[1]
    if any(a in ("--shell", "-s") for a in args[2:]) or expansion.startswith("!"):
        return [expansion.removeprefix("!")]
    return [f"gh {expansion}"]


def given_lines(name: str, args: list[str]) -> list[str]:
    """The command lines ``name ARGS`` runs, or stores for later, in a form of its own."""
    if name == "socat":
        return [line for a in args if (found := _SOCAT_RUNS.match(a))
                and (line := _socat_command(found[1]))]
    if name == "gh" and args[:2] == ["alias", "set"]:
        return _gh_alias(args)
    if name == "gh" and args[:2] == ["config", "set"]:
        operands = [a for i, a in enumerate(args[2:], 2) if not a.startswith("-")
                    and args[i - 1] not in ("-h", "--host")]
        return operands[1:2] if operands[:1] and operands[0] in _GH_COMMAND_KEYS else []
    if _PYTHON.fullmatch(name):
        return _runner_module(args)
    return []


def _runner_module(args: list[str]) -> list[str]:
    """``python -m RUNNER ARGS`` read as ``RUNNER ARGS`` (:data:`_RUNNER_MODULES`), or none."""
    module, rest = python_module(args) or ("", [])
    return [join([module, *rest])] if module in _RUNNER_MODULES else []


def socat_files(args: list[str]) -> list[str]:
    """The files ``socat ARGS`` opens to write: ``CREATE:F,perm=0755``, ``OPEN:F``, a bare path."""
    files = [_socat_command(found[1]) for a in args if (found := _SOCAT_FILE.match(a))]
    return [f for f in files if f] + [
        _socat_command(a) for a in args if ":" not in a and "/" in a and not a.startswith("-")]


def given_hidden(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS`` stores or runs a command the rules cannot read, or ``None``."""
    if name == "gh" and args[:2] == ["alias", "import"]:
        return "gh alias import stores aliases from a file, which may run shell commands"
    if name == "gh" and args[:2] == ["alias", "set"] and "-" in args[2:]:
        return "gh alias set - stores an alias read from its standard input"
    return None
