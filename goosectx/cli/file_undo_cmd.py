"""``/undo [--force]``: undo the file edits of the last user turn (:mod:`goosectx.file_undo`).

Prints one line per file restored or removed and per thing it could not undo, every name made
safe for the terminal (:mod:`goosectx.cli.sanitize`). A file changed since goosectx edited it
stops the whole undo (nothing is touched) unless ``--force`` is given. Not to be confused with
``/undo-compact``, which gives the model back what the last compaction replaced and touches
no file. In a session whose working dir is gone it refuses (a restore would recreate it), with
the fix the tools give (:func:`goosectx.tools.base.working_dir_gone`).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from goosectx.cli.sanitize import one_line_safe
from goosectx.events import MessageCompleted
from goosectx.file_journal import EditJournal
from goosectx.file_undo import FileUndo, apply_undo, plan_undo, undo_messages
from goosectx.tools.base import working_dir_gone

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl
    from goosectx.session import Session

UNTRACKED_WHY = "only the text editor's edits are recorded"


def _name(path: str, working_dir: Path) -> str:
    try:
        shown = str(Path(path).relative_to(working_dir))
    except ValueError:
        shown = path
    return one_line_safe(shown)


def _quote(plan: FileUndo) -> str:
    text = plan.turn.text.strip() if plan.turn is not None else ""
    first = text.splitlines()[0] if text else ""
    return one_line_safe(first[:60] + ("…" if len(first) > 60 or "\n" in text else ""))


def report_lines(plan: FileUndo, working_dir: Path, *, force: bool) -> list[str]:
    """What ``/undo`` tells the user about ``plan`` (after :func:`apply_undo`)."""
    if plan.turn is None and plan.imported:
        return ["/undo: nothing to undo — the turns before are imported from another agent's "
                "transcript: goosectx ran none of their tool calls and recorded no file edits "
                "(check the files yourself, e.g. git status)"]
    if plan.turn is None:
        return ["/undo: nothing to undo — no file edits by goosectx in this session are left "
                "to undo (/undo-compact is the compaction's undo)"]
    head = f'/undo: the file edits made for your message "{_quote(plan)}"'
    elsewhere = [f"  not undone  {_name(p, working_dir)}: the path now leads elsewhere "
                 f"({_name(now, working_dir)}); it is left alone, also with --force"
                 for p, now in plan.elsewhere.items()]
    if plan.changed and not force:
        lines = [head + ":", "  nothing was undone: files changed since goosectx edited them"]
        lines += [f"  deleted  {_name(p, working_dir)} (deleted since goosectx edited it)"
                  if p in plan.deleted else f"  changed  {_name(p, working_dir)}"
                  for p in plan.changed]
        lines += elsewhere
        lines.append("/undo --force restores them anyway (their later changes are lost"
                     + ("; deleted ones are recreated" if plan.deleted else "")
                     + ")")
        return lines
    lines = [head + ":"]
    lines += [f"  restored  {_name(p, working_dir)}" for p in plan.restored]
    lines += [f"  removed   {_name(p, working_dir)} (that turn created it)"
              for p in plan.removed]
    lines += [f"  removed   {_name(d, working_dir)}/ (empty; that turn created it)"
              for d in plan.removed_dirs]
    lines += elsewhere
    lines += [f"  not undone  {_name(p, working_dir)}: {one_line_safe(why)}"
              for p, why in plan.failed.items()]
    lines += [f"  not undoable  {_name(p, working_dir)}: {why}"
              for p, why in plan.not_kept.items()]
    lines += [f"  not undoable  {one_line_safe(call[:70])}" for call in plan.untracked]
    if plan.untracked:
        lines.append(f"  ({UNTRACKED_WHY}: check what those calls changed yourself)")
    if len(lines) == 1:
        lines[0] = head + ": nothing changed"
    return lines


def undo_files(repl: Repl, *, force: bool) -> None:
    """Run ``/undo`` in ``repl``: restore, tell the user, and note it for the model."""
    session = repl.session
    journal = EditJournal(repl.settings.data_dir, session.id)
    plan = plan_undo(session.conversation.messages, journal, _imported_at(session))
    if plan.turn is not None and _in_gone_working_dir(plan, session.working_dir):
        repl.renderer.notice("/undo: nothing was undone — " + one_line_safe(working_dir_gone(
            session.working_dir, "no file in it can be restored")), style="yellow")
        return  # (a restore would recreate it: atomic_write makes the missing directories)
    plan = apply_undo(plan, journal, force=force)
    lines = report_lines(plan, session.working_dir, force=force)
    style = "yellow" if plan.changed and not force or plan.failed else "dim"
    for line in lines:
        repl.renderer.notice(line, style=style)
    if plan.turn is None or (plan.changed and not force):
        return
    if plan.failed and not (plan.restored or plan.removed):
        return  # nothing happened: the next /undo tries the same turn again
    for message in undo_messages(plan, session.working_dir, "\n".join(lines)):
        session.conversation.append(message)
        repl._record(MessageCompleted(message))
    repl._refresh_figure()


def _in_gone_working_dir(plan: FileUndo, working_dir: Path) -> bool:
    """Whether ``working_dir`` no longer exists and a file ``plan`` would restore is in it.

    Refused as the text editor refuses a write there, with the same fix.
    """
    if os.path.isdir(working_dir):
        return False
    return any(os.path.commonpath([working_dir, path]) == str(working_dir)
               for path in plan.files)


def _imported_at(session: Session) -> datetime | None:
    """When ``session`` was imported (``sessions import``), or ``None``."""
    try:
        return datetime.fromisoformat(str(session.metadata["imported_at"]))
    except (KeyError, ValueError):
        return None
