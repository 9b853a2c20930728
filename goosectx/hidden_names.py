"""Programs whose files are named where the command line does not show them.

docs/architecture.md §4 (clause "permission rules"). ``sort --files0-from=-`` reads the files
named on its input, ``tar -T list`` those a list names, ``cpio -o`` / ``zip -@`` / ``pax -w``
those its input names, ``md5sum -c SUMS`` those its list names, a jq program's ``import
"../notes" as $x`` reads ``../notes.json``, and ``git log -p -- '*.env'`` a ``.env`` once
committed (:mod:`goosectx.git_pathspecs`): no word of the line is the file read, so the path
checks cannot judge it. Such a call may read any file (:func:`hidden_names` says why), and the
approval asks, as for ``echo x | xargs cat`` (:mod:`goosectx.piped_names`). The options are
:data:`goosectx.option_table.OPTIONS`' that do :attr:`~goosectx.option_table.Does.LIST` or
:attr:`~goosectx.option_table.Does.ARGUMENTS`.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.git_pathspecs import pathspec_reads
from goosectx.option_table import Does, first_hit
from goosectx.shell_git import git_subcommand
from goosectx.shell_words import Word

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
    if name == "git" and (why := pathspec_reads(args[git_subcommand(args) + 1:])):
        return why  # git log -p -- '*.env': a glob git matches against its history
    hit = first_hit(name, args, Does.LIST, Does.ARGUMENTS)
    return None if hit is None else f"{hit.program} {hit.word} {hit.does.value}"
