"""``/undo``: walk back the file edits goosectx's text editor made for one user message.

The edits are journalled by the editor (:mod:`goosectx.file_journal`) under the id of the
user's message whose turn made them. ``/undo`` picks the newest user message whose turn
changed something and was not undone yet, checks that every file it touched still holds what
the edit wrote (a file changed since — by the user, the shell tool, another program — is not
overwritten unless forced), then restores each file to its contents before the turn's first
edit of it (newest edit first; a file the turn created is removed). Edits made through the
shell tool or an extension are named as not undoable: nothing records what they changed.

The core part: no terminal. The REPL's command is :mod:`goosectx.cli.file_undo_cmd`; the
messages it adds are :func:`undo_messages` (a transcript notice, and a note the model reads so
it does not build on edits that are gone). The earlier turn stays in the transcript as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from goosectx.approval import (
    CHAT_MODE_TEXT,
    DENIED_TEXT,
    NON_INTERACTIVE_DENIED_TEXT,
    STOPPED_PREFIX,
)
from goosectx.compaction.actions import UNDO_NOTE_START
from goosectx.conversation import Message, MessageMetadata
from goosectx.file_journal import ABSENT, SECRET_WHY, EditJournal, EditRecord
from goosectx.tools.files import FileError, atomic_write, digest

UNDO_KEY = "file_undo"
"""``metadata.extra`` key of the model's undo note: the id of the user message undone."""
UNDOABLE_TOOLS = ("text_editor", "tree")
"""Built-in tools whose changes ``/undo`` knows (the editor's) or that change nothing."""
NOT_RUN_TEXTS = frozenset((DENIED_TEXT, NON_INTERACTIVE_DENIED_TEXT, CHAT_MODE_TEXT))
NOT_RUN_PREFIXES = ("denied by the user: ", "This tool call is denied by the user's permission",
                    "There is no tool named ", "The call to ")
"""How the answers to calls that never ran start (``approval``, ``ToolRegistry.refusal``).
A Ctrl-C answer is not among them: a call stopped while it ran gets the same text."""


@dataclass(slots=True)
class FileUndo:
    """What ``/undo`` found for one user turn, then what it did.

    Attributes:
        turn: The user's message whose turn is undone (``None``: nothing left to undo).
        files: Path → (the turn's edits of it, newest first).
        changed: Paths that no longer hold what the turn's last edit wrote.
        not_kept: Path → why its earlier contents are not kept (too large, dropped).
        untracked: Calls of the turn whose changes cannot be known (``shell: make``).
        restored / removed: What was done (filled by :func:`apply_undo`).
        failed: Path → why writing it failed.
    """

    turn: Message | None
    files: dict[str, list[EditRecord]] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    not_kept: dict[str, str] = field(default_factory=dict)
    untracked: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


def _current_sha(path: str) -> str:
    try:
        return digest(Path(path).read_bytes()) if os.path.lexists(path) else ABSENT
    except OSError:
        return "unreadable"


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
    return out


def plan_undo(messages: list[Message], journal: EditJournal) -> FileUndo:
    """What ``/undo`` would do now, checking the files but changing nothing.

    Args:
        messages: The session's whole conversation (transcript order).
        journal: The session's edit journal.
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
        untracked = _untracked_calls(messages[starts[k]:end])
        edits = by_turn.get(turn.id, [])
        if turn.id in undone or not (edits or untracked):
            continue
        plan = FileUndo(turn, untracked=untracked)
        for record in reversed(edits):
            plan.files.setdefault(record.path, []).append(record)
        for path, stack in plan.files.items():
            first, last = stack[-1], stack[0]
            if first.secret:
                plan.not_kept[path] = SECRET_WHY
            elif not first.kept:
                plan.not_kept[path] = ("its earlier contents were dropped to keep the undo "
                                       "record small" if first.dropped else
                                       f"it was too large to keep ({first.size:,} bytes)")
            expected = {last.after_sha256} if last.written else {last.after_sha256,
                                                                 last.before_sha256}
            if _current_sha(path) not in expected:
                plan.changed.append(path)
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
        if path in plan.not_kept:
            continue
        first = stack[-1]
        try:
            before = journal.before_bytes(first)
            if before is None:
                if os.path.lexists(path):
                    os.unlink(path)
                plan.removed.append(path)
            else:
                atomic_write(Path(path), before)
                plan.restored.append(path)
        except FileError as exc:
            plan.failed[path] = str(exc)
            continue
        except OSError as exc:
            plan.failed[path] = exc.strerror or str(exc)
            continue
        done.extend(stack)
    journal.mark_undone([r for stack in plan.files.values() for r in stack
                         if r in done or stack[0].path in plan.not_kept])
    return plan


def model_note(plan: FileUndo, working_dir: Path) -> str:
    """The text the model reads after an undo: which files the user undid."""
    def name(path: str) -> str:
        try:
            return str(Path(path).relative_to(working_dir))
        except ValueError:
            return path

    parts = [f"{name(p)} (restored to its contents before that turn)" for p in plan.restored]
    parts += [f"{name(p)} (removed: that turn created it)" for p in plan.removed]
    quoted = plan.turn.text.strip().splitlines()[0][:80] if plan.turn is not None else ""
    return (f"{UNDO_NOTE_START}the file edits you made for my message "
            f"\"{quoted}\" are undone — " + "; ".join(parts) + ". Those edits are gone: read "
            "these files again before relying on or building on them.]")


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
