"""The context meter when the fixed part of the request changed since the last report.

A session last run with a tool set (an extension's ~20k tokens of schemas) is resumed without
it: the stored report covered those schemas, so ``current`` — the toolbar, ``/context`` and
the auto-compaction trigger — must drop them (docs/architecture.md §5).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from compaction_support import REQUEST, SUMMARY_JSON, make_session, manager
from test_repl import CTRL_D, ENTER, World

from goosectx.compaction.figures import RequestContext
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolContext, ToolRegistry, ToolResult
from goosectx.tools.builtin import default_registry
from goosectx.usage import Usage

BIG_TOOLS_TOKENS = 20_000


class _BigTool:
    """A tool whose schema alone is ~``BIG_TOOLS_TOKENS`` tokens (an extension's many tools)."""

    name = "big_lookup"
    description = "look things up. " + "word " * BIG_TOOLS_TOKENS
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("nothing")


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def _meter(world: World) -> int:
    toolbar = "".join(text for _style, text in world.repl._toolbar())
    found = re.search(r"\(([\d,]+)/[\d,]+", toolbar)
    assert found, toolbar
    return int(found[1].replace(",", ""))


def _resume(world: World, keys: str) -> str:
    """Run the REPL on the session as a new process would load it."""
    world.session = world.stored()
    return world.run(keys + CTRL_D, resumed=True)


def _figure(out: str, label: str) -> int:
    found = re.search(label + r"\s+([\d,]+)", out)
    assert found, out
    return int(found[1].replace(",", ""))


def test_resumed_without_the_big_tools_the_meter_context_and_trigger_drop_them(
        world: World) -> None:
    world.provider.context_limit_tokens = 40_000
    for message in (Message.user("an earlier question " + "lorem " * 6_000),
                    Message.assistant("ok")):
        world.store.append_message(world.session.id, message)
    world.tools = ToolRegistry([*default_registry().tools(), _BigTool()])
    world.provider.add("first answer")  # its usage: the request as tiktoken counts it
    _resume(world, "hello" + ENTER)
    with_big_tools = _meter(world)
    assert with_big_tools > BIG_TOOLS_TOKENS + 6_000

    world.tools = default_registry()  # the extension is no longer configured
    out = _resume(world, "/context" + ENTER)
    next_request = _figure(out, "estimate of the next request")
    assert next_request < with_big_tools - BIG_TOOLS_TOKENS + 1_000
    assert abs(_figure(out, r"current \(what the trigger uses\)") - next_request) < 100
    assert abs(_meter(world) - next_request) < 100

    # 6,000 tokens more: over 80 % of the limit by the stale figure, far under it really.
    world.store.append_message(world.session.id, Message.user("look " * 6_000))
    world.provider.add(ScriptedReply("second answer", usage=None), SUMMARY_JSON)
    out = _resume(world, "go on" + ENTER)
    assert "second answer" in out
    assert [r.system.startswith("You are goosectx") for r in world.provider.requests] == [
        True, True]  # no summary call between the two answers
    assert not any(m.metadata.is_summary for m in world.stored().conversation)


def test_tools_removed_mid_session_are_dropped_from_current() -> None:
    session = make_session([Message.user("hi"), Message.assistant("hello")])
    cm = manager(session, ScriptedProvider([]))
    big = {"name": "big", "description": "word " * BIG_TOOLS_TOKENS, "parameters": {}}
    with_tools = RequestContext(REQUEST.system_prompt, "", [big])
    cm.record_call(Usage.of(BIG_TOOLS_TOKENS + 500, 10), with_tools, model="m")
    assert cm.current_tokens(with_tools) == (BIG_TOOLS_TOKENS + 510, False)
    tokens, is_estimate = cm.current_tokens(REQUEST)  # /extension remove: no schemas now
    assert tokens == BIG_TOOLS_TOKENS + 510 - cm.counter.count_tool_schemas([big])
    assert is_estimate


def test_an_older_session_without_the_fixed_part_keeps_its_reported_figure() -> None:
    session = make_session([Message.user("hi"), Message.assistant("hello")])
    session.ledger.current_tokens, session.ledger.current_is_estimate = 7000, False
    cm = manager(session, ScriptedProvider([]))
    assert cm.current_tokens(RequestContext("another system prompt " * 100)) == (7000, False)


def test_before_the_extension_tools_are_offered_the_report_is_not_lowered() -> None:
    """A resumed REPL draws its toolbar before the first turn picks up the extensions' tools:
    the request then lacks tools the session still has, so the report stays as it was."""
    session = make_session([Message.user("hi"), Message.assistant("hello")])
    cm = manager(session, ScriptedProvider([]))
    big = {"name": "big", "description": "word " * BIG_TOOLS_TOKENS, "parameters": {}}
    cm.record_call(Usage.of(BIG_TOOLS_TOKENS + 500, 10),
                   RequestContext(REQUEST.system_prompt, "", [big]), model="m")
    unsettled = RequestContext(REQUEST.system_prompt, "", [], tools_settled=False)
    assert cm.current_tokens(unsettled) == (BIG_TOOLS_TOKENS + 510, False)
