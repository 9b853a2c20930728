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
``CC=rm; export CC; make``, ``set -a; CC=rm; make``, ``MAKEFLAGS='CC=rm' make``,
``CARGO_TARGET_…_RUNNER=rm cargo run``, ``GOFLAGS=-toolexec=rm go
build``; ``PERL5DB`` is perl code ``perl -d`` runs (:func:`perl_debugger`); ``LD_PRELOAD``
loads a library whose code runs in any program (:func:`preloaded`). A name bash makes at run
time (``$Y``, ``r${X}m``, ``$(echo rm)``, ``r{m,}``) where a program is run — a running verb's
arguments (``rustup run stable $Y``), a variable or setting that names a program (``CC=$X``)
— may be any program its literal parts allow (:data:`_MADE`), the safe direction.

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
from goosectx.shell_unwrap import WRAPPERS, handed
from goosectx.shell_words import ASSIGNMENT_WORD, VARIABLE_EXPANSION
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


def _named(word: str, programs: set[str], made: bool = False) -> str | None:
    """The program of ``programs`` ``word`` names (``rm``, ``/bin/rm``; no URL), or ``None``."""
    if "://" in word:
        return None
    made_name = _MADE.sub("*", _QUOTING.sub("", word))  # CC='"rm"', CC='\\rm': the shell reads rm
    name = made_name.rsplit("/", 1)[-1]
    if made_name != _QUOTING.sub("", word):  # $Y, r${X}m, $(echo rm), r{m,}, ${A[0]}, $1: any
        return next((p for p in programs if p and fnmatchcase(p, name)), None) if made else None
    return next((p for p in programs if p and fnmatchcase(name, p)), None)


_QUOTING = re.compile(r"[\"'\\]")
_MADE = re.compile(r"\$\([^)]*\)?|`[^`]*`?|\$\{[^}]*\}?|\$(?:\w+|[@*#?$!-])?|"
                   r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
"""What bash makes at run time in a program's name: an expansion, a brace list (``r{m,}``);
in it the name may be any program (the safe direction), unless its literal parts rule it out
(``$F.txt`` is no ``rm``)."""


_STARTERS = RUNNERS | frozenset(WRAPPERS) | SHELLS | frozenset(SU_LIKE) | {"eval", "env", "xargs"}
"""Programs that start another: a quoted line that begins with one is read in full."""


def _line_names(text: str, programs: set[str], made: bool = False) -> str | None:
    """The program of ``programs`` ``text`` may run read as a shell line (``-c 'sudo rm x'``).

    Each simple command's program; for one that starts another (``sudo``, ``bash -c``), each
    program its reading reaches (:attr:`CommandForms.runs`) and where a runner's command may
    start (:attr:`CommandForms.maybe`); not the words of a program it does not know
    (``--message 'please rm it'`` is text).
    """
    for part in lex(text):
        words = [w.value for w in after_keywords(part.words, part.piped)]
        first = next((w for w in words if not ASSIGNMENT_WORD.match(w)), "")
        if (found := _named(first, programs, made)) is not None:
            return found
        if first.rsplit("/", 1)[-1] not in _STARTERS:
            continue
        forms = command_forms(part, text)
        for name, *_rest in forms.runs:
            if (found := _named(name, programs, made)) is not None:
                return found
        for form in forms.maybe:
            if (found := _named(form.split(" ", 1)[0], programs, made)) is not None:
                return found
    return None


_OPTION_NAME = re.compile(r"-{0,2}[\w.+-]+")
"""What may name an option, a setting or a variable before its ``=VALUE`` (``--command``,
``-Dexec.executable``, ``CC``, ``exec`` of ``exec:rm``): not ``x!`` of ``x!=rm f``."""
_MODELLED_VARIABLES = re.compile(r"GIT_CONFIG_(?:KEY|VALUE)_\d+")
"""Variables another module reads by their meaning (:mod:`goosectx.shell_git`:
``GIT_CONFIG_VALUE_0`` is a command only for a key that runs one)."""


def word_names(word: str, programs: set[str], depth: int = 0, made: bool = False) -> str | None:
    """The program of ``programs`` ``word`` may start: as itself, its line, or its value.

    ``rm``; ``'rm -rf src'`` or ``'cd /; sudo rm x'`` (a line with a blank or a separator);
    ``--command=rm``, ``-Dexec.executable=rm``, ``CC=rm``, ``MAKEFLAGS='CC=rm'``,
    ``exec:rm`` (the value, read the same way); ``'!rm x'`` (a shell escape); ``rm,-rf,x``
    (``gcc -wrapper``'s program and arguments).
    """
    if depth > 3 or not word:
        return None
    if (found := _named(word, programs, made)) is not None:
        return found
    if word.startswith("!") or "," in word and not any(c.isspace() for c in word):
        # dc -e '!rm x', a shell escape; gcc -wrapper rm,-rf,x: a program and its arguments
        found = word_names(word[1:].lstrip() if word.startswith("!") else word.split(",")[0],
                           programs, depth + 1, made)
        if found is not None:
            return found
    for mark in "=:":  # --command='rm -rf src': the value, read as a word of its own
        name, marked, value = word.partition(mark)
        if marked and _OPTION_NAME.fullmatch(name) and not value.startswith("//") and (
                found := word_names(value, programs, depth + 1, made)) is not None:
            return found
    if "%(" in word and (found := _line_names(  # rpm --define 'x %(rm -rf src)': a command
            word.split("%(", 1)[1].rsplit(")", 1)[0], programs, made)) is not None:
        return found
    if any(c.isspace() or c in ";|&" for c in word):  # 'rm -rf src', cmake's 'rm;-rf;src'
        return _line_names(word, programs, made)
    return None


def env_runs(variables: dict[str, str], names: Callable[[str, bool], str | None],
             ) -> tuple[str, str] | None:
    """``(variable, program)``: a variable whose value starts a program ``names`` finds.

    ``CC='rm -rf src'``, ``CARGO_TARGET_X_RUNNER=rm``, ``GOFLAGS=-toolexec=rm``,
    ``MAKEFLAGS='CC=rm'``: build tools run such values (make's ``$(CC)``, cargo's runner, go's
    ``-toolexec``); a program goosectx does not know may too. ``names``: :func:`word_names`
    for the rules' programs, each value read once per line.
    """
    for variable, value in variables.items():
        if not _MODELLED_VARIABLES.fullmatch(variable) and (found := names(
                value, _COMMAND_VARIABLE.fullmatch(variable) is not None and not re.search(
                    r"\$\(|`", value))) is not None:  # CC=$(which gcc): its own check reads it
            return variable, found
    return None


_COMMAND_VARIABLE = re.compile(r"-*(?:CC|CXX|CPP|LD|AR|AS|NM|RANLIB|STRIP|FC|MAKE|SHELL|EDITOR|"
                               r"VISUAL|PAGER|[\w.-]*(?i:runner|command|cmd|executable|launcher|"
                               r"wrapper|program|compiler|exec|tool))")
"""A variable or setting that names a program to run: its value made at run time (``CC=$X``,
``CC={x,rm}``) may be any program; another's (``PYTHONPATH=$PWD``) is data."""


def perl_debugger(name: str, args: tuple[str, ...], variables: dict[str, str]) -> str | None:
    """Why ``perl -d`` runs ``PERL5DB``'s code that may run commands, or ``None``."""
    code = variables.get("PERL5DB")
    if code is None or not INTERPRETER.fullmatch(name) or not name.startswith("perl"):
        return None
    debugs = any(a.startswith("-d") or (a.startswith("-") and not a.startswith("--")
                                        and "d" in a[1:].split("e")[0]) for a in args)
    return "PERL5DB's perl code, which perl -d runs, runs commands" if debugs and code_runs(
        "perl", code) else None


PRELOADS = ("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES")
"""Variables naming libraries the dynamic linker loads into every program started: their
code runs as the program's (as ``openssl -engine x.so`` and ``ssh-keygen -D x.so`` do)."""


def preloaded(name: str, variables: dict[str, str]) -> str | None:
    """Why ``name`` started with ``LD_PRELOAD=x.so`` (:data:`PRELOADS`) may run anything."""
    found = next((v for v in PRELOADS if variables.get(v)), None)
    return None if found is None else (
        f"{found} loads {variables[found]} into {name}, and that library's code may run any "
        "command")


class _Shell:
    """The variables the line has set so far, and which of them later commands are handed."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # CC=rm: the shell's own, not handed on yet
        self.marked: set[str] = set()  # export CC (before or after CC=rm)
        self.exported: dict[str, str] = {}
        self.all_exported = False  # set -a: every later assignment is handed on

    def assign(self, text: str) -> None:
        """A bare assignment's part (``CC=rm``, ``A=1 B='x y'``), as written."""
        for part in lex(text):
            for word in part.words:
                if ASSIGNMENT_WORD.match(word.value):
                    key, _, value = word.value.partition("=")
                    if key.endswith("+"):  # CC=r; CC+=m: rm
                        key = key[:-1]
                        value = self.values.get(key, "") + value
                    self.values[key] = value
                    if self.all_exported or key in self.marked:
                        self.exported[key] = value

    def ran(self, name: str, args: tuple[str, ...]) -> None:
        """``export NAME[=VALUE]`` (``declare -x`` …), ``set -a`` / ``set -o allexport``."""
        if name == "set":
            self.all_exported = self.all_exported or any(
                a[:1] == "-" and "a" in a[1:] for a in args) or "allexport" in args
        if name != "export" and not (name in DECLARATIONS and any(
                a.startswith("-") and "x" in a for a in args)):
            return
        for word in args:
            key, equals, value = word.partition("=")
            if equals and ASSIGNMENT_WORD.match(word):
                self.exported[key] = self.values[key] = self.expand(value)
            elif _NAME.fullmatch(word):  # CC=rm; export CC: the shell's value handed on
                self.marked.add(word)
                if word in self.values:
                    self.exported[word] = self.values[word]


    def expand(self, word: str) -> str:
        """``word`` with each ``$NAME`` / ``${NAME}`` the line set put in (``X=rm; … $X``)."""
        if "$" not in word or not self.values:
            return word
        return VARIABLE_EXPANSION.sub(lambda m: self.values.get(m[1] or m[2], m[0]), word)


_NAME = re.compile(r"[A-Za-z_]\w*")


def backstop(subjects: list[CommandForms], named: dict[str, str]) -> str | None:
    """Why the line may run a program a deny or ask rule names, unseen by the readings, or ``None``.

    ``named``: each program the shell deny and ask rules name → the first rule naming it
    (``rm`` → ``shell(rm *)``; ``""`` for ``shell(*)``). See the module docstring.
    """
    programs = set(named)
    shell = _Shell()
    exported = shell.exported
    read: dict[tuple[str, bool], str | None] = {}  # each value read once

    def names(word: str, made: bool = True) -> str | None:
        """A made name (``$X``, ``r{m,}``) may be the program: in a command's place only."""
        if (word, made) not in read:
            read[word, made] = word_names(word, programs, made=made)
        return read[word, made]

    for subject in subjects:
        if not subject.runs and subject.all:  # CC=rm; export CC; make
            shell.assign(subject.all[0])
        shown = shorten(" ".join(subject.all[0].split()), 80, placeholder=" …") if (
            subject.all) else ""
        given: dict[str, str] = {}  # env CC=rm make, sudo LD_PRELOAD=x ls: for what follows
        for name, written, env, tried in subject.runs:
            args = tuple(map(shell.expand, written))  # X=rm; rustup run stable $X: rm
            variables = {**exported, **given, **{key: shell.expand(value) for key, value in (
                e.partition("=")[::2] for e in env)}}
            given |= dict(a.partition("=")[::2] for a in handed(name, args))  # shell_unwrap
            why = perl_debugger(name, args, variables) or preloaded(name, variables)
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
            running = name in RUNNING_VERBS  # rustup run stable $X: X's value is run
            found = next(filter(None, (names(a, running) for a in args)), None)
            if found is not None:
                verb = next((a for a in args if a in RUNNING_VERBS.get(name, ())), None)
                what = f"what {name} {verb} runs" if verb else name
                return (f"`{shown}` may run {found}, which {_rule(named, found)} names; "
                        f"goosectx does not know {what}")
        for name, args, _env, _tried in subject.runs:
            shell.ran(name, args)
    return None


def _rule(named: dict[str, str], program: str) -> str:
    return f"the rule {named[program]}"
