"""Programs that run a command they are given in a form of their own, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Where the form
is clear the command is read like ``sh -c``'s (:func:`started_commands`): ``find … -exec CMD
;``, every ``fd … -x CMD`` / ``-X CMD`` (``--exec``, ``--exec-batch``), what a terminal
multiplexer starts (tmux, screen, dtach, abduco, zellij: :mod:`goosectx.shell_terminals`), and
the string of ``env -S STRING ARGS…`` (:func:`goosectx.shell_unwrap.env_split_line`), the
command of ``cmake -E
env|time|chdir`` (a file command as the one doing the same: ``-E rm``) and the shell ``capsh --
ARGS`` starts. What such a program would run from text the rules cannot read makes the command
unreadable (asked about under shell deny/ask rules): keys typed into a session, tmux or screen
commands, an expect script (``expect -c 'spawn …'``, or one read from standard input), and
``make --eval`` / ``-E`` recipe text, also given in ``MAKEFLAGS`` (:func:`makeflags_eval`), and
a make variable set on its command line with text make runs (``make 'x:=$(shell rm f)'``). ``rg
--pre CMD`` runs the program CMD on each file it searches. What the command text shows, not a
sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
import shlex

from goosectx.shell_builtins import reads_stdin
from goosectx.shell_multicall import LOADER
from goosectx.shell_options import value_at
from goosectx.shell_terminals import TERMINALS, Started, terminal_commands
from goosectx.shell_words import ASSIGNMENT_WORD, Word

STARTERS = TERMINALS | {"expect"}
"""Programs that run a command, or commands, they are given (no command-prefix rule is
offered for them: ``shell(tmux*)`` would allow anything)."""
FD = frozenset({"fd", "fdfind"})
_FD_FLAGS = "HIuisgFalLp01q"
"""fd's short options that take no value: ``-Hx CMD`` is ``-H -x CMD``."""


def started_commands(name: str, args: list[str], fed: bool = True,
                     computed: list[bool] | None = None) -> Started:
    """The commands ``name`` starts from ``args`` (its words after the program).

    ``fed``: the command is :attr:`goosectx.shell_words.Part.fed` (an expect script at a
    computed path may be its stream; :func:`goosectx.shell_builtins.reads_stdin`).
    ``computed``: for each of ``args``, whether bash computes it (``$X``, a glob or brace): a
    command given as several words, one of them computed, is unreadable where it would be
    read from a line of their values (``fd -x$X -rf``, which would quote ``$X`` as a word).
    """
    if name == "find":
        return Started(slices=_exec_slices(args))
    if name in FD:
        return _fd(args, computed or [])
    if name in ("make", "gmake") and any(_make_eval(a) for a in args):
        return Started(unreadable=f"{name} --eval runs recipe text the rules do not read")
    if name in ("make", "gmake") and any(_make_code(a) for a in args if not a.startswith("-")):
        return Started(unreadable=f"{name} runs the make code of a variable set on its command "
                                  "line ('x:=$(shell …)', 'x!=…')")
    if name == "rg":
        return _rg(args)
    if name in TERMINALS:
        return terminal_commands(name, args, computed or [])
    if name == "expect":
        return _expect(args, fed)
    if name == "cmake":
        return _cmake(args, fed)
    if name == "capsh":
        return _capsh(args, computed or [])
    return Started()


def _capsh(args: list[str], computed: list[bool]) -> Started:
    """``capsh [--opt=…] -- ARGS``: capsh runs its shell (``--shell=PATH``, else bash) with ARGS.

    ``-+`` does it in a child; ``==`` / ``=+`` start capsh again on the words after it (its
    ``--shell`` back to bash). Every other option is one word. The shell's line is read like
    ``bash -c``'s (unreadable when bash computes one of its words).
    """
    shell, at = "/bin/bash", -1
    for i, word in enumerate(args):
        if word in ("==", "=+"):
            shell = "/bin/bash"
        elif word.startswith("--shell="):
            shell, at = word.partition("=")[2], i
        elif word in ("--", "-+"):
            shown = [*range(i + 1, len(args)), *([at] if shell != "/bin/bash" else [])]
            if any(computed[k] for k in shown if 0 <= k < len(computed)):
                return Started(unreadable="capsh's command is named at run time or by a glob")
            return Started(lines=[shlex.join([shell, *args[i + 1:]])])
    return Started()


_CMAKE_RUNS = {"env": 1, "time": 2, "chdir": 3}
"""``cmake -E`` commands that run a command: where it starts (``env`` is read as env)."""
_CMAKE_FILES = {
    "rm": "rm", "remove": "rm -f", "remove_directory": "rm -rf", "make_directory": "mkdir -p",
    "copy": "cp", "copy_if_different": "cp", "copy_directory": "cp -r",
    "copy_directory_if_different": "cp -r", "rename": "mv", "create_symlink": "ln -s",
    "create_hardlink": "ln", "touch": "touch", "touch_nocreate": "touch -c", "tar": "tar"}
"""``cmake -E`` file commands and the command that does the same (``cmake -E
remove_directory x`` is ``rm -rf x``), read as that command as ``busybox rm x`` is."""


def cmake_tool(name: str, args: list[str]) -> bool:
    """True for ``cmake -E CMD`` or ``cmake -P FILE``: a command or script no table reads.

    (``cmake -S . -B build``, ``--build``, ``--install``: a build tool, its dirs judged by
    :mod:`goosectx.git_config_writes`; ``-E rm|copy|env …`` are also read as what they run.)
    """
    return name == "cmake" and any(a == "-E" or a.startswith("-P") for a in args)


def _cmake(args: list[str], fed: bool) -> Started:
    """``cmake -E env|time|chdir DIR CMD…`` runs CMD; ``cmake -P FILE`` runs a script file.

    So does ``-C FILE`` (the initial cache: a script).

    A file command (``cmake -E rm|remove_directory|copy …``) is read as the command that does
    the same (:data:`_CMAKE_FILES`).

    ``env [--unset=NAME] [NAME=VALUE] [--] CMD`` is read like env's; a script file is not read
    either way (as ``bash script.sh``), unless it may be standard input or a pipe.
    """
    at = args.index("-E") + 1 if "-E" in args else len(args)
    if at < len(args) and args[at] in _CMAKE_RUNS:
        return Started(slices=[(at + _CMAKE_RUNS[args[at]] - 1, len(args))])
    if at < len(args) and args[at] in _CMAKE_FILES:  # cmake -E rm -rf x: `rm -rf x`
        return Started(lines=[" ".join([_CMAKE_FILES[args[at]], *map(shlex.quote, args[at + 1:])])])
    for i, word in enumerate(args):
        if word.startswith(("-P", "-C")) and reads_stdin(word[2:] or value_at(args, i + 1) or "",
                                                        fed):  # -C: a script too (set …)
            return Started(unreadable=f"cmake {word[:2]} runs a script it reads from its standard "
                                      "input or a path the rules cannot see is a file")
    return Started()


def _make_eval(flag: str) -> bool:
    """True when ``flag`` is make's ``--eval`` (``--ev``: an unambiguous prefix) or ``-sE TEXT``."""
    return flag.startswith("--ev") or re.fullmatch(r"-[bBdeikLnpqrRsStvw]*E.*", flag) is not None


def _make_code(word: str) -> bool:
    """True when ``word`` defines a make variable with text make may run (``x:=$(shell rm f)``).

    make expands a ``:=`` value, a ``!=`` one is a shell command, and any other value a
    makefile may expand: every ``$`` but a plain ``$NAME`` / ``${NAME}`` (bash's, or a
    variable's name) counts, in the name too (``x$(shell …)=1``).
    """
    name, equals, _value = word.partition("=")
    return bool(equals) and (name.endswith("!") or "$" in re.sub(
        r"\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\})", "", word))


def make_text(words: list[Word]) -> str | None:
    """Why ``words`` (one simple command) give make code the rules cannot read, or ``None``.

    ``MAKEFLAGS`` / ``GNUMAKEFLAGS`` set anywhere in it (:func:`makeflags_eval`); a variable
    make reads from its environment, which a makefile may expand (``CC='$(shell rm f)' make``
    runs ``rm`` where a rule uses ``$(CC)``): a leading assignment, or one of ``env``'s, whose
    literal text :func:`_make_code` (``CC=$(which gcc) make``: bash computes it, runs).
    """
    flags = next(filter(None, (makeflags_eval(w.value) for w in words)), None)
    if flags:
        return flags
    i, env = 0, False
    while i < len(words):
        value = words[i].value
        env = env or value == "env"  # env [-i] NAME=VALUE … make
        if value != "env" and not ASSIGNMENT_WORD.match(words[i].raw) and not (
                env and ("=" in value or value in ("-i", "-"))):
            break
        i += 1
    program = words[i].value.rsplit("/", 1)[-1] if i < len(words) else ""
    if program in ("make", "gmake") and any(
            not w.expands and _make_code(w.value) for w in words[:i]):
        return "it gives make a variable whose text runs commands in its environment"
    return None


_MAKEFLAGS = re.compile(r"(?:GNU)?MAKEFLAGS(?:\+|\?|:{1,3})?=(.*)", re.DOTALL)


def makeflags_eval(word: str) -> str | None:
    """Why ``word`` sets ``MAKEFLAGS`` / ``GNUMAKEFLAGS`` to flags holding make's eval, or ``None``.

    Make reads those variables (from its environment, and a ``make MAKEFLAGS=…`` operand) as
    its own options: ``MAKEFLAGS='--eval=t: ; rm x' make t``. The first word of the value may
    be single letters without a ``-`` (``Et:…`` is ``-Et:…``); a word with ``=`` (also after
    ``--``) defines a variable, whose text may run (:func:`_make_code`).
    """
    found = _MAKEFLAGS.match(word)
    variables = False
    for k, flag in enumerate(found[1].split() if found else []):
        variables = variables or flag == "--"
        if (variables or not flag.startswith("-")) and _make_code(flag):
            return "it sets MAKEFLAGS to a make variable whose text runs commands"
        if not variables and _make_eval(
                flag if k or flag.startswith("-") or "=" in flag else "-" + flag):
            return "it sets MAKEFLAGS to make --eval recipe text"
    return None


def _rg(args: list[str]) -> Started:
    """``rg --pre CMD``: ripgrep runs the program CMD (no shell) on every file it searches.

    ``--pre CMD`` is read like ``find -exec``'s program; ``--pre=CMD`` too, unless bash
    computes or globs the word (``--pre=$X``: unreadable).
    """
    started = Started()
    for i, word in enumerate(args):
        if word == "--":
            break
        if word == "--pre" and i + 1 < len(args):
            started.slices.append((i + 1, i + 2))
        elif word.startswith("--pre="):
            program = word.partition("=")[2]
            if re.search(r"[$`*?\[{]", program):
                started.unreadable = "rg --pre's program is named at run time or by a glob"
            elif program:
                started.lines.append(shlex.quote(program))
    return started


def runs_given_command(name: str, args: list[str]) -> bool:
    """True when ``name`` runs a command given in ``args`` (:func:`started_commands`, ld.so)."""
    found = started_commands(name, args)
    return name in STARTERS or LOADER.fullmatch(name) is not None or bool(
        found.lines or found.slices or found.unreadable)


def _exec_slices(args: list[str]) -> list[tuple[int, int]]:
    """Where each ``-exec CMD … ;`` command of find's ``args`` is (``find -exec rm {} ;``).

    As GNU find ends them (findutils' insert_exec_ok): at ``;``, or at ``+`` right after a word
    holding ``{}`` for ``-exec`` / ``-execdir`` (``-exec env -u + rm {} ;`` runs env, and env
    rm; ``-ok echo {} + ;`` runs ``echo {} +``).
    """
    slices: list[tuple[int, int]] = []
    i = 0
    while i < len(args):
        if args[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            plus = args[i] in ("-exec", "-execdir")
            j = i + 1
            while j < len(args) and args[j] != ";" and not (
                    plus and args[j] == "+" and j > i + 1 and "{}" in args[j - 1]):
                j += 1
            if j > i + 1:
                slices.append((i + 1, j))
            i = j
        i += 1
    return slices


def _fd(args: list[str], computed: list[bool]) -> Started:
    """``fd PATTERN -x CMD … [; -X CMD …]``: every word after each such option (up to ``;``).

    fd 8.4+ takes several ``-x`` / ``-X`` (``--exec``, ``--exec-batch``) commands, each ended by
    ``;``. ``-xCMD`` / ``--exec=CMD`` give its program in the same word: the command is read
    from a line of that word and the words after it (unreadable when bash computes one).
    """
    started = Started()
    i = 0
    while i < len(args) and args[i] != "--":
        word, rest = args[i], args[i + 1:]
        end = rest.index(";") if ";" in rest else len(rest)
        attached = re.fullmatch(f"-[{_FD_FLAGS}]*[xX](.+)", word) or re.fullmatch(
            "--exec(?:-batch)?=(.+)", word)
        if word in ("--exec", "--exec-batch") or re.fullmatch(f"-[{_FD_FLAGS}]*[xX]", word):
            started.slices += [(i + 1, i + 1 + end)] if end else []
        elif attached and any(computed[i:i + 1 + end]):  # -x$X: a line would quote $X
            started.unreadable = "fd's command is named at run time or by a glob or brace"
        elif attached:
            started.lines.append(shlex.join([attached[1], *rest[:end]]))
        else:
            i += 1
            continue
        i += end + 2  # past the command and its `;`
    return started


# -- expect ------------------------------------------------------------------------------
def _expect(args: list[str], fed: bool) -> Started:
    """An expect script runs any command (``spawn``, ``exec``): asked about, except a file's.

    A script file is not read either way (as ``bash script.sh``); inline ``-c`` commands, an
    interactive session (``-i``) and a script from standard input or a path the rules cannot
    see is a file are unreadable.
    """
    stdin = Started(unreadable="expect runs a script it reads from its standard input or a "
                               "path the rules cannot see is a file")
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" or not word.startswith("-") or word in ("-f", "-b"):
            script = value_at(args, i + 1) if word.startswith("-") else word
            return stdin if script is None or reads_stdin(script, fed) else Started()
        if word == "-v":
            return Started()  # its version
        if "c" in word[1:] or "i" in word[1:] or word == "-":
            return Started(unreadable="expect runs a script the rules do not read (-c, -i)")
        i += 2 if word == "-D" else 1
    return stdin
