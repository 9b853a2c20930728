"""The ``text_editor`` tool: view, write and edit text files, with undo.

Commands follow the text-editor tool that Anthropic and goose offer models (``view``,
``write``/``create``, ``str_replace`` with a unique match, ``insert``, ``undo_edit``).
Files are read as bytes through :mod:`goosectx.tools.files` and written through
:mod:`goosectx.tools.file_writes`: ``view`` reads only
regular files and only as far as the asked range; every write is atomic and keeps the
file's mode, owner and line endings (those most of its lines use: CRLF stays CRLF, and one
stray CRLF line keeps an LF file LF). Text is UTF-8; earlier contents kept for undo are
decoded with ``surrogateescape`` so an overwritten non-text file is restored byte for byte,
and undo refuses when the file changed since the tool wrote it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.parts import json_kind
from goosectx.sensitive import expand_user
from goosectx.testhooks import pause_point
from goosectx.tools.base import ToolContext, ToolResult, UndoEntry, working_dir_gone
from goosectx.tools.definitions import (
    TEXT_EDITOR_COMMANDS,
    TEXT_EDITOR_DESCRIPTION,
    TEXT_EDITOR_NAME,
    TEXT_EDITOR_PARAMETERS,
    TEXT_EDITOR_SAME,
)
from goosectx.tools.files import FileError

if TYPE_CHECKING:  # the editing modules load at the first call (not for the schema alone)
    from goosectx.file_journal import EditRecord
    from goosectx.tools.edit_target import EditTarget

COMMANDS = TEXT_EDITOR_COMMANDS
EDIT_COMMANDS = ("write", *TEXT_EDITOR_SAME, "str_replace", "insert", "undo_edit")
"""Commands that change a file: their result carries a diff for the transcript."""
UNDO_DEPTH = 20
"""Earlier versions kept per file for ``undo_edit``."""
_CHANGES = {"write": "file rewritten", "create": "file rewritten",
            "str_replace": "1 replacement", "insert": "1 insertion",
            "undo_edit": "last edit undone"}
"""What each command did, said in a diff too large to show (``edit_diff``'s ``change``)."""


class _EditError(FileError):
    """A user-facing failure; becomes ``ToolResult(is_error=True)``."""


def _journal(ctx: ToolContext, target: EditTarget, before: bytes | None,
             after_sha256: str) -> EditRecord | None:
    """Record an edit for ``/undo`` before it is made (``target.undo_note``: it cannot be)."""
    from goosectx.file_journal import ABSENT, MAX_KEPT_FILE_BYTES
    from goosectx.tools.file_writes import missing_dirs
    from goosectx.tools.files import digest

    path = target.path
    if ctx.edits is None:
        return None
    small = before is not None and len(before) <= MAX_KEPT_FILE_BYTES  # else not kept anyway
    text = before.decode("utf-8", "surrogateescape") if small and before is not None else ""
    record, why = ctx.edits.begin(ctx.turn_id, ctx.call_id, path, before, after_sha256,
                                  ABSENT if before is None else digest(before),
                                  secret=ctx.redact(text) != text, made_dirs=missing_dirs(path))
    target.undo_note = _undo_note(path, why)
    return record


def _undo_note(path: Path, why: str | None) -> str:
    """The note saying ``/undo`` will not be able to restore ``path`` (``why``: none, it will)."""
    from goosectx.tools.editdiff import NOT_UNDOABLE

    return f"{NOT_UNDOABLE}{path}: {why})" if why else ""


def _in_gone_working_dir(raw_path: str, path: Path, ctx: ToolContext) -> str | None:
    """Why a call cannot use ``path``: it is in (or relative to) a working dir that is gone.

    A write there would recreate the working dir (``atomic_write`` makes the missing
    directories); it is refused the way a shell command is, with the same fix. A path
    outside the working dir (absolute) is not affected; ``None``: the call may go on.
    """
    wd = ctx.working_dir
    if os.path.isdir(wd):
        return None
    relative = not os.path.isabs(expand_user(raw_path))
    if not relative and os.path.commonpath([wd, path]) != str(wd):
        return None
    return working_dir_gone(wd, "no file in it can be read or written")


def _said(note: str) -> str:
    """``note`` as the result's last line ("" when there is none)."""
    return "\n" + note if note else ""


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise _EditError("the text contains characters that cannot be written as UTF-8 "
                         "(lone surrogates)") from None


def _string_arg(arguments: dict[str, Any], name: str, *, default: str | None = None) -> str:
    value = arguments.get(name, default)
    if not isinstance(value, str):
        raise _EditError(f"'{name}' must be a string")
    return value


class TextEditorTool:
    """Views, writes and edits files; an edit made in this process can be undone (``undo_edit``)."""

    name = TEXT_EDITOR_NAME
    nul_free = {"path": "a file path"}
    """Arguments that cannot hold a NUL character (``ToolRegistry.nul_refusal``)."""
    description = TEXT_EDITOR_DESCRIPTION
    parameters: dict[str, Any] = TEXT_EDITOR_PARAMETERS

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """True only for ``view``."""
        return arguments.get("command") == "view"

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run one command; every failure is an error result naming the problem.

        Side effects: ``write``, ``str_replace`` and ``insert`` change the file and push its
        earlier contents onto ``ctx.undo[<absolute path>]``; ``undo_edit`` pops it.
        """
        from goosectx.tools.edit_target import label, open_target
        from goosectx.tools.editdiff import edit_diff
        from goosectx.tools.output import cap_text
        from goosectx.tools.view import view

        command = arguments.get("command")
        handlers: dict[str, Callable[[EditTarget, dict[str, Any], ToolContext], str]] = {
            "write": self._write,
            "str_replace": self._str_replace,
            "insert": self._insert,
            "undo_edit": self._undo,
        }
        handlers |= {word: handlers[same] for word, same in TEXT_EDITOR_SAME.items()}
        handler = handlers.get(command) if isinstance(command, str) else None
        if handler is None and command != "view":
            return ToolResult(f"unknown command {command!r}; use one of: " + ", ".join(COMMANDS),
                              is_error=True)
        raw_path = arguments.get("path")
        if raw_path is not None and not isinstance(raw_path, str):
            return ToolResult(f"'path' must be text (the file's path as a JSON string), not "
                              f"{json_kind(raw_path)}", is_error=True)
        if not isinstance(raw_path, str) or not raw_path.strip():
            return ToolResult(f"{command} needs a 'path'", is_error=True)
        path = Path(os.path.abspath(ctx.working_dir / expand_user(raw_path)))
        if (gone := _in_gone_working_dir(raw_path, path, ctx)) is not None:
            return ToolResult(f"{command} failed: {gone}", is_error=True)
        try:
            if handler is None:
                return ToolResult(ctx.redact(cap_text(view(path, arguments, ctx),
                                                      ctx.max_output_chars,
                                                      "view a smaller view_range")))
            target = open_target(path, ctx)  # the one file read, shown and written
            before = target.before()
            output = handler(target, arguments, ctx)
            after = target.after
        except FileError as exc:
            return ToolResult(f"{command} failed: {exc}", is_error=True)
        except OSError as exc:
            return ToolResult(f"{command} failed: {path}: {exc.strerror or exc}", is_error=True)
        change = _CHANGES.get(str(command), "") if before is not None else "file created"
        diff = ctx.redact(edit_diff(before, after, label(path, ctx), change))
        if diff and target.undo_note:  # the user reads the diff, not the output
            diff += ctx.redact("\n" + target.undo_note)
        if diff and target.split_note:  # said above the diff's headers
            diff = ctx.redact(target.split_note) + "\n" + diff
        return ToolResult(ctx.redact(cap_text(output, ctx.max_output_chars,
                                              "view a smaller view_range")), diff=diff or None)

    def dry_run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult | None:
        """What this edit would give, computed without changing anything (``None``: not an edit).

        An edit that would fail gives its error here, so the agent answers it without asking
        the user to approve a call that cannot succeed (a missing ``old_str``, a binary file).
        """
        if arguments.get("command") not in EDIT_COMMANDS:
            return None
        dry = replace(ctx, capture={}, undo={k: list(v) for k, v in ctx.undo.items()})
        return self.run(arguments, dry)

    def preview(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """The unified diff this edit would make, computed without changing anything.

        Returns:
            The diff (:func:`~goosectx.tools.editdiff.edit_diff`), or ``None`` when the call
            is not an edit or would fail.
        """
        result = self.dry_run(arguments, ctx)
        return None if result is None or result.is_error else result.diff

    def target_state(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """The file an edit changes, as it is now (``files.file_state``); ``None``: no edit."""
        raw = arguments.get("path")
        if arguments.get("command") not in EDIT_COMMANDS or not isinstance(raw, str):
            return None
        from goosectx.tools.files import file_state

        return file_state(Path(os.path.abspath(ctx.working_dir / expand_user(raw))))

    def _save(self, target: EditTarget, text: str, ctx: ToolContext) -> tuple[str, str]:
        """Write ``text`` to the target's file atomically, then push the undo entry for this edit.

        The edit is journalled for ``/undo`` first (``ctx.edits``). In a dry run
        (``ctx.capture``, a preview) the text is only recorded there.

        Returns:
            The path as the result names it (:func:`~goosectx.tools.edit_target.named`, by
            the file written), and the notes the output ends with: the hard links the write
            splits, ``/undo`` not able to restore the file (``target.split_note`` /
            ``target.undo_note``; "" when neither).
        """
        from goosectx.file_journal import too_large_why
        from goosectx.tools.edit_target import named, split_links_note
        from goosectx.tools.file_writes import atomic_write
        from goosectx.tools.files import digest

        path, real = target.path, target.real
        target.after = text
        target.split_note = split_links_note(path, target.links)  # counted when it was read
        links = _said(target.split_note)
        if ctx.capture is not None:  # a preview still says what /undo will not restore
            ctx.capture[str(path)] = text
            size = len(target.data or b"") if ctx.edits is not None else 0
            target.undo_note = _undo_note(path, too_large_why(size))
            return named(path, real, ctx), links + _said(target.undo_note)
        pause_point("edit:read")  # tests swap the file on the way here
        target.unchanged()  # the file read is still the one at the path written
        before = target.before()
        data = _encode(text)
        record = _journal(ctx, target, target.data, digest(data))
        pause_point("edit:resolved")  # tests swap a directory on the way here
        atomic_write(real, data, follow=False, resolved=True)
        if ctx.edits is not None:
            ctx.edits.finish(record)
        stack = ctx.undo.setdefault(str(path), [])
        stack.append(UndoEntry(before, digest(data)))
        del stack[:-UNDO_DEPTH]
        return named(path, real, ctx), links + _said(target.undo_note)

    def _write(self, target: EditTarget, arguments: dict[str, Any], ctx: ToolContext) -> str:
        from goosectx.tools.edit_text import newline_of, with_newline
        from goosectx.tools.files import split_lines

        text = _string_arg(arguments, "file_text")
        if target.is_dir:
            raise _EditError(f"{target.path} is a directory")
        existed = target.data is not None
        if existed:
            text = with_newline(text, newline_of(target.text()))
        shown, note = self._save(target, text, ctx)
        verb = "Overwrote" if existed else "Created"
        lines = len(split_lines(text))
        return (f"{verb} {shown} ({lines:,} line{'' if lines == 1 else 's'}, "
                f"{len(text):,} character{'' if len(text) == 1 else 's'})" + note)

    def _str_replace(self, target: EditTarget, arguments: dict[str, Any],
                     ctx: ToolContext) -> str:
        from goosectx.tools.edit_text import newline_of, snippet, with_newline

        old = _string_arg(arguments, "old_str")
        new = _string_arg(arguments, "new_str", default="")
        if not old:
            raise _EditError("old_str must not be empty")
        path, text = target.path, target.text()
        if old not in text and "\r\n" in text and "\r\n" not in old:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
        if count == 0:
            raise _EditError(f"old_str was not found in {path} (0 matches); it must match "
                             "exactly, whitespace and indentation included — view the file "
                             "and copy the text")
        if count > 1:
            lines, at = [], 0
            for _ in range(min(count, 10)):
                at = text.index(old, at)
                lines.append(str(text.count("\n", 0, at) + 1))
                at += len(old)
            raise _EditError(f"old_str matches {count} times in {path} (at lines "
                             f"{', '.join(lines)}); it must match exactly once — include "
                             "more surrounding lines to make it unique")
        at = text.index(old)
        new = with_newline(new, newline_of(text))
        updated = text[:at] + new + text[at + len(old):]
        shown, note = self._save(target, updated, ctx)
        first = text.count("\n", 0, at) + 1
        last = first + new.count("\n")
        return (f"Edited {shown}: replaced 1 match.\n"
                + snippet(updated, first, last) + note)

    def _insert(self, target: EditTarget, arguments: dict[str, Any], ctx: ToolContext) -> str:
        from goosectx.tools.edit_text import newline_of, snippet, with_newline
        from goosectx.tools.files import split_lines

        new = arguments.get("new_str", arguments.get("text"))
        if not isinstance(new, str):
            raise _EditError("insert needs 'new_str', the text to insert")
        line = arguments.get("insert_line")
        if not isinstance(line, int) or isinstance(line, bool):
            raise _EditError("insert needs 'insert_line', an integer (0 = at the top)")
        path, text = target.path, target.text()
        lines = [f"{piece}\n" for piece in split_lines(text)]
        if lines and not text.endswith("\n"):
            lines[-1] = lines[-1][:-1]
        if not 0 <= line <= len(lines):
            raise _EditError(f"insert_line {line} is outside {path}, which has {len(lines)} "
                             "lines (use 0 to insert at the top)")
        newline = newline_of(text)
        if line > 0 and not lines[line - 1].endswith("\n"):
            lines[line - 1] += newline
        if new and not new.endswith("\n"):
            new += newline
        new = with_newline(new, newline)
        updated = "".join(lines[:line]) + new + "".join(lines[line:])
        shown, note = self._save(target, updated, ctx)
        added = len(split_lines(new))
        return (f"Inserted {added} lines into {shown} after line {line}.\n"
                + snippet(updated, line + 1, line + added) + note)

    def _undo(self, target: EditTarget, arguments: dict[str, Any], ctx: ToolContext) -> str:
        from goosectx.file_journal import ABSENT
        from goosectx.tools.file_writes import atomic_write
        from goosectx.tools.files import digest

        path = target.path
        stack = ctx.undo.get(str(path))
        if not stack:
            raise _EditError(f"no edit of {path} to undo (undo_edit reverts only the edits "
                             "made since goosectx started) — view the file and edit it instead")
        entry = stack[-1]
        now = target.data
        if now is None or digest(now) != entry.after_sha256:
            what = "was deleted" if now is None else "no longer holds what text_editor wrote"
            raise _EditError(f"{path} changed since text_editor's last edit (it {what}); "
                             "undo_edit would overwrite that change, so nothing was restored "
                             "— view the file and edit it instead")
        target.after = entry.before
        if ctx.capture is not None:  # a preview: what undo would leave, nothing changed
            ctx.capture[str(path)] = entry.before
            return "(preview)"
        target.unchanged()
        stack.pop()
        data = None if entry.before is None else _encode(entry.before)
        record = _journal(ctx, target, now, ABSENT if data is None else digest(data))
        note = _said(target.undo_note)
        if data is None:
            target.real.unlink()
        else:
            atomic_write(target.real, data, follow=False, resolved=True)
        if ctx.edits is not None:
            ctx.edits.finish(record)
        if data is None:
            return f"Removed {path} (it did not exist before the last edit)" + note
        return f"Restored {path} to its content before the last edit" + note
