"""Variables set by name that rebind a program or make bash run text, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:func:`goosectx.shell_builtins.computed_name` reads the variable names a builtin sets.
``BASH_CMDS`` binds a program name to another file and ``BASH_ALIASES`` defines an alias, set
by any builtin that takes a variable name (``read 'BASH_CMDS[ls]' <<< /bin/rm``, ``printf -v``,
``mapfile``, ``declare``). A nameref (``declare``/``typeset``/``local -n``) to one of them or to
a prompt or startup variable (:data:`goosectx.shell_assign.STRICT_ARRAYS` but ``PS3``), a
nameref named like one (``declare -n PS4=R``: ``PS4`` then expands ``R``), and one whose
target a later assignment sets (``declare -n r; r=BASH_CMDS``) make what the line assigns
through it something the rules cannot read. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_assign import DECLARATIONS, STRICT_ARRAYS

BOUND = frozenset({"BASH_CMDS", "BASH_ALIASES"})
"""Arrays whose elements bind a program name to a file or define an alias."""
_REFERRED = STRICT_ARRAYS - {"PS3"}
"""Names a nameref may not have or point to: ``PS3`` (``select``'s prompt) is printed as it is."""


def _base(name: str) -> str:
    """``name`` without its subscript or ``+`` (``BASH_CMDS[ls]`` → ``BASH_CMDS``)."""
    return name.partition("[")[0].removesuffix("+")


def bound_name(builtin: str, names: list[str], nameref: bool) -> str | None:
    """Why ``builtin`` setting the variables ``names`` may run other text, or ``None``.

    ``names``: its name operands as bash reads them (``NAME`` or ``NAME=VALUE``, quotes
    removed); ``nameref``: it declares them ``-n``. ``unset`` and a bare ``declare NAME`` set
    nothing.
    """
    if builtin == "unset":
        return None
    for text in names:
        head, equals, target = text.partition("=")
        name = _base(head)
        if name in BOUND and (equals or builtin not in DECLARATIONS):
            return (f"{builtin} sets {name}, which defines an alias or binds a program name to "
                    "another file")
        if not nameref:
            continue
        if not equals:
            return f"{builtin} -n {name}: bash takes its target from a later assignment"
        if name in _REFERRED or _base(target) in _REFERRED:
            return (f"{builtin} -n makes {name} a reference to {target}: an alias, a program's "
                    "file or a variable whose value bash runs")
    return None


"""Builtins whose ``NAME`` operand alone sets no value."""
