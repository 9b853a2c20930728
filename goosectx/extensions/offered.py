"""Which of a server's listed tools are offered to the model, and under which names.

A tool whose input schema is not a usable JSON object schema, that runs only as an MCP task,
or that has the name of a tool listed before it is skipped; the others get their
model names from :func:`~goosectx.extensions.names.map_tool_names`. Each skip, and each tool
not offered as its plain ``NAME__tool`` because another holds that name, is a note for the
user (the server's own names are in it: the front end sanitises notices).
"""

from __future__ import annotations

from typing import Any

from goosectx.extensions.model import ToolInfo
from goosectx.extensions.names import clash_note, map_tool_names

_JSON_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}


def schema_problem(schema: object) -> str | None:
    """Why ``schema`` cannot be offered as a tool's input schema, or ``None``."""
    if not isinstance(schema, dict):
        return "its input schema is not a JSON object"
    if schema.get("type", "object") != "object":
        return f"its input schema has type {schema.get('type')!r}, not 'object'"
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return "its input schema's 'properties' is not an object"
    for key, value in props.items():
        if not isinstance(value, dict | bool):
            return f"its input schema's property {key!r} is not a schema"
        kinds = value.get("type") if isinstance(value, dict) else None
        for kind in kinds if isinstance(kinds, list) else [kinds]:
            if kind is not None and kind not in _JSON_TYPES:
                return f"its input schema's property {key!r} has unknown type {kind!r}"
    return None


def task_problem(tool: Any) -> str | None:
    """Why ``tool`` cannot be called as a plain tool call: it runs only as a task, or ``None``.

    A tool declaring ``execution.taskSupport`` ``"required"`` (server-everything's
    simulate-research-query) refuses every call not augmented as an MCP task, which goosectx
    does not make: offered, each of its calls failed.
    """
    execution = getattr(tool, "execution", None)
    if getattr(execution, "task_support", None) != "required":
        return None
    return ('it runs only as a task (execution.taskSupport "required"), which goosectx does '
            "not call")


def offer_tools(extension: str, tools: list[Any], taken: set[str]
                ) -> tuple[tuple[ToolInfo, ...], tuple[str, ...], tuple[str, ...]]:
    """The tools offered, the skipped ones (``"NAME: why"``) and the renamed ones' notes.

    Args:
        extension: The extension's name.
        tools: The server's tools as its ``tools/list`` gave them (mcp ``Tool`` objects).
        taken: Model tool names already in use (built-in tools, other extensions).
    """
    valid, skipped, names = [], [], set()
    for tool in tools:
        # a second tool of one name: the first keeps it (its calls reach the one listed)
        problem = (f"a second tool named {tool.name}" if tool.name in names
                   else task_problem(tool) or schema_problem(tool.input_schema))
        names.add(tool.name)
        if problem:
            skipped.append(f"{tool.name}: {problem}")
        else:
            valid.append(tool)
    mapping = map_tool_names(extension, [t.name for t in valid], taken)
    holders = {model: name for name, model in mapping.items()}
    renamed = tuple(f"tool {name} is offered as {model} ({why})"
                    for name, model in mapping.items()
                    if (why := clash_note(extension, name, model, holders)))
    offered = tuple(ToolInfo(
        t.name, mapping[t.name], t.description or t.title or "", dict(t.input_schema),
        bool(t.annotations and t.annotations.read_only_hint),
        t.annotations.model_dump(exclude_none=True) if t.annotations else {})
        for t in valid)
    return offered, tuple(skipped), renamed
