"""The ``shell`` tool: one ``bash -c`` command in the session's working directory."""

from __future__ import annotations

from typing import Any

from goosectx.tools.base import ToolContext, ToolResult


class ShellTool:
    """Runs a shell command (work in progress: implementation follows)."""

    name = "shell"
    description = (
        "Run a bash command in the working directory and return its stdout, stderr and exit "
        "code. Each call starts a fresh shell (no state is kept between calls) with stdin "
        "closed, so interactive commands fail. Long outputs are cut in the middle; the full "
        "output is saved to a file whose path is given. Prefer rg/grep/head over dumping "
        "large files."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command to run."},
            "timeout_s": {
                "type": "number",
                "description": "Seconds before the command and its children are killed.",
            },
        },
        "required": ["command"],
    }

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Never: a shell command can change anything."""
        return False

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Not implemented yet."""
        return ToolResult("shell is not implemented yet", is_error=True)
