"""Programs whose files are named where the command line does not show them.

docs/architecture.md §4 (clause "permission rules"). ``sort --files0-from=-`` reads the files
named on its input, ``tar -T list`` those a list names, ``cpio -o`` / ``zip -@`` / ``pax -w``
those its input names, and a jq program's ``import "../notes" as $x`` reads ``../notes.json``:
no word of the line is the file read, so the path checks cannot judge it. Such a call may read
any file (:func:`hidden_names` says why), and the approval asks, as for ``echo x | xargs cat``
(:mod:`goosectx.piped_names`).

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_options import long_option, short_value
from goosectx.shell_words import Word

_LIST_OPTIONS: dict[str, tuple[str, ...]] = {
    "sort": ("--files0-from",), "du": ("--files0-from",), "wc": ("--files0-from",),
    "tar": ("--files-from",), "gtar": ("--files-from",), "bsdtar": ("--files-from",),
    "rsync": ("--files-from",), "zip": ("--names-stdin",), "cpio": ("--create",
                                                                    "--pass-through"),
    "ctags": (), "etags": (), "pax": (), "find": (), "jq": ("--from-file",),
}
"""Programs and their long options (any getopt prefix) that name a list of files to read."""
_LIST_LETTERS = {"tar": "T", "gtar": "T", "bsdtar": "T", "cpio": "op", "zip": "@",
                 "ctags": "L", "etags": "L", "pax": "w", "jq": "f"}
"""Their short options (in a cluster too) that do: ``tar -cT -``, ``cpio -ov``, ``jq -f F``."""
_TAR_VALUED = "fCbgHIKLNVX"
_JQ_MODULE = re.compile(r"(?:^|[^\w.$])(?:import|include)\s*\"")
"""A jq ``import "PATH" as $x;`` / ``include "PATH";``: reads ``PATH.jq`` / ``PATH.json``."""


def hidden_names(words: list[Word]) -> str | None:
    """Why the call reads files no word of it names (``"it reads the files its input names"``).

    ``None`` for a program that reads only what its words name.
    """
    if not words:
        return None
    name = words[0].value.rsplit("/", 1)[-1]
    args = [w.value for w in words[1:]]
    if name == "jq" and any(_JQ_MODULE.search(a) for a in args):
        return "a jq import or include reads a module file"
    if name == "parallel" and any(a.startswith("::::") or a == "-a" or long_option(
            a, "--arg-file") for a in args):  # parallel cat :::: list: the lines of list
        return "parallel takes the arguments of its command from a file"
    if name not in _LIST_OPTIONS:
        return None
    longs, letters = _LIST_OPTIONS[name], _LIST_LETTERS.get(name, "")
    for i, value in enumerate(args):
        if value == "--":
            break
        if any(long_option(value, option) for option in longs) or name == "find" and (
                value == "-files0-from"):
            return f"{name} {value} reads the files a list or its input names"
        tar = name in ("tar", "gtar", "bsdtar")
        if value.startswith("-") and not value.startswith("--") and len(value) > 1:
            if any(letter in (_tar_flags(args, i) if tar else value[1:]) for letter in letters):
                return f"{name} {value} reads the files a list or its input names"
        elif i == 0 and tar and "T" in value:  # tar cTf - x.tar: its first word, no dash
            return f"{name} {value} reads the files a list or its input names"
    return None


def _tar_flags(args: list[str], i: int) -> str:
    """The letters of tar's cluster ``args[i]`` up to and with the first that takes a value."""
    short = short_value(args, i, _TAR_VALUED + "T")
    return short.flags + short.letter
