"""Options that make a reading program write files or read whole directories.

Under an allow rule for a program that reads (``shell(git diff*)``, ``shell(pytest*)``), these
options write or delete files the rules never judge as write targets: ``git diff
--output=Makefile`` replaced a project file, ``pytest --basetemp=.git`` deleted the
repository (pytest empties its base temp dir), ``pytest --junitxml=Makefile`` overwrote one;
``git diff --no-index tests .`` printed every file below ``.``, ``.env`` included. Such a
call asks (docs/architecture.md §4, permission rules). The options are
:data:`goosectx.option_table.OPTIONS`' that do :attr:`~goosectx.option_table.Does.WRITES` or
:attr:`~goosectx.option_table.Does.WHOLE` (``--outp=``, a unique prefix, counts).
"""

from __future__ import annotations

from goosectx.option_table import Does, first_hit


def option_writes(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS`` may write files or read whole directories unjudged, or ``None``."""
    hit = first_hit(name, args, Does.WRITES, Does.WHOLE)
    if hit is None:
        return None
    return f"{hit.program} {hit.word.partition('=')[0]} {hit.does.value}"
