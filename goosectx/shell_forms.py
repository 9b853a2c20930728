"""The forms of one simple command that permission rules are matched against.

docs/architecture.md §4, clause 2 of the one approval decision: what
:func:`goosectx.shell_command.command_forms` gives for one simple command (its own module:
:mod:`goosectx.shell_command` holds the reading). Core module: no printing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

Run: TypeAlias = tuple[str, tuple[str, ...], tuple[str, ...], bool]
""":attr:`CommandForms.runs`' entries."""


@dataclass(frozen=True, slots=True)
class CommandForms:
    """The forms of one simple command that permission rules are matched against.

    Attributes:
        all: Every form (as written, unquoted, and each step of normalisation, inner commands
            of ``bash -c`` / ``eval`` / ``find -exec`` included): a deny or ask rule catches the
            command when it matches ANY of them.
        words: The unquoted form, a word that holds a blank, a control character or a quote
            shown in single quotes (``ls 'my dir'``; ``None`` when the rules cannot read the
            command, or when an awk or sed in it does more than read and print:
            :mod:`goosectx.awk_program`, :mod:`goosectx.sed_script`): an allow rule covers the
            command only when it matches this form.
        steps: For each program the normalisation reached: (its name, whether bash computes
            the name at run time or by a glob / brace expansion, whether it computes an
            argument).
        unreadable: Why the rules cannot read the command (a function definition, a program
            named by a glob …), or ``None``.
        code: The inline code of each interpreter the command starts, as ``(interpreter,
            code)`` (``python3 -c CODE``: :func:`goosectx.shell_runners.inline_code`).
        maybe: Forms of what a runner may start (``chroot / rm x`` → ``rm x``): read from every
            word where its command may start, so a deny rule matching one asks, not denies.
        inner: Every command line it runs as a string (``bash -c '…'``, ``eval``, ``su -c``,
            ``env -S`` …), for the path checks to read (:mod:`goosectx.shell_dirs`).
        beyond: Why an awk or sed in it does more than read and print (``awk's program runs a
            command (system, a pipe)``), or an output option writes a file
            (:func:`goosectx.option_writes.output_beyond`: ``sort -o out.txt``), for the question
            to say; ``None``: none does.
        started: Each command a wrapper, a runner (``uv run``, ``strace``), ``find -exec``,
            ``fd -x``, ``xargs``, a shell's ``-c`` string … starts, as ``(what starts it, its
            unquoted form, the unquoted form of the simple command up to its program)``
            (``("find -exec", "rm -rf {}", "find . -exec rm")``; the third ``""`` when it is no
            word of the simple command: ``bash -c 'rm x'``): an allow rule covers the command
            only when each of these matches an allow rule too, or the rule covering the simple
            command spells it up to that program (``shell(uv run pytest*)``); a wrapper's rule
            covers the wrapper only.
        runs: Each program the normalisation reached, as ``(name, its arguments, the
            ``NAME=value`` assignments before it, whether it is one of a runner's tried starts
            (:attr:`maybe`))``, for :mod:`goosectx.deny_backstop`.
    """

    all: tuple[str, ...]
    words: str | None
    steps: tuple[tuple[str, bool, bool], ...] = ()
    unreadable: str | None = None
    code: tuple[tuple[str, str], ...] = ()
    maybe: tuple[str, ...] = ()
    inner: tuple[str, ...] = ()
    beyond: str | None = None
    started: tuple[tuple[str, str, str], ...] = ()
    runs: tuple[Run, ...] = ()
