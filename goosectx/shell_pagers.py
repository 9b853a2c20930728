r"""Pagers: ``less +CMD`` keys and ``man``'s pager and browser options, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. ``less
'+CMD' f`` types CMD as keys when it starts: ``+G`` goes to the end, but ``$'+!rm f\\n'``
runs ``rm f`` through a shell (``!``, also ``|`` and ``v``, and ``++CMD`` for every file);
``more`` is ``less`` on BSD and macOS. Only a short list of such commands — a line number, a
move (``+G``, ``+F``, ``+50%``) or one search (``+/pattern``) — is read as running nothing:
:func:`pager_keys` says why any other is unreadable. ``man -P PAGER`` / ``-H BROWSER`` run a
command line (:func:`man_lines`, short options clustered as getopt reads them: ``man -aP
'cmd' ls``). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_options import short_value

PAGERS = frozenset({"less", "more"})
_SAFE_KEYS = re.compile(r"\+?(?:\d*[gGFpP%]?|[/?][^\x00-\x1f\x7f]*)")
"""An initial command that runs nothing: ``+G``, ``+42``, ``+50%``, ``+F``, ``+/pattern``
(one search: no control character, so no second command after it), ``++G``."""
_MAN_VALUED = "CMPrSsmeLEpR"
"""man-db's short options that take a value (``-P PAGER``, ``-M PATH``, ``-L LOCALE``)."""
_MAN_OPTIONAL = "HTX"
"""man-db's short options whose value, if any, is attached (``-Hfirefox``: a browser)."""


def pager_keys(name: str, args: list[str]) -> str | None:
    """Why ``less`` / ``more`` runs keys the rules do not read (``+!cmd``), or ``None``.

    Words from ``+`` before ``--`` (after it, ``+x`` is a file's name).
    """
    if name not in PAGERS:
        return None
    for word in args:
        if word == "--":
            return None
        if word.startswith("+") and not _SAFE_KEYS.fullmatch(word[1:]):
            return (f"{name} types its +COMMAND as keys when it starts, and such a command may "
                    "run a shell command (!cmd)")
    return None


def man_lines(args: list[str]) -> list[str]:
    """The command lines man runs from ``-P PAGER`` and ``-H[BROWSER]`` (clustered: ``-aP``).

    Long ones (``--pager``, ``--html``) are :data:`goosectx.shell_options.COMMAND_OPTIONS`'.
    """
    lines: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            break
        if not word.startswith("-") or word.startswith("--") or word == "-":
            i += 1
            continue
        short = short_value(args, i, _MAN_VALUED, _MAN_OPTIONAL)
        if short.letter in ("P", "H") and short.value:
            lines.append(short.value)
        i = short.next
    return lines
