"""A small window holds few extension tools: loading one may unload another. The search result
names what it unloaded, and a deferred tool the model calls by its exact name runs (asked
about as usual) instead of failing, so a model that needs two tools gets both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from extension_support import demo_config

from goosectx.agent import Agent
from goosectx.approval import ApprovalDecision, deny_all
from goosectx.config import ApprovalMode, Settings
from goosectx.conversation import ToolRequest, ToolResponse
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.source import ExtensionToolSource
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.store import SessionStore
from goosectx.tools.builtin import default_registry, make_tool_context

LIMIT_TOKENS = 12_000
"""A 1,200-token tool budget: room for a few of the demo server's ``op_NNN`` tools."""


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtensionManager]:
    mgr = ExtensionManager([demo_config("demo", "--many", "12")],
                           tmp_path_factory.mktemp("deferred"))
    mgr.start()
    mgr.wait_ready()
    yield mgr
    mgr.stop_all()


def run_turn(tmp_path: Path, manager: ExtensionManager, replies: list[ScriptedReply],
             mode: ApprovalMode = "auto", approve: object = deny_all
             ) -> tuple[Agent, ScriptedProvider]:
    settings = Settings(data_dir=tmp_path / "data")
    store = SessionStore(settings.data_dir)
    provider = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    provider.add(*replies)
    session = store.create_session(tmp_path, name=None, model=provider.model)
    store.close()
    agent = Agent(session, settings, provider=provider, tools=default_registry(),
                  approve=approve, mode=mode,  # type: ignore[arg-type]
                  tool_context=make_tool_context(settings, tmp_path),
                  tool_source=ExtensionToolSource(manager, 0.10))
    list(agent.reply("use the operations"))
    return agent, provider


def search(query: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[("search_tools", {"query": query})])


def call(name: str, x: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[(name, {"x": x})])


def ops(request: object) -> list[str]:
    return [t["name"] for t in request.tools  # type: ignore[attr-defined]
            if t["name"].startswith("demo__op_")]


def outputs(agent: Agent) -> list[tuple[str, bool]]:
    """The stored tool results, in order: (text, is_error)."""
    return [(p.output, p.is_error) for m in agent.session.conversation for p in m.content
            if isinstance(p, ToolResponse)]


def fitting(tmp_path: Path, manager: ExtensionManager) -> int:
    """How many ``op_NNN`` tools the budget holds (at least 2)."""
    _agent, probe = run_turn(tmp_path / "probe", manager,
                             [*(search(f"demo__op_{n:03d}") for n in range(8)),
                              ScriptedReply("done")])
    fit = len(ops(probe.requests[-1]))
    assert 2 <= fit < 8
    return fit


def test_a_search_that_unloads_a_loaded_tool_names_it(tmp_path: Path,
                                                     manager: ExtensionManager) -> None:
    fit = fitting(tmp_path, manager)
    agent, provider = run_turn(tmp_path, manager,
                               [*(search(f"demo__op_{n:03d}") for n in range(fit + 1)),
                                ScriptedReply("done")])
    results = [text for text, _error in outputs(agent)]
    assert all("nload" not in text for text in results[:fit])  # those fit: nothing unloaded
    loaded, found, unloaded = results[fit].splitlines()
    assert loaded == "Loaded (callable from your next step):"
    assert found.startswith(f"demo__op_{fit:03d} — Operation number {fit}: ")
    assert unloaded == ("Unloaded to stay within the tool budget: demo__op_000 (still callable "
                        "by its exact name).")
    assert "demo__op_000" not in ops(provider.requests[-1])  # what it said happened


def test_a_deferred_tool_called_by_its_exact_name_runs(tmp_path: Path,
                                                      manager: ExtensionManager) -> None:
    fit = fitting(tmp_path, manager)
    agent, provider = run_turn(tmp_path, manager, [
        *(search(f"demo__op_{n:03d}") for n in range(fit + 1)),  # op_000 unloaded again
        call("demo__op_000", "first"), call(f"demo__op_{fit:03d}", "second"),
        call("demo__op_011", "never loaded"), ScriptedReply("done")])
    assert "demo__op_000" not in ops(provider.requests[fit + 1])
    assert outputs(agent)[fit + 1:] == [("operation 0 got first", False),
                                        (f"operation {fit} got second", False),
                                        ("operation 11 got never loaded", False)]
    assert ops(provider.requests[-1]) == ops(provider.requests[fit + 1])  # the list held
    list(agent.compact(strategy="extractive"))
    [summary] = [m.text for m in agent.session.conversation.agent_messages()
                 if m.metadata.is_summary]
    assert "deferred" not in summary and "search_tools" not in summary


def test_a_deferred_tool_called_by_name_is_asked_about_as_usual(
        tmp_path: Path, manager: ExtensionManager) -> None:
    asked: list[str] = []

    def approve(request: ToolRequest) -> ApprovalDecision:
        asked.append(request.name)
        return "deny"

    agent, provider = run_turn(tmp_path, manager, [call("demo__op_004", "x"),
                                                   ScriptedReply("done")],
                               mode="smart_approve", approve=approve)
    assert "demo__op_004" not in ops(provider.requests[0])
    assert asked == ["demo__op_004"]
    [(text, is_error)] = outputs(agent)
    assert is_error and "operation 4" not in text and "deferred" not in text


def test_a_tool_served_by_name_counts_as_used_at_the_next_load(
        tmp_path: Path, manager: ExtensionManager) -> None:
    _agent, provider = run_turn(tmp_path, manager, [
        call("demo__op_004", "x"), search("demo__op_007"), ScriptedReply("done")])
    assert ops(provider.requests[-1]) == ["demo__op_004", "demo__op_007"]
