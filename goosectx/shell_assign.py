"""Assignments bash runs nothing for, read as such by permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_lexer` and :mod:`goosectx.shell_builtins` read a command for the shell's
permission rules. :func:`read_array` reads a compound array assignment (``arr=(1 2 3)``,
``files=(*.py)``, ``declare -a a=(x y)``) as one assignment word, the way bash's parser does,
instead of a ``(`` inside a command (unreadable): its elements are data, and the commands of
a ``$( )``, backtick or ``<( )`` in them are parts of their own, as anywhere else. An array
assigned to a prompt or startup variable (``PS4=(…)``, ``PROMPT_COMMAND=(…)``: bash runs what
they hold) or to ``BASH_ALIASES`` / ``BASH_CMDS`` (an alias, a program bound to another
file) stays unreadable, as does any assignment to those two (:func:`binds_name`).
:func:`plain_value` tells a prompt variable's value that runs
nothing when bash expands it (``PS4='+ '``, ``PS1='> '``) from one that may.
:func:`evaluated_operand`: a declaration builtin evaluates a quoted ``(…)`` value as an array
assignment (``declare -a a='($(rm x))'`` runs ``rm``), which is unreadable when it can run a
command.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_words import ASSIGNMENT_WORD, ENDS_WORD, Part, Word, WordScanner

DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})
"""Builtins whose ``NAME=(…)`` operands bash's parser reads as array assignments (only when
the command's first word is one of them: not after ``builtin`` or ``command``)."""
_ARRAY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")
"""An assignment word right before its ``(``: ``a=``, ``a+=`` (``a[0]=(…)`` is refused by bash)."""
STRICT_ARRAYS = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV",
                           "ENV", "BASH_ALIASES", "BASH_CMDS"})
"""Arrays whose elements bash runs, or that define an alias or a program's file."""
_PROMPTS = frozenset({"PS0", "PS1", "PS2", "PS4"})
"""Prompt variables whose value bash only expands (``PROMPT_COMMAND`` is a command line,
``BASH_ENV`` a file it sources)."""


def read_array(scanner: WordScanner, i: int, part: Part, reserved: frozenset[str]) -> int | None:
    """Read the array literal whose ``(`` is at ``i`` into ``part``'s last word; where it ends.

    ``None`` (nothing read, for the caller to read the ``(`` as before): the ``(`` does not
    follow ``NAME=`` / ``NAME+=`` where bash reads an assignment (before the program, or as an
    operand of :data:`DECLARATIONS`), or the list holds what a literal cannot (``;``, a ``(``,
    a redirection, a here-document's line, no ``)``, text joined after it). ``reserved``: the
    words bash reads before a command (``then a=(1)``).
    """
    s = scanner.s
    found = _ARRAY.fullmatch(part.words[-1].raw) if part.words and s[i - 1:i] == "=" else None
    program = next((w.raw for w in part.words[:-1]
                    if w.raw not in reserved and not ASSIGNMENT_WORD.match(w.raw)), None)
    if found is None or program is not None and program not in DECLARATIONS:
        return None
    parts, heredocs, joint = len(scanner.parts), list(scanner.heredocs), scanner.joint
    elements: list[Word] = []
    j = i + 1
    while j < len(s) and s[j] != ")":
        if s.startswith("\\\n", j) or s[j] in " \t" or s[j] == "\n" and not scanner.heredocs:
            j += 2 if s[j] == "\\" else 1
        elif s[j] == "#":  # a comment, to the end of the line
            j = s.find("\n", j) if "\n" in s[j:] else len(s)
        elif s.startswith(("<(", ">("), j):  # its commands are parts of their own
            shown = f"{s[j]}(…)"
            j = scanner.line(j + 2, closing=True)
            elements.append(Word(shown, shown, expands=True))
        elif s[j] in ENDS_WORD:
            break
        else:
            word, j = scanner.word(j)
            elements.append(word)
    if j >= len(s) or s[j] != ")" or s[j + 1:j + 2] not in ("", *ENDS_WORD):
        del scanner.parts[parts:]  # not a literal (`a=(x)ls rm` runs rm): read as before
        scanner.heredocs, scanner.joint = heredocs, joint
        return None
    name = found[1]
    if name in STRICT_ARRAYS:
        part.unreadable = (f"it assigns the array {name}, whose elements bash runs or reads "
                           "as commands")
    last = part.words[-1]
    part.words[-1] = Word(f"{last.raw}({' '.join(w.raw for w in elements)})",
                          f"{last.value}({' '.join(w.value for w in elements)})",
                          expands=any(w.expands for w in elements))
    return j + 1


_BINDS = re.compile(r"(BASH_ALIASES|BASH_CMDS)(?:\[[^\]]*\])?\+?=")


def binds_name(word: str) -> str | None:
    """Why ``word`` (one word, quotes removed) makes a name run other text, or ``None``.

    An assignment to ``BASH_ALIASES`` or ``BASH_CMDS`` (``BASH_CMDS[ls]=/bin/rm``, also as an
    operand of ``declare`` or ``export``) defines an alias or binds a program name to a file.
    """
    found = _BINDS.match(word)
    return None if found is None else (
        f"it assigns {found[1]}, which defines an alias or binds a program name to another file")


def plain_value(name: str, value: str) -> bool:
    """True when setting ``name`` (a prompt or startup variable) to ``value`` runs nothing.

    ``ENV``: no ``$``, backquote or backslash (bash expands its value for a file name).
    ``PS0``/``PS1``/``PS2``/``PS4``: printable text without ``$``, a backquote or a backslash
    (bash's PROMPTING: backslash escapes are decoded, then the value is expanded, running its
    ``$( )``) and no tilde bash expands in an assignment. ``PROMPT_COMMAND`` and ``BASH_ENV``
    never: one is a command line, the other a file bash sources.
    """
    if name == "ENV":
        return re.search(r"[$`\\]", value) is None
    return name in _PROMPTS and all(c.isprintable() and c not in "$`\\" for c in value) and (
        re.match(r"~|.*:~", value) is None)  # PS4=~: bash puts $HOME there, then expands it


_OPERAND = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=(.*)", re.DOTALL)
_LITERAL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=\(")
"""An array literal bash's parser read (:func:`read_array`): its commands are parts already."""


def evaluated_operand(words: list[Word]) -> str | None:
    r"""Why a declaration builtin evaluates text of ``words`` (one simple command) as code.

    Bash's ``declare``, ``typeset``, ``local``, ``export`` and ``readonly`` (also after
    ``command [-p] [--]`` or ``builtin [--]``) read an operand ``NAME=VALUE`` whose value,
    quotes removed, starts with ``(`` and ends with ``)`` as the array assignment ``NAME=(…)``
    when NAME is an array: ``declare -a a='($(rm x))'``, ``declare -A m='([k]=$(rm x))'``,
    ``typeset -ia "n=(1+\$(rm x))"``, ``declare -ga`` and ``a=(); declare a='(…)'`` run ``rm``.
    Unreadable: such a value holding ``$``, a backquote, ``<(`` or ``>(``; and, with ``-a`` /
    ``-A``, a value bash computes (``declare -a a=$x``). ``None`` for anything else
    (``declare -a a=(x $(ls))``: the literal is read as parts; ``local x=$1``: no array).
    """
    i = 0
    while i < len(words) and (ASSIGNMENT_WORD.match(words[i].raw) or words[i].value in (
            "command", "builtin") or i and words[i - 1].value in ("command", "builtin", "-p") and (
            words[i].value in ("-p", "--"))):  # command -p -- declare
        i += 1
    name = words[i].value if i < len(words) else ""
    if name not in DECLARATIONS:
        return None
    arrays, options = False, True
    for word in words[i + 1:]:
        if options and word.value.startswith(("-", "+")) and word.value != "--":
            arrays = arrays or bool(re.search("[aA]", word.value))
            continue
        options = False
        found = _OPERAND.fullmatch(word.value)
        if found is None or _LITERAL.match(word.raw):
            continue
        value = found[1]
        if value.startswith("(") and value.endswith(")") and re.search(r"[$`]|[<>]\(", value):
            return (f"{name} evaluates the quoted (…) value it is given as an array assignment, "
                    "running its commands")
        if arrays and word.expands:
            return f"{name} -a evaluates a value bash computes as an array assignment"
    return None
