"""``/undo``: walk back the file edits goosectx's text editor made for one user message.

The edits are journalled by the editor (:mod:`goosectx.file_journal`) under the id of the
user's message whose turn made them. ``/undo`` picks the newest user message whose turn
changed something and was not undone yet, checks that every file it touched still holds what
the edit wrote (a file changed since — by the user, the shell tool, another program — is not
overwritten unless forced), then restores each file to its contents before the turn's first
edit of it (newest edit first; a file the turn created is removed, with the directories the
edit created for it when they are empty). Edits of one file through different names (a
symlink to it) chain as one file. A path that no longer leads to the file the edit wrote (a
directory swapped for a symlink since) is never written, not even with ``--force``; the write
itself does not follow a symlink. Edits made through the shell tool or an extension are named
as not undoable: nothing records what they changed.

The core part: no terminal. The REPL's command is :mod:`goosectx.cli.file_undo_cmd`; the
messages it adds are :func:`undo_messages` (a transcript notice, and a note the model reads so
it does not build on edits that are gone). The earlier turn stays in the transcript as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from goosectx.approval import (
    ASKED_CANCELLED_TEXT,
    CHAT_MODE_TEXT,
    DENIED_TEXT,
    INPUT_ENDED_TEXT,
    NON_INTERACTIVE_DENIED_TEXT,
    STOPPED_PREFIX,
)
from goosectx.compaction.actions import UNDO_NOTE_START
from goosectx.compaction.undo_note import FILES_END, FILES_START, REMOVED, RESTORED
from goosectx.conversation import Message, MessageMetadata
from goosectx.file_journal import ABSENT, SECRET_WHY, EditJournal, EditRecord
from goosectx.tools.file_writes import atomic_write
from goosectx.tools.files import FileError, digest
from goosectx.turn import CANCELLED_NOT_STARTED_TEXT, ERROR_NOT_STARTED_PREFIX, NOT_STARTED_TEXT

UNDO_KEY = "file_undo"
"""``metadata.extra`` key of the model's undo note: the id of the user message undone."""
UNDOABLE_TOOLS = ("text_editor", "tree")
"""Built-in tools whose changes ``/undo`` knows (the editor's) or that change nothing."""
NOT_RUN_TEXTS = frozenset((DENIED_TEXT, NON_INTERACTIVE_DENIED_TEXT, CHAT_MODE_TEXT,
                           INPUT_ENDED_TEXT, NOT_STARTED_TEXT, ASKED_CANCELLED_TEXT,
                           CANCELLED_NOT_STARTED_TEXT))
NOT_RUN_PREFIXES = ("denied by the user: ", "This tool call is denied by the user's permission",
                    NON_INTERACTIVE_DENIED_TEXT,  # + why a rule asks
                    "There is no tool named ", "The call to ", ERROR_NOT_STARTED_PREFIX)
"""How the answers to calls that never ran start (``approval``, ``ToolRegistry.refusal``).
A cancel at the approval question is (its own text), and so is a later call of the reply the
cancel (or an error's end of the turn: ``turn.error_not_started_text``) came before
(``turn.CANCELLED_NOT_STARTED_TEXT``); the bare Ctrl-C answer is not: the
call may have run (a call stopped while it ran, and every user cancel stored before)."""


@dataclass(slots=True)
class FileUndo:
    """What ``/undo`` found for one user turn, then what it did.

    Attributes:
        turn: The user's message whose turn is undone (``None``: nothing left to undo).
        files: Path → (the turn's edits of it, newest first).
        changed: Paths that no longer hold what the turn's last edit wrote.
        deleted: Those of ``changed`` that were deleted since (``--force`` recreates them).
        elsewhere: Path → where it leads now, when that is not the file the edit wrote
            (never written, not even with ``--force``).
        not_kept: Path → why its earlier contents are not kept (too large, dropped).
        untracked: Calls of the turn whose changes cannot be known (``shell: make``).
        restored / removed: What was done (filled by :func:`apply_undo`).
        removed_dirs: Empty directories removed with a file the turn created.
        failed: Path → why writing it failed.
        imported: With no ``turn``: the turns left were imported (another agent ran their
            calls; goosectx recorded nothing of them).
    """

    turn: Message | None
    files: dict[str, list[EditRecord]] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    elsewhere: dict[str, str] = field(default_factory=dict)
    not_kept: dict[str, str] = field(default_factory=dict)
    untracked: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    removed_dirs: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    imported: bool = False


def _current_sha(path: str) -> str:
    try:
        return digest(Path(path).read_bytes()) if os.path.lexists(path) else ABSENT
    except OSError:
        return "unreadable"


def _leads_elsewhere(record: EditRecord) -> str | None:
    """Where the edited path leads now, when that is not the file ``record`` wrote."""
    if not record.real:
        return None  # an older record: nothing to compare
    now = os.path.realpath(record.real)
    if now != record.real:
        return now
    try:
        held = os.stat(Path(record.real).parent)
    except OSError:
        return None  # its directory is gone: the file is deleted, and recreated where it was
    if record.dir_ino and (held.st_dev, held.st_ino) != (record.dir_dev, record.dir_ino):
        return f"{Path(record.real).parent} (another directory now)"
    return None


def _undone_turns(messages: list[Message]) -> set[str]:
    return {str(m.metadata.extra[UNDO_KEY]) for m in messages if UNDO_KEY in m.metadata.extra}


def _not_run(output: str) -> bool:
    """True when a tool response says its call never ran (denied, refused, cancelled first)."""
    return (output in NOT_RUN_TEXTS or output.startswith(NOT_RUN_PREFIXES)
            or (output.startswith(STOPPED_PREFIX) and "before this tool call could run" in output))


def _untracked_calls(messages: list[Message]) -> list[str]:
    """The shell and extension calls among ``messages`` that ran: ``shell: COMMAND``, ``NAME``."""
    out = []
    never_ran = {r.id for m in messages for r in m.tool_responses
                 if r.is_error and _not_run(r.output)}
    for message in messages:
        for request in message.tool_requests:
            if request.name in UNDOABLE_TOOLS or request.id in never_ran:
                continue
            command = (request.arguments or {}).get("command")
            if request.name == "shell" and isinstance(command, str):
                out.append(f"shell: {command.strip().splitlines()[0] if command.strip() else ''}")
            else:
                out.append(request.name)
    counts: dict[str, int] = {}
    for call in out:
        counts[call] = counts.get(call, 0) + 1
    return [call if n == 1 else f"{call} (×{n})" for call, n in counts.items()]


def plan_undo(messages: list[Message], journal: EditJournal,
              imported_at: datetime | None = None) -> FileUndo:
    """What ``/undo`` would do now, checking the files but changing nothing.

    Args:
        messages: The session's whole conversation (transcript order).
        journal: The session's edit journal.
        imported_at: When the session was imported (``None``: it was not): a turn from
            before has nothing goosectx can undo, and the search stops there.
    """
    records = [r for r in journal.records() if not r.undone]
    by_turn: dict[str, list[EditRecord]] = {}
    for record in records:
        by_turn.setdefault(record.turn_id, []).append(record)
    undone = _undone_turns(messages)
    starts = [i for i, m in enumerate(messages) if m.is_user_request]
    for k in range(len(starts) - 1, -1, -1):
        turn = messages[starts[k]]
        end = starts[k + 1] if k + 1 < len(starts) else len(messages)
        edits = by_turn.get(turn.id, [])
        if imported_at is not None and turn.created < imported_at and not edits:
            return FileUndo(None, imported=True)  # another agent's turns from here back
        untracked = _untracked_calls(messages[starts[k]:end])
        if turn.id in undone or not (edits or untracked):
            continue
        plan = FileUndo(turn, untracked=untracked)
        named: dict[str, str] = {}  # the file written → the name the turn first gave it
        for record in edits:
            named.setdefault(record.file, record.path)
        for record in reversed(edits):
            plan.files.setdefault(named[record.file], []).append(record)
        for path, stack in plan.files.items():
            first, last = stack[-1], stack[0]
            elsewhere = _leads_elsewhere(last)
            if elsewhere is not None:
                plan.elsewhere[path] = elsewhere
                continue
            if first.secret:
                plan.not_kept[path] = SECRET_WHY
            elif not first.kept:
                plan.not_kept[path] = ("its earlier contents were dropped to keep the undo "
                                       "record small" if first.dropped else
                                       f"it was too large to keep ({first.size:,} bytes)")
            expected = {last.after_sha256} if last.written else {last.after_sha256,
                                                                 last.before_sha256}
            if first.before_sha256 == ABSENT:
                expected.add(ABSENT)  # created, then deleted: already as before the turn
            now = _current_sha(last.file)
            if now not in expected:
                plan.changed.append(path)
                if now == ABSENT:
                    plan.deleted.append(path)
        return plan
    return FileUndo(None)


def apply_undo(plan: FileUndo, journal: EditJournal, *, force: bool) -> FileUndo:
    """Restore the files of ``plan``; nothing is touched when a file changed, unless ``force``.

    Files whose earlier contents were not kept are left as they are. The turn's records are
    marked undone once its files are restored (the next ``/undo`` goes one turn further back).
    """
    if plan.turn is None or (plan.changed and not force):
        return plan
    done: list[EditRecord] = []
    for path, stack in plan.files.items():
        if path in plan.not_kept or path in plan.elsewhere:
            continue
        first = stack[-1]
        try:
            before = journal.before_bytes(first)
            if before is None:
                if os.path.lexists(first.file):
                    os.unlink(first.file)
                plan.removed.append(path)
                plan.removed_dirs += _remove_empty(first.made_dirs)
            else:
                atomic_write(Path(first.file), before, follow=False)
                plan.restored.append(path)
        except FileError as exc:
            plan.failed[path] = str(exc)
            continue
        except OSError as exc:
            plan.failed[path] = exc.strerror or str(exc)
            continue
        done.extend(stack)
    skipped = set(plan.not_kept) | set(plan.elsewhere)
    journal.mark_undone([r for path, stack in plan.files.items() for r in stack
                         if r in done or path in skipped])
    return plan


def _remove_empty(made: tuple[str, ...]) -> list[str]:
    """Remove the directories an edit created, deepest first, while they are empty."""
    removed = []
    for directory in made:
        if os.path.realpath(directory) != directory:
            break  # a symlink on the way now: that is not the directory the edit made
        try:
            os.rmdir(directory)  # refuses a non-empty directory
        except OSError:
            break
        removed.append(directory)
    return removed


def model_note(plan: FileUndo, working_dir: Path) -> str:
    """The text the model reads after an undo: which files the user undid."""
    def name(path: str) -> str:
        try:
            return str(Path(path).relative_to(working_dir))
        except ValueError:
            return path

    parts = [name(p) + RESTORED for p in plan.restored]
    parts += [name(p) + REMOVED for p in plan.removed]
    quoted = plan.turn.text.strip().splitlines()[0][:80] if plan.turn is not None else ""
    return (f"{UNDO_NOTE_START}the file edits you made for my message \"{quoted}\""
            + FILES_START + "; ".join(parts) + FILES_END
            + "read these files again before relying on or building on them.]")


def undo_messages(plan: FileUndo, working_dir: Path, notice: str) -> list[Message]:
    """The messages an undo adds: the user's notice, and the model's note (when files changed).

    Both carry the undone turn's id in ``metadata.extra`` (:data:`UNDO_KEY`), so the next
    ``/undo`` goes further back, after a resume too.
    """
    assert plan.turn is not None
    extra = {UNDO_KEY: plan.turn.id, "source_kind": "command"}
    shown = Message.notification(notice).with_metadata(extra=dict(extra))
    if not (plan.restored or plan.removed):
        return [shown]
    note = Message.user(model_note(plan, working_dir),
                        MessageMetadata(user_visible=False, agent_visible=True, extra=extra))
    return [shown, note]
