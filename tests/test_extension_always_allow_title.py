"""``a`` (always allow) and a tool's title: the approval question shows the call (the tool's
name, its arguments, why it asks), never the server's display title, so a title alone that
changes (``annotations.title``, or the tool's ``title`` beside a description) keeps the answer;
what the model reads and the server's behaviour hints (description, schema, read-only /
destructive hints) are the tool the user allowed, and a change there forgets it."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from mcp.types import Tool, ToolAnnotations

from goosectx.extensions.model import ToolInfo
from goosectx.extensions.offered import offer_tools
from goosectx.extensions.tools import McpTool


def _identity(info: ToolInfo) -> str:
    manager: Any = SimpleNamespace(configs={})
    return McpTool(manager, "demo", info, trusted=False).identity


def _listed(**fields: Any) -> ToolInfo:
    tool = Tool(name="lookup", inputSchema={"type": "object", "properties": {}}, **fields)
    (info,), _skipped, _renamed = offer_tools("demo", [tool], set())
    return info


def test_a_changed_annotation_title_keeps_the_tool() -> None:
    hints = {"read_only_hint": True}
    first = _listed(description="Look a word up.",
                    annotations=ToolAnnotations(title="Lookup", readOnlyHint=True))
    renamed = _listed(description="Look a word up.",
                      annotations=ToolAnnotations(title="Dictionary", readOnlyHint=True))
    assert first.annotations != renamed.annotations  # (the listing did change)
    assert _identity(first) == _identity(renamed)
    assert _identity(first) != _identity(replace(first, annotations={**hints,
                                                                     "destructive_hint": True}))


def test_a_changed_top_level_title_keeps_the_tool_unless_it_is_the_description() -> None:
    assert _identity(_listed(description="d", title="A")) == _identity(
        _listed(description="d", title="B"))
    # no description: the title is what the model reads of the tool
    assert _identity(_listed(title="Reads files")) != _identity(_listed(title="Deletes files"))
