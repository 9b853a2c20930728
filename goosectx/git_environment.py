"""What git's environment variables make it write: its work tree and its trace files.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_hidden` reads a command for the shell's permission rules. A variable the
line gives git is judged as the option or redirection it mirrors: ``GIT_WORK_TREE=.git git
checkout -f -- hooks/x`` as ``git --work-tree=.git …`` (git writes its files into that dir), a
trace variable with a path (``GIT_TRACE=$PWD/.git/config``, ``GIT_TRACE2_EVENT``,
``GIT_TRACE_PACKET``) as ``>> PATH`` (git appends its trace to that file: a ``.pth`` file in a
virtualenv runs at every Python start). Set before git, by ``export`` or ``env`` on the line.
The variables that name config or commands (``GIT_DIR``, ``GIT_COMMON_DIR``,
``GIT_CONFIG_GLOBAL``, ``GIT_SSH_COMMAND`` …): :mod:`goosectx.shell_git`. What the command
text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.git_config_writes import writes_git_config
from goosectx.protected_paths import Where
from goosectx.shell_unwrap import HANDS_ON, handed
from goosectx.unmodelled_writes import line_assignments

_TRACES = re.compile(r"GIT_TRACE(?:_(?:PACK_ACCESS|PACKET|PACKFILE|PERFORMANCE|SETUP|SHALLOW"
                     r"|CURL|REFS|FSMONITOR))?|GIT_TRACE2(?:_EVENT|_PERF)?")
"""git's trace variables whose value may be the file the trace is appended to."""
_NO_FILE = re.compile(r"(?i:true|false|yes|no|on|off|\d*)")
"""A trace value that names no file: on, off, or a file descriptor (``GIT_TRACE=2``)."""


def git_environment(name: str, args: list[str], where: Where | None, line: str) -> str | None:
    """Why git, given the variables ``line`` sets, writes where a later command runs, or ``None``.

    ``name ARGS``: ``git …`` (the line's assignments: ``X=v git``, ``export X=v; git``) or
    ``env X=v …``, ``sudo --user root X=v …`` (their own, as :func:`goosectx.shell_unwrap.handed`
    reads them); each variable's every value is judged.
    """
    if name == "git":
        given = line_assignments(line, computed=True) if line else {}
    elif name in HANDS_ON:  # env -u X GIT_WORK_TREE=.git git, sudo --user root VAR=value git
        found: dict[str, tuple[str, ...]] = {}
        for word in handed(name, args):  # the wrappers' one walker: shell_unwrap.unwrap
            key, _, value = word.partition("=")
            found[key] = (*found.get(key, ()), value)
        given = found
    else:
        return None
    for value in given.get("GIT_WORK_TREE", ()):
        if why := writes_git_config("git", [f"--work-tree={value}"], where):
            return f"it sets GIT_WORK_TREE, as git --work-tree: {why}"
    for variable, values in given.items():
        for value in values if _TRACES.fullmatch(variable) else ():
            if not _NO_FILE.fullmatch(value) and (
                    why := writes_git_config(">>", [value], where)):
                said = why.replace("a redirection", "git", 1)
                return f"it sets {variable}, whose trace git appends to {value}: {said}"
    return None
