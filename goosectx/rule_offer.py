"""The command-prefix rule the approval question offers (``p`` / ``s``), and for what not.

docs/architecture.md §4. :func:`suggested_rule` gives ``shell(git status*)`` for ``git status
--short``. An allow rule matches a command's words only (``permissions.match_rules``), so
``shell(tar*)`` allows every ``tar`` command, ``tar -xf x.tar --to-command='rm f'`` too: no
rule is offered for a program that runs a command, a program or code given in its arguments
or options. :data:`RUNS_ANYTHING` is that set, built from the tables the shell reading keeps
for such programs (shells, interpreters, wrappers, runners, ``tar --to-command``, ``sort
--compress-program``, pagers, databases, terminals …) and the programs those tables do not
list (make's ``CC=…``, compilers' ``-wrapper``, ``cargo --config``, ``npm --script-shell``,
``apt-get -o …::Pre-Invoke``); :data:`GIT_RUNS` the git subcommands that do (``git grep -O``,
``git fetch --upload-pack``, ``git config core.pager``). The git subcommands that write any
file an option names (:data:`GIT_WRITES`: ``git log --output=F``), ``uv``, ``poetry`` and
``pipenv`` are offered the command as it is, a rule that cannot grow. tests/test_rule_offer.py
walks the shell tables, so a program added there is never offered a rule.

Core module: no printing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from goosectx.shell_builtins import SHELLS, builtin_lines
from goosectx.shell_command import KEYWORDS
from goosectx.shell_databases import DATABASES
from goosectx.shell_languages import COMMAND_LANGUAGES
from goosectx.shell_lexer import lex
from goosectx.shell_multicall import MULTICALL
from goosectx.shell_options import COMMAND_OPTIONS, PROGRAM_OPTIONS
from goosectx.shell_pagers import PAGERS
from goosectx.shell_runners import (
    CONTAINERS,
    INTERPRETER,
    LINE_RUNNERS,
    RUNNERS,
    SU_LIKE,
    SUBCOMMAND_RUNNERS,
    VIM,
)
from goosectx.shell_terminals import TERMINALS
from goosectx.shell_unwrap import WRAPPERS
from goosectx.shell_variables import OPTION_VARIABLES
from goosectx.shell_wrappers import FD, STARTERS, runs_given_command

__all__ = ["EXACT_ONLY", "GIT_RUNS", "GIT_WRITES", "RUNS_ANYTHING", "SUBCOMMAND_TOOLS",
           "suggested_rule"]

SUBCOMMAND_TOOLS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "uv", "pip", "poetry",
    "gh", "terraform", "dotnet", "bundle", "rails", "mix", "nix", "brew", "apt", "helm"})
"""Commands whose second word is a subcommand (``git status``), kept in a suggested rule."""

_UNLISTED = frozenset({
    "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "tclsh", "osascript",
    "su", "eval", "awk", "gawk", "mawk", "nawk", "busybox-awk", "source", ".", "trap", "fc",
    "bind", "rg", "find", "pipx",
    # a command, a program or code given in an option or a variable on the command line
    "make", "gmake", "sed", "gsed", "ed", "red", "scp", "sftp", "at", "batch", "crontab",
    "man", "cc", "c++", "gcc", "g++", "clang", "clang++", "gfortran", "tcc", "ld", "ld.gold",
    "ld.lld", "lld", "rustc", "rustup", "cargo", "go", "npm", "pnpm", "yarn", "pip", "pip3",
    "gem", "cmake", "ctest", "tox", "apt", "apt-get", "aptitude", "dpkg", "ssh-agent",
    "dbus-launch", "xdg-open", "open", "mongosh", "mongo", "compgen", "complete", "mapfile",
    "readarray",
})
"""Programs that run what their arguments say and that no shell table lists: ``make
CC='rm f'``, ``sed 's/x/y/e'``, ``gcc -wrapper``, ``cargo --config``, ``go build -toolexec``,
``npm test --script-shell``, ``pip install URL`` (its build code), ``cmake -E``, ``tox -x``,
``apt-get -o APT::Update::Pre-Invoke::=…``, ``dpkg --pre-invoke``, ``ssh-agent CMD``."""

RUNS_ANYTHING = frozenset(
    SHELLS | COMMAND_LANGUAGES | MULTICALL | WRAPPERS.keys() | STARTERS | FD | TERMINALS
    | (RUNNERS - SUBCOMMAND_RUNNERS.keys()) | (LINE_RUNNERS - SUBCOMMAND_RUNNERS.keys())
    | set(SU_LIKE) | COMMAND_OPTIONS.keys() | PROGRAM_OPTIONS.keys() | PAGERS | DATABASES
    | set(OPTION_VARIABLES.values()) | _UNLISTED)
"""Programs that run whatever their arguments say: no command-prefix rule is offered for them.

``find``, ``fd`` and ``rg`` too: ``shell(fd*)``, offered for a plain ``fd -e py``, would allow
``fd -e py -x rm -rf {}`` (``find -exec``, ``rg --pre``); ``shell(tar*)``, offered for ``tar
-tf x.tar``, would allow ``tar -xf x.tar --to-command='rm f'``."""

GIT_RUNS = frozenset({
    "config", "rebase", "difftool", "mergetool", "grep", "clone", "fetch", "pull", "push",
    "ls-remote", "archive", "send-pack", "fetch-pack", "submodule", "bisect", "filter-branch",
    "send-email", "instaweb", "daemon", "help", "web--browse", "remote", "credential"})
"""git subcommands that run a command given on their line (``grep -O``, ``rebase -x``,
``difftool -x``, ``clone -u``, ``fetch --upload-pack``, ``push --receive-pack``, ``archive
--exec``, ``submodule foreach``, ``bisect run``, ``filter-branch --tree-filter``) or store
one that later git commands run (``config core.pager``, ``remote add x ext::…``)."""

GIT_WRITES = frozenset({
    "log", "show", "diff", "diff-files", "diff-index", "diff-tree", "whatchanged", "shortlog",
    "format-patch", "range-diff", "rev-list", "cherry", "reflog", "stash", "blame", "annotate",
    "fast-export", "bundle"})
"""git subcommands that write any file an option names: the diff and log options'
``--output=FILE`` (``git log -1 --output=$HOME/.bashrc``), ``format-patch -o DIR``,
``fast-export --export-marks=FILE``, ``bundle create FILE``. They are offered the command as it
is (``shell(git log --oneline)``), a rule that cannot grow, never ``shell(git log*)``."""

EXACT_ONLY = frozenset({"uv", "poetry", "pipenv"})
"""Programs offered the command as it is, no ``*``: every ``uv`` and ``pipenv`` command takes
``--python PATH`` (a program they run), ``shell(uv pip*)`` would allow ``uv pip install URL``
(its build code), ``shell(uv tool*)`` ``uv tool run CMD``, ``shell(poetry self*)`` ``poetry
self add URL`` (a plugin, run in every poetry command), ``shell(poetry env*)`` ``poetry env use
PATH``. ``uv run CMD`` / ``poetry run CMD`` keep their rule for CMD."""

_PLAIN_WORD = re.compile(r"[\w./:,=@%+^~-]+")
"""A word an exact rule spells as the command does: no blank, quote or glob character."""

_PROGRAM_PATTERNS = (INTERPRETER, VIM, re.compile(r"(?:cuda-)?gdb(?:-multiarch)?"),
                     re.compile(r"(?:tclsh|wish|jimsh)[\d.]*"),
                     re.compile(r"(?:[\w.]+-)*(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|gfortran)"
                                r"(?:-[\d.]+)?"))
"""Program names by pattern: ``python3.12``, ``nvim``, ``gdb-multiarch``, ``tclsh8.6``,
``x86_64-linux-gnu-gcc-12``."""


def _runs_anything(name: str) -> bool:
    """True when the program ``name`` runs what its arguments say (no rule is offered)."""
    return name in RUNS_ANYTHING or any(p.fullmatch(name) for p in _PROGRAM_PATTERNS)


def suggested_rule(tool_name: str, arguments: Mapping[str, Any]) -> str | None:
    """The rule ``p`` / ``s`` offers for a shell call: its first words and ``*``.

    ``git status --short`` → ``shell(git status*)``; ``pytest -q`` → ``shell(pytest*)``;
    the command as it is, no ``*``, for a git subcommand that writes a file an option names
    (:data:`GIT_WRITES`: ``git log --oneline`` → ``shell(git log --oneline)``) and for ``uv``,
    ``poetry``, ``pipenv`` (:data:`EXACT_ONLY`), or ``None`` when a word has a blank, quote or
    glob character.
    ``None`` for a compound command, another tool, text the shell cannot parse, a command with
    leading ``VAR=value`` assignments, and a program that runs whatever its arguments say
    (:data:`RUNS_ANYTHING`: ``bash -c``, ``python3 -c``, ``sudo``, ``env``, ``xargs``,
    ``find``, ``tar``, ``make``, ``compgen -C``, ``tmux`` …; :data:`GIT_RUNS`: ``git grep``):
    a rule for it would allow almost anything.
    """
    if tool_name != "shell" or not isinstance(arguments.get("command"), str):
        return None
    parts = [p for p in lex(arguments["command"]) if p.words or p.unreadable]
    if len(parts) != 1 or parts[0].unreadable or any(
            w.expands or w.pattern for w in parts[0].words[:2]):
        return None
    words = [w.value for w in parts[0].words]
    program = words[0] if words else ""
    name = program.rsplit("/", 1)[-1]
    if (not re.fullmatch(r"[\w./+-]+", program) or "=" in program or _runs_anything(name)
            or program in KEYWORDS or program.startswith("-")
            or builtin_lines(name, words[1:])  # compgen -C CMD, mapfile -C CMD
            or runs_given_command(name, words[1:])  # tmux new 'CMD', fd -x CMD, make --eval
            or name == "git" and (len(words) > 1 and words[1].startswith("-")
                                  or len(words) > 1 and words[1] in GIT_RUNS)):
        return None
    keep = [program]
    if name in SUBCOMMAND_TOOLS | SUBCOMMAND_RUNNERS.keys():
        if len(words) < 2 or not re.fullmatch(r"[a-z][a-z0-9_-]*", words[1]):
            return None  # shell(docker*) would allow docker run too
        keep.append(words[1])  # a subcommand: git status, npm test, cargo build
    verbs = SUBCOMMAND_RUNNERS.get(name, ())
    if any(w in verbs for w in words[1:]):  # uv run CMD: a rule for CMD after it, or none
        if name in CONTAINERS | {"direnv", "distrobox", "nix"} or keep[-1] not in verbs or len(
                words) < 3:
            return None  # docker exec …, uv --quiet run …: a rule would allow anything
        inner = suggested_rule(tool_name, {"command": arguments["command"].split(None, 2)[2]})
        return None if inner is None else f"shell({' '.join(keep)} {inner[len('shell('):]}"
    if name in EXACT_ONLY or name == "git" and keep[-1] in GIT_WRITES:
        if not all(_PLAIN_WORD.fullmatch(w) for w in words):
            return None  # git log --format='%h %s': no exact rule spells it
        return f"shell({' '.join(words)})"  # no `*`: git log --output=F is asked about
    return f"shell({' '.join(keep)}*)"
