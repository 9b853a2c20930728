"""The sensitive files a recursive read reaches below the directories it names.

docs/architecture.md §4 (clause "permission rules"). The sensitive-file check judges the paths
a shell command names (:func:`goosectx.sensitive.sensitive_words`); ``grep -r KEY .`` names
only ``.``, yet reads ``./.env`` and ``./.git/config``. So under an allow rule such as
``shell(grep*)`` the approval also walks each directory a recursive ``grep`` or ``diff``
reads (``.`` when it names none), and asks when a sensitive file lies below it — or when
there are more than :data:`MAX_NAMES` names to look at (any may be).

Core module: no printing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from goosectx.shell_words import Word

MAX_NAMES = 10_000
"""Names walked below one directory before the walk stops and counts as "any may be"."""

_RECURSIVE_LONG: dict[str, frozenset[str]] = {
    "grep": frozenset({"--recursive", "--dereference-recursive", "--directories=recurse"}),
    "diff": frozenset({"--recursive"}),
}
"""Programs that read below a directory when given one of these options (or ``-r`` / ``-R``
in a cluster of short options: ``-rn``); ``egrep`` and ``fgrep`` are ``grep``."""


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return "grep" if name in ("egrep", "fgrep", "rgrep") else name


def recursive_operands(words: list[Word]) -> list[str] | None:
    """The directory words a recursive ``grep``/``diff`` reads below, ``None`` if it does not.

    ``grep -rn TODO src`` → ``["src"]`` (every operand: which is the pattern is not worked
    out, a pattern that is no directory is skipped by the walk); ``grep -r x`` → ``["."]``,
    as grep reads the working dir; ``rgrep`` is always recursive.
    """
    if not words:
        return None
    name = _program(words[0].value)
    longs = _RECURSIVE_LONG.get(name)
    if longs is None:
        return None
    recursive = words[0].value.rsplit("/", 1)[-1] == "rgrep"
    operands: list[str] = []
    args = [w.value for w in words[1:]]
    for i, value in enumerate(args):
        if value == "--":
            operands.extend(args[i + 1:])
            break
        if value in longs or value == "-d" and args[i + 1:i + 2] == ["recurse"]:
            recursive = True
        elif value.startswith("-") and not value.startswith("--") and len(value) > 1:
            recursive |= "r" in value or "R" in value and name == "grep"
        elif not value.startswith("-"):
            operands.append(value)
    if not recursive:
        return None
    return operands if len(operands) > (1 if name == "grep" else 0) else [*operands, "."]


def sensitive_below_dir(directory: Path) -> Iterator[Path | None]:
    """Each sensitive file below ``directory``, in walk order (symlinks not followed).

    A ``None`` when there are more than :data:`MAX_NAMES` names (any may be). Judged by
    :func:`goosectx.sensitive.sensitive_below`: the names below the directory, so a project
    under ``~/.config/gh`` is no secret itself.
    """
    from goosectx.sensitive import sensitive_below

    seen = 0
    for top, dirs, files in os.walk(directory):
        for name in (*dirs, *files):
            seen += 1
            if seen > MAX_NAMES:
                yield None
                return
            path = Path(top) / name
            if sensitive_below(path, directory):
                yield path
                if name in dirs:
                    dirs.remove(name)  # one finding per sensitive directory
