"""The built-in tools' definitions as data: names, descriptions, parameter schemas.

The tool classes (:mod:`.shell`, :mod:`.text_editor`, :mod:`.tree`) take theirs from here, so
what they offer and what :class:`BuiltinDefinitions` offers are the same objects.
``goosectx compact`` (a ``--dry-run`` above all) counts the next request's system prompt and
tool schemas without running a tool: it reads them here and imports none of the tools'
implementations (docs/architecture.md §1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from goosectx.providers.base import ToolSchema

SHELL_NAME = "shell"
SHELL_DESCRIPTION = (
    "Run a bash command in the working directory and return its output and exit code. "
    "Each call starts a fresh shell (cd and variables do not persist) with stdin closed, "
    "so interactive programs will not work. Long output is cut in the middle and the full "
    "output saved to a file whose path is given. Prefer rg/grep/head/sed -n to printing "
    "whole large files."
)
SHELL_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "timeout_s": {
            "type": "number",
            "description": "Seconds before the command and all its child processes are "
            "killed. Defaults to the configured shell timeout.",
        },
    },
    "required": ["command"],
}

TEXT_EDITOR_NAME = "text_editor"
TEXT_EDITOR_COMMANDS = ("view", "write", "str_replace", "insert", "undo_edit")
TEXT_EDITOR_SAME = {"create": "write"}
"""Other words the tool takes for a command (``create`` runs ``write``): a permission rule is
matched on the command the tool runs (:mod:`goosectx.editor_rules`)."""
TEXT_EDITOR_DESCRIPTION = (
    "View and edit text files. Commands: "
    "`view` shows a file with line numbers (optionally only `view_range`), or lists a "
    "directory; "
    "`write` creates or overwrites a file with `file_text` (parent directories are "
    "created); "
    "`str_replace` replaces `old_str` with `new_str` — `old_str` must match the file "
    "exactly once, whitespace included; "
    "`insert` inserts `new_str` after line `insert_line` (0 = at the top); "
    "`undo_edit` reverts the last write/str_replace/insert of `path` made since "
    "goosectx started. "
    "Relative paths are relative to the working directory."
)
TEXT_EDITOR_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "enum": list(TEXT_EDITOR_COMMANDS)},
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

TREE_NAME = "tree"
TREE_DEFAULT_DEPTH = 3
"""Directory levels listed when the model gives no ``depth``."""
TREE_DESCRIPTION = (
    "List the files and directories under a directory as an indented tree, skipping "
    ".git and everything .gitignore ignores. Directories end with '/'; those deeper than "
    "`depth` show only how many entries they hold. Use it to get oriented in a project."
)
TREE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "Directory to list; defaults to the working directory.",
        },
        "depth": {
            "type": "integer",
            "description": f"Directory levels to show (1 = direct entries only); "
            f"default {TREE_DEFAULT_DEPTH}.",
        },
    },
}

BUILTIN: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (SHELL_NAME, SHELL_DESCRIPTION, SHELL_PARAMETERS),
    (TEXT_EDITOR_NAME, TEXT_EDITOR_DESCRIPTION, TEXT_EDITOR_PARAMETERS),
    (TREE_NAME, TREE_DESCRIPTION, TREE_PARAMETERS),
)
"""(name, description, parameters) of the built-in tools, in the order offered to the model
(:func:`goosectx.tools.builtin.default_registry`'s)."""


class ToolList(Protocol):
    """The tools a request offers, as the request's figures read them.

    :class:`~goosectx.tools.base.ToolRegistry`, or :class:`BuiltinDefinitions`.
    """

    def names(self) -> list[str]:
        """Tool names in the order offered."""
        ...

    def schemas(self) -> list[ToolSchema]:
        """``{"name", "description", "parameters"}`` of every tool, in order."""
        ...


class ToolExtras(Protocol):
    """What a tool source adds to a request (:class:`~goosectx.tools.offering.ToolOffering`)."""

    @property
    def deferred(self) -> tuple[str, ...]:
        """Names the tool budget left out (named in the system prompt)."""
        ...

    @property
    def settled(self) -> bool:
        """The source's tools have been offered once, or there is no source."""
        ...

    def instructions(self) -> list[tuple[str, str]]:
        """The source's instructions for the system prompt (sorted by name)."""
        ...


class BuiltinDefinitions:
    """The built-in tools alone, as offered with no tool source.

    A :class:`ToolList` and :class:`ToolExtras` made without importing a tool.
    """

    deferred: tuple[str, ...] = ()
    settled = True

    def names(self) -> list[str]:
        """The built-in tools' names, in the order offered."""
        return [name for name, _, _ in BUILTIN]

    def schemas(self) -> list[ToolSchema]:
        """The built-in tools' schemas, as :meth:`ToolRegistry.schemas` gives them."""
        return [{"name": name, "description": description, "parameters": parameters}
                for name, description, parameters in BUILTIN]

    def instructions(self) -> list[tuple[str, str]]:
        """None: no tool source."""
        return []
