"""Tool names offered to the model: ``NAME__tool`` (goose's convention), provider-safe.

Providers accept tool names matching ``^[a-zA-Z0-9_-]{1,64}$``. Other characters become
``_``; a name that is still too long, or that collides with another after replacement, is
shortened and ends with ``_`` + 8 hex digits of a SHA-1 of the original ``NAME__tool``, so
the same server always gets the same names (the prefix of the request stays cacheable).
A name that needed no rewriting claims its model name first: of ``get.data`` and ``get_data``,
``get_data`` is ``NAME__get_data`` and ``get.data`` gets the suffix, so a call, a permission
rule or an "always allow" naming ``NAME__get_data`` reaches the tool the server calls that.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

MAX_TOOL_NAME_CHARS = 64
TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SEPARATOR = "__"
_BAD = re.compile(r"[^a-zA-Z0-9_-]")


def _hashed(raw: str, text: str) -> str:
    digest = hashlib.sha1(raw.encode("utf-8")).hexdigest()[:8]
    return f"{text[: MAX_TOOL_NAME_CHARS - 9]}_{digest}"


def model_tool_name(extension: str, tool: str) -> str:
    """The name the model sees for ``tool`` of ``extension`` (no collision handling)."""
    raw = f"{extension}{SEPARATOR}{tool}"
    text = _BAD.sub("_", raw)
    if len(text) > MAX_TOOL_NAME_CHARS:
        return _hashed(raw, text)
    return text


def map_tool_names(extension: str, tools: Iterable[str],
                   taken: Iterable[str] = ()) -> dict[str, str]:
    """``{server's tool name: model tool name}`` for one server, collision-free.

    Args:
        extension: The extension's name.
        tools: The server's tool names, in the server's order.
        taken: Names already in use (built-in tools, other extensions).

    Returns:
        A mapping in the order of ``tools``; every value matches :data:`TOOL_NAME_RE` and no
        two values (nor a value and ``taken``) are equal. The tools whose ``NAME__tool`` is
        already provider-safe are named before those rewritten, so they keep it.
    """
    tools = list(tools)
    used = set(taken)
    named: dict[str, str] = {}
    as_is = {t for t in tools if model_tool_name(extension, t) == f"{extension}{SEPARATOR}{t}"}
    for tool in [t for t in tools if t in as_is] + [t for t in tools if t not in as_is]:
        raw = f"{extension}{SEPARATOR}{tool}"
        name = model_tool_name(extension, tool)
        if name in used:
            name = _hashed(raw, name)
        n = 2
        while name in used:  # a hash collision: practically never
            name = _hashed(f"{raw}#{n}", name)
            n += 1
        used.add(name)
        named[tool] = name
    return {tool: named[tool] for tool in tools}


def clash_note(extension: str, tool: str, model_name: str, holders: Mapping[str, str]) -> str:
    """Why ``tool`` is not offered as its plain ``NAME__tool``, or ``""`` when it is.

    ``holders`` maps this server's model tool names to its tools' own names:
    ``"demo__get_data is its tool get_data"``, else ``"demo__get_data is taken"`` (a built-in
    or another extension holds it).
    """
    plain = model_tool_name(extension, tool)
    if plain == model_name:
        return ""
    holder = holders.get(plain)
    return f"{plain} is its tool {holder}" if holder is not None else f"{plain} is taken"
