"""Which files a shell command changes, read from its words (nothing is run).

Part of the compaction's facts scan (docs/architecture.md §5). Used by
:func:`goosectx.compaction.actions.shell_actions`, which turns each ``(path, verb)``
into a file action. Known: ``>``/``>>``/``>|`` redirection (``written``), ``rm``, ``unlink``
and ``git rm`` (``deleted``), ``touch`` (``created``), ``tee`` (``written``), ``sed -i``
(``edited``); a rename by ``mv`` or ``git mv`` as the old path ``deleted`` and the new one
``created``; the destination of ``cp`` and ``install`` ``written`` (it may have existed);
the link ``ln`` makes ``created``. Directories made or removed on their own (``mkdir``,
``rmdir``, ``install -d``) are not files and are not listed.

One command's words are read as its program reads them (``--`` ends the options, ``-t DIR``,
``git -C DIR`` …): :mod:`goosectx.compaction.command_changes`. A command is found as the
shell rules find it
(:func:`goosectx.shell_command.program_argv`: after ``do``/``then``/``{``, behind ``env``,
``time``, ``xargs``, ``sudo`` …), and a ``for`` loop's ``$NAME`` is read as each of its words.

All functions are pure. The shell rules' reader (:mod:`goosectx.shell_command`, which
imports the other shell modules) is imported at the first line that may change a file: a
``compact --dry-run`` whose new messages hold no such command never loads it, nor
:mod:`~goosectx.compaction.command_changes` (imported with it).
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from goosectx.lazy_pattern import LazyPattern

if TYPE_CHECKING:
    from goosectx.compaction.command_changes import Change

_HEREDOC = LazyPattern(r"<<-?\s*['\"]?([\w.-]+)['\"]?")
"""A here-document's start; group 1 is its terminator."""


def _without_heredocs(script: str) -> list[str]:
    """The lines of a shell script with here-document bodies removed."""
    lines: list[str] = []
    terminator: str | None = None
    for line in script.splitlines():
        if terminator is not None:
            if line.strip() == terminator:
                terminator = None
            continue
        lines.append(line)
        m = _HEREDOC.search(line) if "<<" in line else None
        if m:
            terminator = m.group(1)
    return lines


_NO_QUOTES = str.maketrans("", "", "'\"\\")
"""Quotes and backslashes, which tokenising removes (``r''m`` is ``rm``)."""
_MAY_CHANGE = LazyPattern(
    r""">|(?:^|(?<=[\s/'"\\;&|<]))(?:rm|touch|tee|sed|mv|cp|install|ln|unlink)(?![\w-])""")
"""A line where :func:`_simple_command_changes` can find something (a redirection or one of
the programs :func:`~goosectx.compaction.command_changes.command_changes` knows; ``git rm``
and ``git mv`` hold ``rm`` and ``mv``); other lines are not tokenised. A program's name ends
a word or a path (``rm``, ``/bin/rm``, ``'rm'``, ``\\rm``): what comes before it in the line is
where a word starts (the line's start, a space, one of ``;&|<``), a slash, or a quote or
backslash that tokenising removes (``grep -rn perm``, ``guarantee`` and ``scp`` are not
tokenised)."""


_LOOP_LINE = LazyPattern(r"(?:^|[\s;&|])(?:(?:for|select)\s+[A-Za-z_]\w*\s+in|done)(?![\w-])")
"""A line that starts a ``for NAME in WORDS`` loop or ends one: tokenised for the loop's
variable even when it changes nothing itself (its body may be on the next lines)."""

_CD_LINE = LazyPattern(r"(?:^|[\s;&|(])(?:cd|pushd|popd)(?![\w-])")
"""A line that changes directory (``cd``, ``pushd``, ``popd``): tokenised for it."""
_PLAIN_DIR = LazyPattern(r"[\w.+@%,/-]+")
"""A ``cd`` operand that names one directory as written (no expansion, no glob, no ``~``)."""
_NOT_A_PATH = LazyPattern(r"[$`]")
"""A word holding an expansion (``$f``, ``$(ls``, a backquote): not a path as written."""

Places = list["str | None"]
"""The directory the commands run in, relative to the first (``""``: there; ``None``: not
known, after a ``cd`` not followed); one entry per ``( … )`` subshell open, innermost last."""

Loops = list[tuple[str, list[str]]]
"""The loops a line is in, outermost first: each ``for`` loop's variable and its words
(``("", [])`` for a ``while``/``until`` loop or a ``for`` without ``in``)."""


def shell_file_changes(script: str) -> list[Change]:
    """Files the commands of ``script`` change, in the order they are named.

    Here-document bodies are skipped; a line that does not tokenise is skipped. A command
    after the reserved words of a compound command (``do``, ``then``, ``{`` …) or behind a
    wrapper (``env X=1``, ``time``, ``xargs``, ``sudo`` …) is read as the shell rules read it
    (:func:`goosectx.shell_command.program_argv`); in the body of ``for f in a b`` a ``$f``
    (or ``${f}``) is read as each of its words.
    """
    if not (">" in script or "rm" in script or "touch" in script or "tee" in script
            or "sed" in script or "mv" in script or "cp" in script or "ln" in script
            or "install" in script or "unlink" in script):
        return []  # no line can hold one: most commands of a long session stop here
    out: list[Change] = []
    loops: Loops = []
    places: Places = [""]
    for line in _without_heredocs(script):
        if not (">" in line or "rm" in line or "touch" in line or "tee" in line
                or "sed" in line or "mv" in line or "cp" in line or "ln" in line
                or "install" in line or "unlink" in line) or not (
                    _MAY_CHANGE.search(line) or _MAY_CHANGE.search(
                        line.translate(_NO_QUOTES))):  # its words, then the rule (r''m is rm)
            if not (("for" in line or "select" in line or "done" in line and loops)
                    and _LOOP_LINE.search(line)) and not (
                        ("cd" in line or "pushd" in line or "popd" in line)
                        and _CD_LINE.search(line)):
                continue  # nothing to find, and tokenising every line of a long session is slow
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            continue
        out += _simple_command_changes(tokens, loops, places)
    return out


def _simple_command_changes(tokens: list[str], loops: Loops, places: Places) -> list[Change]:
    from goosectx.compaction.command_changes import command_changes  # at need (module docstring)

    out: list[Change] = []
    command: list[str] = []
    i = 0
    while i <= len(tokens):
        tok = tokens[i] if i < len(tokens) else ";"
        if tok in (">", ">>", ">|") and i + 1 < len(tokens):
            target = tokens[i + 1]
            if not target.startswith(("/dev/", "&")) and not (command and command[-1].isdigit()
                                                              and command[-1] != "1"):
                out += _placed([(t, "written") for [t] in _expanded([target], loops)],
                               places[-1])
            if command and command[-1].isdigit():
                command.pop()
            i += 2
            continue
        if tok and set(tok) <= set(";&|<>"):
            from goosectx.shell_program import program_argv  # at need (module docstring)

            closed = _subshells(command, places)
            if not _loop_words(command, loops):
                argv = program_argv(command)
                if argv[:1] in (["cd"], ["pushd"], ["popd"]):  # only cd DIR && is followed
                    places[-1] = _cd(places[-1], argv[1:], tok) if argv[0] == "cd" else None
                for expanded in _expanded(argv, loops):
                    out += _placed(command_changes(expanded), places[-1])
            del places[max(1, len(places) - closed):]
            command = []
        else:
            command.append(tok)
        i += 1
    return out


def _subshells(command: list[str], places: Places) -> int:
    """Open the ``( … )`` subshells ``command`` starts (in ``places``), strip its parens.

    Returns how many it closes (its last word's trailing ``)``s, when the word holds no
    ``(``): the caller drops them once the command is read.
    """
    if command and command[0].startswith("("):
        word = command[0].lstrip("(")
        places += [places[-1]] * (len(command[0]) - len(word))
        command[0:1] = [word] if word else []
    if not command or "(" in command[-1] or not command[-1].endswith(")") or len(places) < 2:
        return 0
    word = command[-1].rstrip(")")
    closed = min(len(command[-1]) - len(word), len(places) - 1)
    command[-1:] = [word] if word else []
    return closed


def _cd(place: str | None, args: list[str], then: str) -> str | None:
    """Where the commands after ``cd ARGS`` followed by ``then`` run (``None``: not known).

    Followed only for ``cd DIR &&`` with a plain ``DIR``: after ``;`` or ``||`` the next
    command may run where it was (the ``cd`` failed), and ``$D``, ``~``, ``-`` are not read.
    """
    if place is None or then != "&&" or len(args) != 1 or not _PLAIN_DIR.fullmatch(args[0]) \
            or args[0].startswith("-"):
        return None
    from goosectx.compaction.command_changes import joined  # at need (module docstring)

    return args[0] if args[0].startswith("/") or not place else joined(place, args[0])


def _placed(changes: list[Change], place: str | None) -> list[Change]:
    """``changes`` with their paths put in ``place``; a word that is not a path left out.

    A word holding an expansion or an unbalanced paren is not a path; a relative path where
    the directory is not known (``None``) is left out rather than named wrongly.
    """
    from goosectx.compaction.command_changes import joined  # at need (module docstring)

    return [(joined(place, path) if place and not path.startswith("/") else path, verb)
            for path, verb in changes
            if not _NOT_A_PATH.search(path) and path.count("(") == path.count(")")
            and (place is not None or path.startswith("/"))]


def _loop_words(command: list[str], loops: Loops) -> bool:
    """Follow the loops ``command`` starts or ends (its leading reserved words) in ``loops``.

    True when it is a ``for``/``select`` header (``for f in a b``: no program to read).
    """
    from goosectx.shell_program import KEYWORDS

    for k, word in enumerate(command):
        if word == "done" and loops:
            loops.pop()
        elif word in ("while", "until"):
            loops.append(("", []))
        elif word in ("for", "select"):
            named = command[k + 2:k + 3] == ["in"]
            loops.append((command[k + 1] if named else "", command[k + 3:] if named else []))
            return True
        elif word not in KEYWORDS:
            break
    return False


def _expanded(argv: list[str], loops: Loops) -> list[list[str]]:
    """``argv`` once per word of each enclosing loop whose ``$NAME`` it holds (at most 64)."""
    variants = [argv]
    for name, values in reversed(loops):  # the innermost loop of a reused name sets it
        if not name or not values or not any("$" in a for a in argv):
            continue
        used = re.compile(r"\$(?:" + re.escape(name) + r"(?!\w)|\{" + re.escape(name) + r"\})")
        if any(used.search(a) for a in argv):
            variants = [[used.sub(v.replace("\\", "\\\\"), a) for a in variant]
                        for variant in variants for v in values][:64]
    return variants
