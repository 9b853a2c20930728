"""The ``text_editor`` tool: view, write and edit text files, with undo."""

from __future__ import annotations

from typing import Any

from goosectx.tools.base import ToolContext, ToolResult


class TextEditorTool:
    """Views and edits files (work in progress: implementation follows)."""

    name = "text_editor"
    description = "View, create and edit text files."
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "enum": ["view", "write", "str_replace", "insert", "undo_edit"],
            },
            "path": {"type": "string"},
        },
        "required": ["command", "path"],
    }

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """True only for ``view``."""
        return arguments.get("command") == "view"

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Not implemented yet."""
        return ToolResult("text_editor is not implemented yet", is_error=True)
