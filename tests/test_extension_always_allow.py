"""``a`` (always allow) at an untrusted extension tool the server annotates read-only.

The question offered "[a] always allow (this tool's read-only calls, until you exit)" — the
words of a ``text_editor view``, whose edits still ask — while README (Extensions >
Approval) says ``a`` applies to that one tool: an MCP tool's read-only claim is the whole
tool's, there are no other calls of it to keep asking about. ``a`` now says "this tool" and
allows the tool.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from extension_support import demo_config
from rich.console import Console
from test_extensions_repl import World

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.repl import Repl, ReplIO
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.source import ExtensionToolSource
from goosectx.providers.scripted import ScriptedReply
from goosectx.tools.builtin import default_registry, make_tool_context


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    manager = ExtensionManager([demo_config("demo")], tmp_path)
    try:
        yield World(tmp_path, manager)
    finally:
        manager.stop_all()


def _plain(world: World, typed: str) -> str:
    """The REPL's plain look in smart_approve (piped lines): the question shows its options."""
    def build(approve: ApprovalFn) -> Agent:
        return Agent(world.session, world.settings, provider=world.provider,
                     tools=default_registry(), approve=approve, mode="smart_approve",
                     tool_context=make_tool_context(world.settings, world.workdir),
                     tool_source=ExtensionToolSource(world.manager, 1.0))

    buf = io.StringIO()
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(Console(file=buf, width=200), plain=True, stdin=io.StringIO(typed),
                          echo=True),
                mode="smart_approve", agent_factory=build, background_checks=False,
                extensions=world.manager)
    assert repl.run() == 0
    return buf.getvalue()


def _echo(text: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[("demo__echo", {"text": text})])


def test_always_allow_at_a_read_only_extension_tool_says_and_allows_the_tool(
        world: World) -> None:
    world.provider.add(_echo("one"), "r1", _echo("two"), "r2")
    out = _plain(world, "echo\na\nagain\n")
    assert "[a] always allow (this tool, until you exit)" in out
    assert "read-only calls" not in out
    assert "demo__echo: always allow (this tool, until you exit)" in out
    assert out.count("goosectx asks: run demo__echo?") == 1
    answers = [r.output for m in world.provider.requests[-1].messages for r in m.tool_responses]
    assert answers == ["one", "two"]
