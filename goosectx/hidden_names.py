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

import os
import re
from pathlib import Path

from goosectx.git_index import tracked_paths
from goosectx.git_pathspecs import names_only, pathspec_reads, worktree_diff, worktree_grep
from goosectx.option_table import Does, first_hit
from goosectx.program_operands import git_messages
from goosectx.sensitive import sensitive_why
from goosectx.shell_git import git_subcommand
from goosectx.shell_words import Word

_JQ_MODULE = re.compile(r"(?:^|[^\w.$])(?:import|include)\s*\"")
"""A jq ``import "PATH" as $x;`` / ``include "PATH";``: reads ``PATH.jq`` / ``PATH.json``."""


def hidden_names(words: list[Word], base: Path | None = None) -> str | None:
    """Why the call reads files no word of it names (``"it reads the files its input names"``).

    ``None`` for a program that reads only what its words name. ``base``: the dir it runs in,
    when nothing on the line can set a variable (``GIT_INDEX_FILE``): a worktree ``git diff``
    there is judged by the files its index lists (:func:`_tracked_secrets`).
    """
    if not words:
        return None
    name = words[0].value.rsplit("/", 1)[-1]
    args = [w.value for w in words[1:]]
    if name == "jq" and any(_JQ_MODULE.search(a) for a in args):
        return "a jq import or include reads a module file"
    at = git_subcommand(args)
    tracked = _tracked_secrets(base) if base is not None and at == 0 and (worktree_diff(
        args) or worktree_grep(args)) else None  # git diff -- '*.yml': what the index lists
    messages = git_messages(["git", *args]) if name == "git" else set()  # -m 'HEAD:.env'
    if name == "git" and not (at == 0 and names_only(args)) and (why := pathspec_reads(
            [a for k, a in enumerate(args[at + 1:], at + 2) if k not in messages], tracked)):
        return why  # git log -p -- '*.env': a glob git matches against its history
    hit = first_hit(name, args, Does.LIST, Does.ARGUMENTS)
    return None if hit is None else f"{hit.program} {hit.word} {hit.does.value}"


def _tracked_secrets(base: Path) -> tuple[str, ...] | None:
    """The sensitive paths the index of the repository holding ``base`` lists, ``None``: unknown.

    Unknown with ``GIT_DIR``/``GIT_INDEX_FILE``/``GIT_WORK_TREE``/``GIT_COMMON_DIR`` set, a
    ``.git`` file (a worktree, a submodule) or an index not read here.
    """
    if any(os.environ.get(name) for name in (
            "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return None
    for top in (base, *base.parents):
        dot_git = top / ".git"
        if dot_git.is_dir() and not dot_git.is_symlink():
            paths = tracked_paths(dot_git)
            return None if paths is None else tuple(p for p in paths if sensitive_why(
                Path("/", p)) is not None or sensitive_why(top / p) is not None)
        if os.path.lexists(dot_git):
            return None
    return None
