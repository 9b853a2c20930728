"""The warnings a REPL or ``run`` prints as it starts on a session (and ``/resume`` on another).

A resumed session whose working dir is gone; else, for a session resumed from another
directory, a line saying that it still works in its own dir (its tools, ``!`` commands and
``@`` mentions act there) and how to start a new session here instead; then each project
instruction file skipped (a link out of the repository, another user's file, ... —
:func:`goosectx.prompts.scan_instructions`). An instruction file's warning is shown once
per process: ``/resume`` back into the same directory does not repeat it. A file read but
cut at the size cap gets its line too. Every line is sanitised. :func:`nothing_to_continue`
is the note for ``--continue`` where this directory has no session to continue.
"""

from __future__ import annotations

from pathlib import Path

from goosectx.cli.common import OpenSession, missing_working_dir
from goosectx.cli.sanitize import one_line_safe
from goosectx.session import Session

_SHOWN: set[tuple[Path, str]] = set()
"""The instruction-file warnings this process has shown."""


NEW_IN_REPL = "/exit, then goosectx"
"""How a REPL user starts a new session in the current dir (:func:`elsewhere_warning`)."""
NEW_IN_RUN = "goosectx run -t TASK without --resume"
"""How a ``run`` user does (:func:`elsewhere_warning`)."""


def start_warnings(session: Session, *, resumed: bool, new_here: str = NEW_IN_REPL
                   ) -> list[str]:
    """One line per warning, without the ``warning:`` prefix, for ``session``'s start.

    ``new_here``: how to start a new session in the current dir instead, for a session
    resumed from another one (:data:`NEW_IN_REPL`, :data:`NEW_IN_RUN`).
    """
    if resumed and (gone := missing_working_dir(session)) is not None:
        return [gone]
    elsewhere = elsewhere_warning(session, new_here) if resumed else None
    lines = [elsewhere] if elsewhere is not None else []
    return lines + instruction_warnings(session.working_dir)


def nothing_to_continue(opened: OpenSession) -> str | None:
    """The note for ``--continue`` in a directory with no session to continue, else ``None``.

    A new session starts there (a CI step "continue the task" from a fresh checkout path
    would otherwise lose its context unnoticed).
    """
    if not opened.nothing_to_continue:
        return None
    return one_line_safe(
        f"no session to continue in {opened.session.working_dir} (none was worked in here): "
        "this is a new one; to go on with another, goosectx sessions list, then --resume "
        "SESSION")


def elsewhere_warning(session: Session, new_here: str) -> str | None:
    """The line for a session resumed from a dir other than its working dir, else ``None``.

    The session keeps its dir (its files, approval answers and transcript's paths are there);
    the line names both dirs so nobody runs project B's task in project A unawares.
    """
    try:
        here = Path.cwd().resolve()
        there = session.working_dir.resolve()
    except OSError:  # a current dir that is gone: nothing to compare with
        return None
    if here == there:
        return None
    return one_line_safe(
        f"this session works in {there}, not in the current dir {here}: its tools, "
        f"! commands and @ mentions act there; to work here, start a new session ({new_here})")


def instruction_warnings(working_dir: Path) -> list[str]:
    """A line per instruction file skipped or cut for ``working_dir`` not warned about yet."""
    from goosectx.prompts import MAX_INSTRUCTION_FILE_CHARS, scan_instructions

    scan = scan_instructions(working_dir)
    found = [(path, f"skipped: {why}") for path, why in scan.skipped]
    found += [(path, f"cut at {MAX_INSTRUCTION_FILE_CHARS:,} characters (the file has "
               f"{size:,} bytes): the model never sees the rest; shorten it")
              for path, size in scan.cut]
    lines = []
    for path, what in found:
        if (path, what) in _SHOWN:
            continue
        _SHOWN.add((path, what))
        lines.append(one_line_safe(f"project instructions {shown_path(path, working_dir)} "
                                   f"{what}"))
    return lines


def shown_path(path: Path, working_dir: Path) -> str:
    """``path`` as the user names it: relative to ``working_dir`` inside it, else whole."""
    try:
        return str(path.relative_to(working_dir.resolve()))
    except ValueError:
        return str(path)
