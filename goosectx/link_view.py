"""How a program looks at a symlink named on its command line: the link itself or where it leads.

Part of the approval decision's path checks (docs/architecture.md, §4: the shell rules'
outside-the-project and sensitive-file reads): ``ls -l link`` or ``readlink link`` opens
nothing the link leads to, so a link out of the project is no read there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from goosectx.shell_options import long_option
from goosectx.shell_words import Word

_LS_FOLLOW = ("--dereference", "--dereference-command-line",
              "--dereference-command-line-symlink-to-dir")
_LS_KNOWN = ("--all", "--almost-all", "--directory", "--human-readable", "--inode", "--size",
             "--numeric-uid-gid", "--no-group", "--reverse", "--color", "--full-time", "--si",
             "--sort", "--time", "--time-style", "--group-directories-first", "--author")
_STAT_FOLLOW = ("--dereference", "--file-system")
_STAT_KNOWN = ("--format", "--printf", "--terse", "--cached")


def link_view(args: list[Word]) -> str | None:
    """How the program of ``args`` looks at a symlink named on its command line.

    ``"link"``: at the link itself, never where it leads (``ls -l``, ``ls -d``, ``stat``: an
    ``lstat``; ``readlink``, ``realpath``: they print where it leads, opening nothing there);
    ``"file"``: at a link to a file itself, into a link to a dir (``ls`` alone
    lists the dir it leads to); ``None``: it follows links (every other program; ``ls -L``,
    ``-H``, ``stat -L``, ``stat -f``, an option not known here). GNU ls and stat; ``file``
    looks at the link itself unless ``-L``/``--dereference`` (or ``POSIXLY_CORRECT`` is set).
    """
    name = args[0].value if args else ""
    if name in ("readlink", "realpath"):
        return "link"
    if name == "file":  # file link: "symbolic link to …" unless -L (or POSIXLY_CORRECT)
        return None if "POSIXLY_CORRECT" in os.environ or any(
            long_option(w.value, "--dereference") or w.value[:1] == "-" and w.value[
                1:2] != "-" and "L" in w.value for w in args[1:]) else "link"
    if name not in ("ls", "stat"):
        return None
    follow, known, valued, flat = ((_LS_FOLLOW, _LS_KNOWN, "ITw", "LH") if name == "ls" else
                                   (_STAT_FOLLOW, _STAT_KNOWN, "c", "Lf"))
    itself, operand = name == "stat", False  # an option after an operand: POSIXLY_CORRECT
    for word in (w.value for w in args[1:]):  # makes it a file: it counts only to follow
        if word == "--":
            break
        if word.startswith("--"):
            if any(long_option(word, one) for one in follow) or not any(
                    long_option(word, one) for one in known):
                return None
            itself |= not operand and (long_option(word, "--directory") or long_option(
                word, "--full-time"))
        elif word.startswith("-") and len(word) > 1:
            letters = re.split(f"[{valued}]", word[1:], maxsplit=1)[0]
            if any(letter in word[1:] for letter in flat):
                return None  # in a value as well: asks more, never less
            itself |= not operand and any(letter in letters for letter in "ldgno")
        else:
            operand = True
    return "link" if itself else "file"


def link_itself(path: Path, looks: str | None) -> bool:
    """True when ``path`` is a symlink the program looks at itself (:func:`link_view`)."""
    return path.name not in ("", ".", "..") and os.path.islink(path) and (
        looks == "link" or looks == "file" and not os.path.isdir(path))
