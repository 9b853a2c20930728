"""The warnings a REPL or ``run`` prints as it starts on a session (and ``/resume`` on another).

A resumed session whose working dir is gone; else each project instruction file skipped
(a link out of the repository, another user's file, ... — :func:`goosectx.prompts.
scan_instructions`). An instruction file's warning is shown once per process: ``/resume``
back into the same directory does not repeat it. Every line is sanitised.
"""

from __future__ import annotations

from pathlib import Path

from goosectx.cli.common import missing_working_dir
from goosectx.cli.sanitize import one_line_safe
from goosectx.session import Session

_SHOWN: set[tuple[Path, str]] = set()
"""The instruction-file warnings this process has shown."""


def start_warnings(session: Session, *, resumed: bool) -> list[str]:
    """One line per warning, without the ``warning:`` prefix, for ``session``'s start."""
    if resumed and (gone := missing_working_dir(session)) is not None:
        return [gone]
    return instruction_warnings(session.working_dir)


def instruction_warnings(working_dir: Path) -> list[str]:
    """A line per instruction file skipped for ``working_dir`` and not warned about yet."""
    from goosectx.prompts import scan_instructions

    lines = []
    for path, why in scan_instructions(working_dir).skipped:
        if (path, why) in _SHOWN:
            continue
        _SHOWN.add((path, why))
        lines.append(one_line_safe(f"project instructions {_shown(path, working_dir)} "
                                   f"skipped: {why}"))
    return lines


def _shown(path: Path, working_dir: Path) -> str:
    try:
        return str(path.relative_to(working_dir.resolve()))
    except ValueError:
        return str(path)
