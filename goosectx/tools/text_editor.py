"""The ``text_editor`` tool: view, write and edit text files, with undo.

Commands follow the text-editor tool that Anthropic and goose offer models (``view``,
``write``/``create``, ``str_replace`` with a unique match, ``insert``, ``undo_edit``).
Files are read and written as bytes; text is UTF-8, and earlier contents kept for undo are
decoded with ``surrogateescape`` so an overwritten non-text file is restored byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.output import cap_text

COMMANDS = ("view", "write", "str_replace", "insert", "undo_edit")
MAX_DIR_ENTRIES = 200
"""Entries shown when ``view`` is given a directory."""
UNDO_DEPTH = 20
"""Earlier versions kept per file for ``undo_edit``."""
SNIPPET_CONTEXT_LINES = 4
"""Unchanged lines shown around an edit."""
_BINARY_SNIFF_BYTES = 8192


class _EditError(Exception):
    """A user-facing failure; becomes ``ToolResult(is_error=True)``."""


def _read_text(path: Path) -> str:
    """The file's text. Raises _EditError when missing, a directory, binary or not UTF-8."""
    if not path.exists():
        raise _EditError(f"{path} does not exist")
    if path.is_dir():
        raise _EditError(f"{path} is a directory, not a file")
    data = path.read_bytes()
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        raise _EditError(f"{path} is a binary file ({len(data):,} bytes); "
                         "text_editor only handles text files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _EditError(f"{path} is not UTF-8 text (invalid byte at offset {exc.start}); "
                         "text_editor only handles UTF-8 files") from None


def _previous(path: Path) -> str | None:
    """Contents to restore on undo: ``None`` when the file does not exist."""
    if not path.exists():
        return None
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise _EditError("the text contains characters that cannot be written as UTF-8 "
                         "(lone surrogates)") from None
    path.write_bytes(data)


def _numbered(lines: list[str], first_line: int) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start=first_line))


def _snippet(text: str, first_changed: int, last_changed: int) -> str:
    """Numbered lines ``first_changed..last_changed`` (1-based) with context around them."""
    lines = text.splitlines()
    start = max(1, first_changed - SNIPPET_CONTEXT_LINES)
    end = min(len(lines), last_changed + SNIPPET_CONTEXT_LINES)
    return _numbered(lines[start - 1 : end], start)


def _string_arg(arguments: dict[str, Any], name: str, *, default: str | None = None) -> str:
    value = arguments.get(name, default)
    if not isinstance(value, str):
        raise _EditError(f"'{name}' must be a string")
    return value


def _newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


class TextEditorTool:
    """Views, writes and edits files; every edit can be undone with ``undo_edit``."""

    name = "text_editor"
    description = (
        "View and edit text files. Commands: "
        "`view` shows a file with line numbers (optionally only `view_range`), or lists a "
        "directory; "
        "`write` creates or overwrites a file with `file_text` (parent directories are "
        "created); "
        "`str_replace` replaces `old_str` with `new_str` — `old_str` must match the file "
        "exactly once, whitespace included; "
        "`insert` inserts `new_str` after line `insert_line` (0 = at the top); "
        "`undo_edit` reverts the last write/str_replace/insert of `path`. "
        "Relative paths are relative to the working directory."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": list(COMMANDS)},
            "path": {"type": "string", "description": "File (or directory, for view)."},
            "view_range": {
                "type": "array",
                "items": {"type": "integer"},
                "minItems": 2,
                "maxItems": 2,
                "description": "view: [first, last] line, 1-based and inclusive; "
                "last = -1 means to the end of the file.",
            },
            "file_text": {"type": "string", "description": "write: the whole new content."},
            "old_str": {
                "type": "string",
                "description": "str_replace: exact text to replace; must occur once.",
            },
            "new_str": {
                "type": "string",
                "description": "str_replace: replacement (empty deletes); insert: text to "
                "insert.",
            },
            "insert_line": {
                "type": "integer",
                "description": "insert: line after which to insert; 0 inserts at the top.",
            },
        },
        "required": ["command", "path"],
    }

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """True only for ``view``."""
        return arguments.get("command") == "view"

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run one command; every failure is an error result naming the problem.

        Side effects: ``write``, ``str_replace`` and ``insert`` change the file and push its
        earlier contents onto ``ctx.undo[<absolute path>]``; ``undo_edit`` pops it.
        """
        command = arguments.get("command")
        handlers: dict[str, Callable[[Path, dict[str, Any], ToolContext], str]] = {
            "view": self._view,
            "write": self._write,
            "create": self._write,
            "str_replace": self._str_replace,
            "insert": self._insert,
            "undo_edit": self._undo,
        }
        handler = handlers.get(command) if isinstance(command, str) else None
        if handler is None:
            return ToolResult(f"unknown command {command!r}; use one of: " + ", ".join(COMMANDS),
                              is_error=True)
        raw_path = arguments.get("path")
        if not isinstance(raw_path, str) or not raw_path.strip():
            return ToolResult(f"{command} needs a 'path'", is_error=True)
        path = Path(os.path.abspath(ctx.working_dir / Path(raw_path).expanduser()))
        try:
            output = handler(path, arguments, ctx)
        except _EditError as exc:
            return ToolResult(f"{command} failed: {exc}", is_error=True)
        except OSError as exc:
            return ToolResult(f"{command} failed: {path}: {exc.strerror or exc}", is_error=True)
        return ToolResult(ctx.redact(cap_text(output, ctx.max_output_chars,
                                              "view a smaller view_range")))

    def _view(self, path: Path, arguments: dict[str, Any], ctx: ToolContext) -> str:
        if path.is_dir():
            return self._list_dir(path)
        lines = _read_text(path).splitlines()
        view_range = arguments.get("view_range")
        start, end = 1, len(lines)
        if view_range is not None:
            if (not isinstance(view_range, list) or len(view_range) != 2
                    or not all(isinstance(n, int) and not isinstance(n, bool)
                               for n in view_range)):
                raise _EditError("view_range must be two integers [first, last]")
            start, end = view_range
            end = len(lines) if end == -1 else min(end, len(lines))
            if lines and (start < 1 or start > len(lines) or end < start):
                raise _EditError(f"view_range {view_range} is outside {path}, which has "
                                 f"{len(lines)} lines")
        if not lines:
            return f"{path} is empty"
        return _numbered(lines[start - 1 : end], start)

    def _list_dir(self, path: Path) -> str:
        entries = sorted(os.scandir(path), key=lambda e: (not e.is_dir(), e.name))
        shown = [e.name + ("/" if e.is_dir() else "") for e in entries[:MAX_DIR_ENTRIES]]
        text = f"{path}/ ({len(entries)} entries)\n" + "\n".join(shown)
        if len(entries) > MAX_DIR_ENTRIES:
            text += (f"\n[... {len(entries) - MAX_DIR_ENTRIES} more entries not shown; "
                     "use the tree or shell tool]")
        return text

    def _remember(self, path: Path, ctx: ToolContext) -> None:
        stack = ctx.undo.setdefault(str(path), [])
        stack.append(_previous(path))
        del stack[:-UNDO_DEPTH]

    def _write(self, path: Path, arguments: dict[str, Any], ctx: ToolContext) -> str:
        text = _string_arg(arguments, "file_text")
        if path.is_dir():
            raise _EditError(f"{path} is a directory")
        existed = path.exists()
        self._remember(path, ctx)
        _write(path, text)
        verb = "Overwrote" if existed else "Created"
        return f"{verb} {path} ({len(text.splitlines())} lines, {len(text):,} characters)"

    def _str_replace(self, path: Path, arguments: dict[str, Any], ctx: ToolContext) -> str:
        old = _string_arg(arguments, "old_str")
        new = _string_arg(arguments, "new_str", default="")
        if not old:
            raise _EditError("old_str must not be empty")
        text = _read_text(path)
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
        self._remember(path, ctx)
        updated = text[:at] + new + text[at + len(old):]
        _write(path, updated)
        first = text.count("\n", 0, at) + 1
        last = first + new.count("\n")
        return f"Edited {path}: replaced 1 match.\n" + _snippet(updated, first, last)

    def _insert(self, path: Path, arguments: dict[str, Any], ctx: ToolContext) -> str:
        new = arguments.get("new_str", arguments.get("text"))
        if not isinstance(new, str):
            raise _EditError("insert needs 'new_str', the text to insert")
        line = arguments.get("insert_line")
        if not isinstance(line, int) or isinstance(line, bool):
            raise _EditError("insert needs 'insert_line', an integer (0 = at the top)")
        text = _read_text(path)
        lines = text.splitlines(keepends=True)
        if not 0 <= line <= len(lines):
            raise _EditError(f"insert_line {line} is outside {path}, which has {len(lines)} "
                             "lines (use 0 to insert at the top)")
        newline = _newline_of(text)
        if line > 0 and not lines[line - 1].endswith(("\n", "\r")):
            lines[line - 1] += newline
        if new and not new.endswith("\n"):
            new += newline
        self._remember(path, ctx)
        updated = "".join(lines[:line]) + new + "".join(lines[line:])
        _write(path, updated)
        added = len(new.splitlines())
        return (f"Inserted {added} lines into {path} after line {line}.\n"
                + _snippet(updated, line + 1, line + added))

    def _undo(self, path: Path, arguments: dict[str, Any], ctx: ToolContext) -> str:
        stack = ctx.undo.get(str(path))
        if not stack:
            raise _EditError(f"no edit of {path} to undo")
        before = stack.pop()
        if before is None:
            path.unlink(missing_ok=True)
            return f"Removed {path} (it did not exist before the last edit)"
        _write(path, before)
        return f"Restored {path} to its content before the last edit"
