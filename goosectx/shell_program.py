"""The program a simple command runs: the words bash and its wrappers read before it.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Reserved words
come first (``then rm x``, ``coproc NAME { …; }``, the keyword ``time``), then ``NAME=value``
assignments, then the wrappers with their options (``env -u H``, ``timeout 10``, ``xargs -n
1``: :mod:`goosectx.shell_unwrap`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_lexer import RESERVED_WORDS, Word
from goosectx.shell_unwrap import WRAPPERS, unwrap

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")  # A=x, A+=x
MAX_STEPS = 64
"""How many words or wrappers a reading looks through before it gives up."""

KEYWORDS = RESERVED_WORDS
"""Reserved words bash reads before a command (``then rm x``): syntax, not a program."""

_COMPOUND = frozenset({"{", "if", "while", "until", "for", "case", "select", "[[", "!"})
_CLOSING = frozenset({"done", "fi", "esac", "}"})
"""Words that close a compound command: only redirections may follow, whose targets the lexer
leaves as words (``done < <(git ls-files)``: ``<(…)`` is no program)."""
SYSTEM_PROGRAM = re.compile(r"/(?:usr/(?:local/)?)?s?bin/(?!\.\.?(?:$| ))[^/\s'\"\\]+(?= |$)")
"""A program in a standard program dir, as the first word of an allow form (``/bin/rm x``):
root's, the one its name runs (``./rm``, ``/opt/bin/rm`` are not)."""


def after_keywords(words: list[Word], piped: bool = False) -> list[Word]:
    """``words`` without the reserved words before the command (``then rm x`` → ``rm x``).

    ``coproc NAME { …; }`` loses its NAME too: a word before a compound command names the
    coprocess, it is not the program (``coproc ls { rm x; }`` runs ``rm``); and ``time [-p]``
    before a reserved word is bash's keyword (``time { rm x; }`` runs ``rm``) where a pipeline
    starts (``piped``: after ``|`` it is the program ``time``).
    """
    while words:
        if words[0].raw == "time" and not piped:  # the keyword: time [-p] { …; } runs it
            k = 1
            while k < len(words) and words[k].raw in ("-p", "--"):
                k += 1
            if k == len(words) or words[k].raw not in KEYWORDS | _COMPOUND:
                return words  # time CMD: the wrapper, read as one
            words = words[k:]
        elif words[0].raw in _CLOSING:
            return []
        elif words[0].raw in KEYWORDS:
            named = words[0].raw == "coproc" and len(words) > 2 and words[2].raw in _COMPOUND
            words = words[2 if named else 1:]
        else:
            return words
    return words


def program_argv(argv: list[str]) -> list[str]:
    """One simple command's words from the program its wrappers run on, as the rules read it.

    Without the reserved words before it (``do``), ``NAME=value`` assignments and the wrappers
    with their options (``env -u H X=1``, ``time``, ``xargs -n 1``, ``timeout 10`` …; a
    ``--long`` option read as a flag). ``[]`` when nothing is left.
    """
    first = argv[0] if argv else ""
    if first not in KEYWORDS and first.rsplit("/", 1)[-1] not in WRAPPERS and "=" not in first:
        return argv  # the program itself (most commands)
    words = after_keywords([Word(a, a) for a in argv])
    for _ in range(MAX_STEPS):
        if words and ASSIGNMENT.match(words[0].value):
            words = words[1:]
        elif words and (name := words[0].value.rsplit("/", 1)[-1]) in WRAPPERS:
            words = unwrap(name, words[1:])[0]
        else:
            break
    return [w.value for w in words]
