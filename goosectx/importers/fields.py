"""The fields of an imported record, checked as they are read: text, tool calls.

A field of the wrong JSON type (a tool call named ``["x"]``, a text part ``5``) is a one-line
error naming the file, the line or record and the field, as :mod:`.figures` does for token
counts — never a message built from ``str()`` of it. See docs/architecture.md §8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goosectx.importers.builder import format_error
from goosectx.parts import json_kind


def text_field(path: Path, where: str, record: dict[str, Any], name: str) -> str:
    """``record[name]`` as text: ``""`` when absent or null.

    Raises:
        ImportFormatError: any other JSON type, naming the file, ``where`` and the field.
    """
    value = record.get(name)
    if value is None or isinstance(value, str):
        return value or ""
    raise format_error(path, where, f'"{name}" must be text, not {json_kind(value)}')


def check_tool_call(path: Path, where: str, call: dict[str, Any],
                    fields: tuple[str | None, str, str] = ("id", "name", "arguments"), *,
                    json_text: bool = False) -> None:
    """Refuse a tool call whose id or name is no text, or whose arguments are no object.

    ``fields`` names the call's id (``None``: it has none), name and arguments in its
    format; ``json_text``: the format writes arguments as JSON text (OpenAI), which is taken
    too — text that does not parse is kept with its parse error (:func:`parse_arguments`), as
    a model may write it.

    Raises:
        ImportFormatError: naming the file, ``where`` and the field.
    """
    for name in fields[:2]:
        if name is not None:
            text_field(path, where, call, name)
    arguments = call.get(fields[2])
    if arguments is None or isinstance(arguments, dict) or (
            json_text and isinstance(arguments, str)):
        return
    wanted = "an object or JSON text" if json_text else "an object"
    raise format_error(path, where, f'"{fields[2]}" must be {wanted}, not {json_kind(arguments)}')


def reused_id_note(reused: list[tuple[str, str]], field: str) -> str:
    """The import's note for records that reuse an earlier record's id for another message.

    All are kept; ``reused`` holds (where, where the id was first) of each, ``field`` names
    the id (``id``, ``uuid``).
    """
    (where, first), more = reused[0], len(reused) - 1
    if not more:
        return f"{where} reuses the {field} of {first} (another message): both are kept"
    return (f"{len(reused)} records reuse an earlier record's {field} for another message "
            f"(first {where}, the {field} of {first}): all are kept")
