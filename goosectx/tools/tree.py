"""The ``tree`` tool: the files under a directory, respecting .gitignore."""

from __future__ import annotations

from typing import Any

from goosectx.tools.base import ToolContext, ToolResult


class TreeTool:
    """Lists a directory tree (work in progress: implementation follows)."""

    name = "tree"
    description = "List the files under a directory, skipping what .gitignore ignores."
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "depth": {"type": "integer"},
        },
    }

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Always: listing changes nothing."""
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Not implemented yet."""
        return ToolResult("tree is not implemented yet", is_error=True)
