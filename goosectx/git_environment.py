"""What git's environment variables make it write: its work tree, index, objects, trace files.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_hidden` reads a command for the shell's permission rules. A variable the
line gives git is judged as the option or redirection it mirrors: ``GIT_WORK_TREE=.git git
checkout -f -- hooks/x`` as ``git --work-tree=.git …`` (git writes its files into that dir), a
trace variable with a path (``GIT_TRACE=$PWD/.git/config``, ``GIT_TRACE2_EVENT``,
``GIT_TRACE_PACKET``) as ``>> PATH`` (git appends its trace to that file: a ``.pth`` file in a
virtualenv runs at every Python start), ``GIT_INDEX_FILE`` and ``GIT_OBJECT_DIRECTORY`` as the
file and dir git writes (:data:`_PLACES`). Set before git, by ``export`` or ``env`` on the line.
The variables that name config or commands (``GIT_DIR``, ``GIT_COMMON_DIR``,
``GIT_CONFIG_GLOBAL``, ``GIT_SSH_COMMAND`` …): :mod:`goosectx.shell_git`. What the command
text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import posixpath
import re

from goosectx.git_config_writes import PASSES_ON, writes_git_config
from goosectx.protected_paths import Where, protected_write
from goosectx.shell_builtins import SHELLS
from goosectx.shell_unwrap import HANDS_ON, handed
from goosectx.unmodelled_writes import line_assignments

_TRACES = re.compile(r"GIT_TRACE(?:_(?:PACK_ACCESS|PACKET|PACKFILE|PERFORMANCE|SETUP|SHALLOW"
                     r"|CURL|REFS|FSMONITOR))?|GIT_TRACE2(?:_EVENT|_PERF)?")
"""git's trace variables whose value may be the file the trace is appended to."""
_NO_FILE = re.compile(r"(?i:true|false|yes|no|on|off|\d*)")
"""A trace value that names no file: on, off, or a file descriptor (``GIT_TRACE=2``)."""
_SOCKET = re.compile(r"af_unix:")
"""``GIT_TRACE2=af_unix:[stream:|dgram:]PATH``: git sends its trace to the socket at PATH, whose
listener is a program run by a command of its own; it connects, creating no file there (nor,
the connection refused, anywhere else)."""
_PLACES = {
    "GIT_INDEX_FILE": ("writes its index to", re.compile(r"\.git/index(?:[.\w-]*)")),
    "GIT_OBJECT_DIRECTORY": ("writes objects into", re.compile(r"\.git/objects")),
}
"""git's environment naming a file or dir git writes, as ``> FILE`` (each is judged by
:func:`goosectx.protected_paths.protected_write`; a ``.pth`` index in a virtualenv holds the
file names it was given, one of which may start a line with ``import``), and the repository's
own place for it, judged no further (``.git/index``, ``.git/index.tmp``, ``.git/objects``).
``GIT_ALTERNATE_OBJECT_DIRECTORIES`` names dirs git only reads objects from (each checked by
its hash): no write."""


def git_environment(name: str, args: list[str], where: Where | None, line: str) -> str | None:
    """Why git, given the variables ``line`` sets, writes where a later command runs, or ``None``.

    ``name ARGS``: ``git …`` (the line's assignments: ``X=v git``, ``export X=v; git``), a
    build tool or shell whose scripts may run git (``GIT_WORK_TREE=.git make``, ``… bash x.sh``:
    :data:`goosectx.git_config_writes.PASSES_ON`, the same assignments) or
    ``env X=v …``, ``sudo --user root X=v …`` (their own, as :func:`goosectx.shell_unwrap.handed`
    reads them); each variable's every value is judged.
    """
    if name == "git" or name in PASSES_ON or name in SHELLS:  # GIT_WORK_TREE=.git make: its git
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
            if not _NO_FILE.fullmatch(value) and not _SOCKET.match(value) and (
                    why := writes_git_config(">>", [value], where)):
                said = why.replace("a redirection", "git", 1)
                return f"it sets {variable}, whose trace git appends to {value}: {said}"
    for variable, (verb, own) in _PLACES.items():
        for value in given.get(variable, ()):
            if not own.fullmatch(_in_project(value, where)) and (
                    why := protected_write("git", value, where, verb)):
                return f"it sets {variable}: {why}"
    return None


def _in_project(value: str, where: Where | None) -> str:
    """``value`` as a path from the project's dir (``$PWD/.git/index``: ``.git/index``)."""
    root = "" if where is None else str(where.root)
    for start in ("$PWD/", "${PWD}/", *([f"{root}/"] if root else [])):
        value = value.removeprefix(start)
    return posixpath.normpath(value) if value else value
