"""Which files a shell command changes, read from its words (nothing is run).

Used by :func:`goosectx.compaction.actions.shell_actions`, which turns each ``(path, verb)``
into a file action. Known: ``>``/``>>``/``>|`` redirection (``written``), ``rm``
(``deleted``), ``touch`` (``created``), ``tee`` (``written``), ``sed -i`` (``edited``).

All functions are pure.
"""

from __future__ import annotations

import re
import shlex

Change = tuple[str, str]
"""A file a command changes and how: ``(path, verb)``, the verb as in
:class:`~goosectx.compaction.actions.FileAction`."""

_HEREDOC = re.compile(r"<<-?\s*['\"]?([\w.-]+)['\"]?")
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
_MAY_CHANGE = re.compile(r""">|(?:^|(?<=[\s/'"\\;&|<]))(?:rm|touch|tee|sed)(?![\w-])""")
"""A line where :func:`_simple_command_changes` can find something (a redirection or one of
the programs :func:`_command_changes` knows); other lines are not tokenised. A program's
name ends a word or a path (``rm``, ``/bin/rm``, ``'rm'``, ``\\rm``): what comes before it
in the line is where a word starts (the line's start, a space, one of ``;&|<``), a slash, or
a quote or backslash that tokenising removes (``grep -rn perm`` and ``guarantee`` are not
tokenised)."""


def shell_file_changes(script: str) -> list[Change]:
    """Files the commands of ``script`` change, in the order they are named.

    Here-document bodies are skipped; a line that does not tokenise is skipped.
    """
    if not (">" in script or "rm" in script or "touch" in script or "tee" in script
            or "sed" in script):
        return []  # no line can hold one: most commands of a long session stop here
    out: list[Change] = []
    for line in _without_heredocs(script):
        if not (">" in line or "rm" in line or "touch" in line or "tee" in line
                or "sed" in line) or not (_MAY_CHANGE.search(line) or _MAY_CHANGE.search(
                    line.translate(_NO_QUOTES))):  # its words, then the rule (r''m is rm)
            continue  # nothing to find, and tokenising every line of a long session is slow
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            continue
        out += _simple_command_changes(tokens)
    return out


def _simple_command_changes(tokens: list[str]) -> list[Change]:
    out: list[Change] = []
    command: list[str] = []
    i = 0
    while i <= len(tokens):
        tok = tokens[i] if i < len(tokens) else ";"
        if tok in (">", ">>", ">|") and i + 1 < len(tokens):
            target = tokens[i + 1]
            if not target.startswith(("/dev/", "&")) and not (command and command[-1].isdigit()
                                                              and command[-1] != "1"):
                out.append((target, "written"))
            if command and command[-1].isdigit():
                command.pop()
            i += 2
            continue
        if tok and set(tok) <= set(";&|<>"):
            out += _command_changes(command)
            command = []
        else:
            command.append(tok)
        i += 1
    return out


def _command_changes(argv: list[str]) -> list[Change]:
    while argv and ("=" in argv[0] and not argv[0].startswith("-") or argv[0] in ("sudo",)):
        argv = argv[1:]
    if not argv:
        return []
    prog, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    operands = [a for a in args if not a.startswith("-")]
    if prog == "rm":
        return [(a, "deleted") for a in operands]
    if prog == "touch":
        return [(a, "created") for a in operands]
    if prog == "tee":
        return [(a, "written") for a in operands]
    if prog == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args):
        has_script_flag = any(a in ("-e", "--expression") for a in args)
        files = operands if has_script_flag else operands[1:]
        return [(a, "edited") for a in files]
    return []
