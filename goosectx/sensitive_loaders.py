"""Programs that load a ``.env`` and hand or print it, naming no file.

docs/architecture.md §4 (the sensitive-file list): part of
:func:`goosectx.sensitive_shell.sensitive_words`. ``cat .env`` names the file it reads;
``dotenv run -- CMD``, ``python -m dotenv list``, ``node -r dotenv/config x.js``, ``deno run
--env-file x.ts``, ``direnv exec . CMD`` and ``docker compose config`` read ``.env`` (or
``.envrc``) without naming it, asked for by name on the command line, and hand its secrets to
the program they run or print them. Each such default file that is there, and sensitive,
counts as named by the command (an option naming the file, ``--env-file=.env``, is a word
judged as ever). A project without a ``.env`` runs them unasked.

What the command asks for, not what a program does by itself: ``bun test``, ``pipenv run``,
``flask run`` and ``docker compose up`` also load ``.env`` on their own, but so may any
program the user runs, and the code they run could read the file as well — asking there would
ask at every test run of a project with a ``.env`` under the user's own allow rule and guard
nothing. Not a sandbox: a script calling ``load_dotenv()`` is not read (inline code naming
dotenv is: :func:`goosectx.inline_reads.code_reads`).

Core module: no printing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from goosectx.code_options import python_module
from goosectx.sensitive import shown
from goosectx.shell_runners import RUNNERS

DOTENV = (".env",)
_DIRENV = (".envrc", ".env")
_DOTENV_PROGRAMS = frozenset({"dotenv", "dotenv-cli", "dotenvx", "env-cmd", "dotenv-flow",
                              "godotenv", "shdotenv"})
"""Programs that run a command with ``.env`` loaded, or print it (python-dotenv's and npm's
``dotenv``, ``dotenv-cli``, ``@dotenvx/dotenvx``, ``env-cmd``, go's ``godotenv``,
``shdotenv``)."""
_PRELOADS = re.compile(r"(?:@dotenvx/)?dotenv(?:x|-expand|-flow)?/config(?:\.js)?")
"""A module node preloads that loads ``.env`` (``-r dotenv/config``, ``--import
dotenv/config``)."""
_PRELOAD_OPTIONS = ("-r", "--require", "--import", "--loader", "--experimental-loader",
                    "--setupFiles", "--setupFilesAfterEnv", "--setup-files")
_NODES = frozenset({"node", "nodejs", "tsx", "ts-node", "esno", "esrun", "mocha", "_mocha",
                    "ts-mocha", "ava", "nodemon", "vitest", "jest"})
"""node and the test runners and watchers that preload a module for it (``mocha -r
dotenv/config``, ``nodemon -r``, ``vitest|jest --setupFiles dotenv/config``)."""
_PYTHON = re.compile(r"python[\d.]*|pypy[\d.]*")
_COMPOSE_PROGRAMS = frozenset({"docker", "podman", "nerdctl"})
_QUIET = frozenset({"-h", "--help", "--version", "version", "help", "--revision"})
"""Words that make a loader print its help or version only (``dotenv -v NAME=V`` sets a
variable: not one)."""


def program_name(word: str) -> str:
    """A program's name as a runner gives it: ``npx dotenv-cli@7`` → ``dotenv-cli``."""
    name = word.rsplit("/", 1)[-1]
    return name.split("@", 1)[0] or name


def loaded_files(words: list[str]) -> tuple[tuple[str, ...], bool, tuple[str, ...]]:
    """The env files ``words`` (a program and its arguments) load unnamed.

    ``(names, upward, dirs)``: the default file names, whether they are looked for in the
    dirs above too, and the dirs (relative to where it runs; ``.`` itself) they are looked
    for in; ``((), …)`` for none.
    """
    none: tuple[tuple[str, ...], bool, tuple[str, ...]] = ((), False, ())
    if not words:
        return none
    name, args = program_name(words[0]), words[1:]
    if any(a in _QUIET for a in args[:1]):
        return none
    if name in _DOTENV_PROGRAMS:
        return DOTENV, False, (".",)
    if _PYTHON.fullmatch(name):
        module, rest = python_module(args) or ("", [])  # python -mdotenv list: as dotenv's
        return loaded_files(["dotenv", *rest]) if _dotenv_module(module) else none
    if name in _NODES:
        return (DOTENV, False, (".",)) if any(
            _PRELOADS.fullmatch(value) for value in _option_values(args, _PRELOAD_OPTIONS)
        ) else none
    if name == "deno":  # deno run --env-file x.ts: the flag's optional value left out
        return (DOTENV, False, (".",)) if any(a in ("--env", "--env-file") for a in args) \
            else none
    if name == "direnv" and args[:1] in (["exec"], ["export"]):
        return _DIRENV, True, (args[1] if args[:1] == ["exec"] and args[1:] else ".",)
    if name in ("docker-compose", "podman-compose") or name in _COMPOSE_PROGRAMS and (
            "compose" in args[:4]):
        rest = args[args.index("compose") + 1:] if "compose" in args[:4] else args
        if "config" not in rest:  # only `config` prints the values .env gives the file
            return none
        return DOTENV, False, (".", *(os.path.dirname(v) or "." for v in _option_values(
            rest, ("-f", "--file"))), *_option_values(rest, ("--project-directory",)))
    return none


def _module(args: list[str]) -> str:
    """The module ``python -m MODULE`` runs (``""`` for none)."""
    return (python_module(args) or ("", []))[0]


def _dotenv_module(module: str) -> bool:
    """``dotenv`` or one of its modules that runs its command line (``dotenv.cli``)."""
    return module.split(".", 1)[0] == "dotenv"


def _option_values(args: list[str], options: tuple[str, ...]) -> list[str]:
    """The values ``args`` give ``options``: ``-r X``, ``--require=X``, ``-rX``."""
    found = []
    for k, arg in enumerate(args):
        option, equals, value = arg.partition("=")
        if arg in options and k + 1 < len(args):
            found.append(args[k + 1])
        elif equals and option in options:
            found.append(value)
        elif arg[:2] in options and len(arg) > 2 and arg[1] != "-":
            found.append(arg[2:])
    return found


def env_loads(words: list[str], dirs: tuple[Path, ...], judge: Callable[[Path], str | None],
              working_dir: Path) -> Iterator[tuple[str, str]]:
    """Each sensitive env file ``words`` load unnamed: ``(file, how it is shown)``.

    ``words``: the command's program and arguments, wrappers looked through; a runner's
    (``npx dotenv-cli -- CMD``, ``uv run dotenv run CMD``) by each of its words that starts a
    loader. Looked for in each of ``dirs``; ``judge``: the sensitive-file check.
    """
    names = [program_name(word) for word in words]
    starts = [0] if not names or names[0] not in RUNNERS else range(len(names))
    for start in starts:
        files, upward, places = loaded_files(words[start:])
        if files:
            module = _module(words[start + 1:]) if _PYTHON.fullmatch(names[start]) else ""
            who = f"{names[start]} -m {module}" if module else names[start]
            yield from _found(files, upward, [base / place for base in dirs for place in places],
                              judge, working_dir,
                              f"{who} loads it into the environment of what it runs")
            return


def code_loads(dirs: tuple[Path, ...], judge: Callable[[Path], str | None],
               working_dir: Path, name: str) -> Iterator[tuple[str, str]]:
    """The ``.env`` inline code loading one loads, found from ``dirs`` up.

    ``load_dotenv()``, node's ``process.loadEnvFile()``.
    """
    yield from _found(DOTENV, True, list(dirs), judge, working_dir,
                      f"{name}'s inline code loads it")


def _found(files: tuple[str, ...], upward: bool, places: list[Path],
           judge: Callable[[Path], str | None], working_dir: Path,
           how: str) -> Iterator[tuple[str, str]]:
    """The first sensitive file of ``files`` there in ``places`` (and above), said ``how``."""
    for place in places:
        place = Path(os.path.abspath(place))
        for directory in (place, *place.parents) if upward else (place,):
            there = [directory / one for one in files if os.path.lexists(directory / one)]
            for path in there:
                if judge(path):
                    name = shown(path, working_dir)
                    yield name, f"{name} ({how})"
                    return
            if there:
                break  # the nearest dir holding one is the one read
