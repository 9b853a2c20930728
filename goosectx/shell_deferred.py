"""Words a wrapper reads as options or commands that are only known at run time.

docs/architecture.md §4, clause 2: part of how :mod:`goosectx.shell_command` reads a command
for the shell's permission rules. Two ways the rules cannot know what such a program runs:

* bash makes the word: a glob or brace expansion where find, fd, a terminal multiplexer, a
  shell or a wrapper reads an option, a separator or a command (``find . {-exec,} rm {} +``,
  ``find … -exe[c] rm {} +`` with a file so named, ``bash -? 'rm f'``, ``tmux ne[w] …``);
* the program makes it: ``xargs``, ``find -exec`` and ``fd -x`` fill in a program or a
  shell's command string from their input or the files found (``echo rm f | xargs env``,
  ``xargs -I{} sh -c {}``, ``find /usr/bin -name rm -exec {} f ;``).

Either makes the command unreadable (asked under shell deny/ask rules). Core module: no
printing.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from goosectx.shell_ansi import braces
from goosectx.shell_builtins import SHELLS, shell_line
from goosectx.shell_options import long_option, short_value
from goosectx.shell_runners import RUNNERS, SUBCOMMAND_RUNNERS
from goosectx.shell_terminals import TERMINALS, Started
from goosectx.shell_unwrap import OPTIONAL_VALUES, WRAPPERS
from goosectx.shell_words import Word
from goosectx.shell_wrappers import FD, STARTERS

_FIND_WORDS = ("-exec", "-execdir", "-ok", "-okdir", ";", "+", "{}")
_FD_WORDS = ("-x", "-X", "--exec", "--exec-batch", ";", "{}")


def _option_like(word: Word) -> bool:
    """A pattern word that may expand to an option (``-?``, ``*``, ``[-]x``) or is braced."""
    return braces(word.raw) or word.value[:1] in "-+*?["


def _matches(word: Word, specials: tuple[str, ...]) -> bool:
    return braces(word.raw) or any(fnmatch.fnmatchcase(s, word.value) for s in specials)


def _expanded_own_word(name: str, own: list[Word], wrapper: bool = False) -> str | None:
    """Why a glob or brace word among ``own`` (the words ``name`` reads itself) is unreadable.

    ``own``: a wrapper's options and values before its program, or every argument of find,
    fd, a multiplexer or a shell (of a shell: its options and first operand); ``wrapper``:
    ``name`` is a wrapper and ``own`` its words before the program.
    """
    if not wrapper and name not in SHELLS | STARTERS | TERMINALS | {"find", *FD}:
        return None
    if name in SHELLS:
        operand = next((i for i, w in enumerate(own) if not w.value.startswith(("-", "+"))),
                       len(own))
        own = own[:operand + 1]
    if name == "find":
        bad = any(w.pattern and _matches(w, _FIND_WORDS) for w in own)
    elif name in FD:
        bad = any(w.pattern and _matches(w, _FD_WORDS) for w in own)
    elif name in STARTERS or name in TERMINALS:
        bad = any(w.pattern for w in own)
    else:
        bad = any(w.pattern and _option_like(w) for w in own)
    return (f"bash expands a glob or brace word where {name} reads an option or a command"
            if bad else None)


def _replace(own: list[str]) -> str | None:
    """Xargs' replace string (``-I R``, ``-rIR``, ``-i``, ``--rep=R``) among its ``own`` words.

    ``own``: its options and their values, before its command.
    """
    i, replace = 0, None
    while i < len(own):
        word = own[i]
        if word.startswith("--"):  # --replace[=R] under any prefix getopt takes (--rep=R)
            replace = (word.partition("=")[2] or "{}") if long_option(word, "--replace") else (
                replace)
            i += 1
            continue
        short = short_value(own, i, WRAPPERS["xargs"][0], OPTIONAL_VALUES["xargs"])
        if short.letter == "i":  # -i[R]: the rest of its word, or {}
            replace = short.value or "{}"
        elif short.letter == "I":
            replace = short.value or ""
        i = short.next
    return replace


def _run_time_program(name: str, args: list[str], own: int, started: Started,
                      program_argv: Callable[[list[str]], list[str]]) -> str | None:
    """Why xargs / find -exec / fd -x runs a program or command string named at run time.

    ``own``: how many of ``args`` are xargs' own words (before its command); ``started``:
    :func:`goosectx.shell_wrappers.started_commands` of find / fd; ``program_argv``:
    :func:`goosectx.shell_command.program_argv` (the program after the wrappers). Under xargs
    without a replace string the input is appended: a wrapper, a shell without ``-c`` text or
    a runner at the end names its program from the input.
    """
    if name == "xargs":
        replace = _replace(args[:own])
        commands = [(args[own:] or ["echo"], replace, replace is None)]
    elif name == "find" or name in FD:
        commands = [(args[b:e], "{}", False) for b, e in started.slices]
    else:
        return None
    for words, replace, appended in commands:
        final = program_argv(words)
        program = final[0].rsplit("/", 1)[-1] if final else ""
        line = shell_line(final[1:]) if program in SHELLS else None
        if not final or (replace and replace in final[0]) or (line and replace and replace in line):
            return f"{name} runs a program or command string named by its input or the files found"
        bare = line is None and all(a.startswith(("-", "+")) for a in final[1:])  # xargs sh -c
        if appended and (program in SHELLS and bare or program in STARTERS or program in (
                RUNNERS - set(SUBCOMMAND_RUNNERS))):
            return f"{name} appends its input to {program}, which runs it as a command"
    return None


def run_time_words(name: str, words: list[Word], program_argv: Callable[[list[str]], list[str]],
                   started: Started, command: list[Word] | None) -> str | None:
    """Why ``name`` with ``words`` (its words after the program) runs what only run time names.

    What the reading of the command already made is passed on: ``started``, the
    :func:`goosectx.shell_wrappers.started_commands` of ``name``; ``command``, for a wrapper,
    the words from its program on (the first reading of :func:`goosectx.shell_unwrap.unwrap`);
    ``program_argv``: :func:`goosectx.shell_command.program_argv`.
    """
    own = words[:len(words) - len(command)] if command is not None else words
    return _expanded_own_word(name, own, command is not None) or _run_time_program(
        name, [w.value for w in words], len(own), started, program_argv)
