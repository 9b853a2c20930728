"""The deny backstop: a deny or ask rule catches the program it names wherever the line runs it.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.permissions` reads a shell line under shell deny or ask rules. The readings of
:mod:`goosectx.shell_command` follow the programs goosectx models (wrappers, runners,
interpreters, git, make …); a program it does not know may run a word of its arguments
(``rustup run stable rm -rf src``, ``brew sh -c 'rm -rf src'``, ``mvn exec:exec
-Dexec.executable=rm``, ``pm2 start rm``). So when a rule names program P and an unknown
program's argument holds P — as the word, the first word of a command line in a word with a
blank, or the value of ``--opt=VALUE`` / ``-Dkey=VALUE`` / ``NAME=VALUE`` — the line is asked
about, the reason naming the part, P, the rule and the program goosectx does not know. An
unknown program's arguments are not data; a modelled program's are judged by its model
(:data:`KNOWN`: grep's pattern, echo's text and a commit message are data).

A variable a program reads as a command (:func:`env_runs`) is read the same way, for every
program: ``CC='rm -rf src' make x``, ``make x CC=rm``, ``export CC=rm; make x``,
``MAKEFLAGS='CC=rm' make``, ``CARGO_TARGET_…_RUNNER=rm cargo run``, ``GOFLAGS=-toolexec=rm go
build``; ``PERL5DB`` is perl code ``perl -d`` runs (:func:`perl_debugger`).

What the command text shows, not a sandbox. Core module: no printing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from textwrap import shorten

from goosectx.awk_program import AWK
from goosectx.code_options import IPYTHON
from goosectx.inline_code_extra import ALIASES, OPAQUE
from goosectx.line_options import LINE_OPTIONS
from goosectx.option_table import OPTIONS
from goosectx.runner_table_extra import DATA_PROGRAMS, RUNNING_VERBS, SETTINGS
from goosectx.sed_script import SED
from goosectx.shell_assign import DECLARATIONS
from goosectx.shell_builtins import SHELLS
from goosectx.shell_command import command_forms
from goosectx.shell_forms import CommandForms
from goosectx.shell_lexer import lex
from goosectx.shell_program import after_keywords
from goosectx.shell_runner_options import GRAMMARS
from goosectx.shell_runners import INTERPRETER, RUNNERS, SU_LIKE, VIM, code_runs
from goosectx.shell_unwrap import WRAPPERS
from goosectx.shell_words import ASSIGNMENT_WORD
from goosectx.shell_wrappers import FD, STARTERS

KNOWN = DATA_PROGRAMS | RUNNERS | frozenset(WRAPPERS) | SHELLS | frozenset(SU_LIKE) | (
    DECLARATIONS) | AWK | SED | frozenset(n.split(" ", 1)[0] for n in (*OPTIONS, *GRAMMARS)) | (
    frozenset(LINE_OPTIONS)) | frozenset(ALIASES) | frozenset(OPAQUE) | STARTERS | FD | {
    "eval", "trap", "xargs", "env", "exec", "source", ".", "sudo"}
"""The programs goosectx models (:data:`DATA_PROGRAMS`, runners, wrappers, shells, awk, sed,
tmux, screen, expect, fd, the option tables' programs), besides every interpreter
(:func:`modelled`)."""


def modelled(name: str, args: tuple[str, ...] = ()) -> bool:
    """True when goosectx models ``name``'s arguments (:data:`KNOWN`, an interpreter, vim).

    Not when a word of ``args`` is a subcommand of :data:`RUNNING_VERBS` (``brew sh``); such
    a tool's other subcommands are (``brew install git``).
    """
    if name in RUNNING_VERBS:
        return not RUNNING_VERBS[name].intersection(args)
    return name in KNOWN or any(p.fullmatch(name) for p in (INTERPRETER, VIM, IPYTHON))


def _named(word: str, programs: set[str]) -> str | None:
    """The program of ``programs`` ``word`` names (``rm``, ``/bin/rm``; no URL), or ``None``."""
    if "://" in word:
        return None
    name = word.rsplit("/", 1)[-1] if "/" in word else word
    return next((p for p in programs if p and fnmatchcase(name, p)), None)


_STARTERS = RUNNERS | frozenset(WRAPPERS) | SHELLS | frozenset(SU_LIKE) | {"eval", "env", "xargs"}
"""Programs that start another: a quoted line that begins with one is read in full."""


def _line_names(text: str, programs: set[str]) -> str | None:
    """The program of ``programs`` ``text`` may run read as a shell line (``-c 'sudo rm x'``).

    Each simple command's program; for one that starts another (``sudo``, ``bash -c``), each
    program its reading reaches (:attr:`CommandForms.runs`) and where a runner's command may
    start (:attr:`CommandForms.maybe`); not the words of a program it does not know
    (``--message 'please rm it'`` is text).
    """
    for part in lex(text):
        words = [w.value for w in after_keywords(part.words, part.piped)]
        first = next((w for w in words if not ASSIGNMENT_WORD.match(w)), "")
        if (found := _named(first, programs)) is not None:
            return found
        if first.rsplit("/", 1)[-1] not in _STARTERS:
            continue
        forms = command_forms(part, text)
        for name, *_rest in forms.runs:
            if (found := _named(name, programs)) is not None:
                return found
        for form in forms.maybe:
            if (found := _named(form.split(" ", 1)[0], programs)) is not None:
                return found
    return None


_OPTION_NAME = re.compile(r"-{0,2}[\w.+-]+")
"""What may name an option, a setting or a variable before its ``=VALUE`` (``--command``,
``-Dexec.executable``, ``CC``, ``exec`` of ``exec:rm``): not ``x!`` of ``x!=rm f``."""
_MODELLED_VARIABLES = re.compile(r"GIT_CONFIG_(?:KEY|VALUE)_\d+")
"""Variables another module reads by their meaning (:mod:`goosectx.shell_git`:
``GIT_CONFIG_VALUE_0`` is a command only for a key that runs one)."""


def word_names(word: str, programs: set[str], depth: int = 0) -> str | None:
    """The program of ``programs`` ``word`` may start: as itself, its line, or its value.

    ``rm``; ``'rm -rf src'`` or ``'cd /; sudo rm x'`` (a line with a blank or a separator);
    ``--command=rm``, ``-Dexec.executable=rm``, ``CC=rm``, ``MAKEFLAGS='CC=rm'``,
    ``exec:rm`` (the value, read the same way); ``'!rm x'`` (a shell escape); ``rm,-rf,x``
    (``gcc -wrapper``'s program and arguments).
    """
    if depth > 3 or not word:
        return None
    if (found := _named(word, programs)) is not None:
        return found
    if word.startswith("!") or "," in word and not any(c.isspace() for c in word):
        # dc -e '!rm x', a shell escape; gcc -wrapper rm,-rf,x: a program and its arguments
        found = word_names(word[1:].lstrip() if word.startswith("!") else word.split(",")[0],
                           programs, depth + 1)
        if found is not None:
            return found
    for mark in "=:":  # --command='rm -rf src': the value, read as a word of its own
        name, marked, value = word.partition(mark)
        if marked and _OPTION_NAME.fullmatch(name) and not value.startswith("//") and (
                found := word_names(value, programs, depth + 1)) is not None:
            return found
    if any(c.isspace() or c in ";|&" for c in word):  # 'rm -rf src', cmake's 'rm;-rf;src'
        return _line_names(word, programs)
    return None


def env_runs(variables: dict[str, str], names: Callable[[str], str | None],
             ) -> tuple[str, str] | None:
    """``(variable, program)``: a variable whose value starts a program ``names`` finds.

    ``CC='rm -rf src'``, ``CARGO_TARGET_X_RUNNER=rm``, ``GOFLAGS=-toolexec=rm``,
    ``MAKEFLAGS='CC=rm'``: build tools run such values (make's ``$(CC)``, cargo's runner, go's
    ``-toolexec``); a program goosectx does not know may too. ``names``: :func:`word_names`
    for the rules' programs, each value read once per line.
    """
    for variable, value in variables.items():
        if not _MODELLED_VARIABLES.fullmatch(variable) and (found := names(value)) is not None:
            return variable, found
    return None


def perl_debugger(name: str, args: tuple[str, ...], variables: dict[str, str]) -> str | None:
    """Why ``perl -d`` runs ``PERL5DB``'s code that may run commands, or ``None``."""
    code = variables.get("PERL5DB")
    if code is None or not INTERPRETER.fullmatch(name) or not name.startswith("perl"):
        return None
    debugs = any(a.startswith("-d") or (a.startswith("-") and not a.startswith("--")
                                        and "d" in a[1:].split("e")[0]) for a in args)
    return "PERL5DB's perl code, which perl -d runs, runs commands" if debugs and code_runs(
        "perl", code) else None


def _exported(name: str, args: tuple[str, ...]) -> dict[str, str]:
    """The variables ``export NAME=VALUE`` (``declare -x`` …) hands to later commands."""
    if name != "export" and not (name in DECLARATIONS and any(
            a.startswith("-") and "x" in a for a in args)):
        return {}
    return {k: v for a in args if ASSIGNMENT_WORD.match(a) for k, _, v in [a.partition("=")]}


def backstop(subjects: list[CommandForms], named: dict[str, str]) -> str | None:
    """Why the line may run a program a deny or ask rule names, unseen by the readings, or ``None``.

    ``named``: each program the shell deny and ask rules name → the first rule naming it
    (``rm`` → ``shell(rm *)``; ``""`` for ``shell(*)``). See the module docstring.
    """
    programs = set(named)
    exported: dict[str, str] = {}
    read: dict[str, str | None] = {}  # each value read once: export A='x y' …; true; true …

    def names(word: str) -> str | None:
        if word not in read:
            read[word] = word_names(word, programs)
        return read[word]

    for subject in subjects:
        shown = shorten(" ".join(subject.all[0].split()), 80, placeholder=" …") if (
            subject.all) else ""
        for name, args, env, tried in subject.runs:
            variables = {**exported, **{k: v for k, _, v in (e.partition("=") for e in env)}}
            why = perl_debugger(name, args, variables)
            if why is not None:
                return f"{why}, in `{shown}`"
            if (hit := env_runs(variables, names)) is not None:
                return (f"`{shown}` may run {hit[1]}, which {_rule(named, hit[1])} names: "
                        f"{name} may run {hit[0]}'s value as a program")
            if name in SETTINGS and (hit := env_runs(dict(
                    a.partition("=")[::2] for a in args if "=" in a), names)) is not None:
                return (f"`{shown}` may run {hit[1]}, which {_rule(named, hit[1])} names: "
                        f"{name} may run the value of its setting {hit[0]} as a program")
            if tried or modelled(name, args):  # docker run img git status: maybe's forms
                continue
            found = next(filter(None, map(names, args)), None)
            if found is not None:
                verb = next((a for a in args if a in RUNNING_VERBS.get(name, ())), None)
                what = f"what {name} {verb} runs" if verb else name
                return (f"`{shown}` may run {found}, which {_rule(named, found)} names; "
                        f"goosectx does not know {what}")
        for name, args, _env, _tried in subject.runs:
            exported |= _exported(name, args)
    return None


def _rule(named: dict[str, str], program: str) -> str:
    return f"the rule {named[program]}"
