"""Tool definitions are budgeted: past ``tool_budget_ratio`` of the context limit, extension
tools are deferred behind ``search_tools``; a tool it finds is offered from the next call on
(test_extensions_loaded_bound.py: for how long); the request's tool list is sorted and stable
otherwise."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from extension_support import demo_config

from goosectx.agent import Agent
from goosectx.approval import ApprovalDecision, deny_all
from goosectx.config import Settings
from goosectx.conversation import ToolRequest, ToolResponse
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.source import ExtensionToolSource
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.store import SessionStore
from goosectx.tools.builtin import default_registry, make_tool_context


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtensionManager]:
    mgr = ExtensionManager([demo_config("demo")], tmp_path_factory.mktemp("budget"))
    mgr.start()
    mgr.wait_ready()
    yield mgr
    mgr.stop_all()


def agent_for(tmp_path: Path, manager: ExtensionManager, ratio: float,
              provider: ScriptedProvider) -> Agent:
    settings = Settings(data_dir=tmp_path / "data")
    store = SessionStore(settings.data_dir)
    session = store.create_session(tmp_path, name=None, model=provider.model)
    store.close()
    return Agent(session, settings, provider=provider, tools=default_registry(),
                 approve=deny_all, mode="auto",
                 tool_context=make_tool_context(settings, tmp_path),
                 tool_source=ExtensionToolSource(manager, ratio))


def names(request: object) -> list[str]:
    return [t["name"] for t in request.tools]  # type: ignore[attr-defined]


def test_under_budget_every_tool_is_offered_sorted(tmp_path: Path,
                                                   manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=200_000)
    provider.add(ScriptedReply("hi"), ScriptedReply("again"))
    agent = agent_for(tmp_path, manager, 0.10, provider)
    list(agent.reply("hello"))
    list(agent.reply("hello again"))
    first, second = provider.requests
    assert names(first)[:3] == ["shell", "text_editor", "tree"]
    assert names(first)[3:] == sorted(names(first)[3:])
    assert "demo__echo" in names(first) and "search_tools" not in names(first)
    assert "list_resources" in names(first) and "read_resource" in names(first)
    assert first.tools == second.tools and first.system == second.system


def test_over_budget_tools_are_deferred_and_search_loads_them(
        tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=4_000)
    provider.add(ScriptedReply(tool_calls=[("search_tools", {"query": "echo text back"})]),
                 ScriptedReply(tool_calls=[("demo__echo", {"text": "loaded"})]),
                 ScriptedReply("done"), ScriptedReply("next turn"))
    agent = agent_for(tmp_path, manager, 0.10, provider)
    list(agent.reply("echo something"))
    list(agent.reply("and now?"))
    search, echo, done, later = provider.requests
    assert "demo__echo" not in names(search) and "search_tools" in names(search)
    assert "demo__echo" in search.system and "search_tools" in search.system
    assert "demo__echo" in names(echo)  # loaded from the next call on
    assert "demo__echo" in names(later) and "demo__echo" in names(done)
    outputs = [p.output for m in agent.session.conversation for p in m.content
               if isinstance(p, ToolResponse)]
    assert "demo__echo — Echo the text back." in outputs[0]
    assert outputs[1] == "loaded"


def test_a_deferred_tool_called_by_name_runs_and_the_list_holds(
        tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=4_000)
    provider.add(ScriptedReply(tool_calls=[("demo__echo", {"text": "direct"})]),
                 ScriptedReply("ok"))
    agent = agent_for(tmp_path, manager, 0.10, provider)
    list(agent.reply("echo something"))
    first, second = provider.requests
    assert "demo__echo" not in names(first) and first.tools == second.tools
    (response,) = [p for m in agent.session.conversation for p in m.content
                   if isinstance(p, ToolResponse)]
    assert (response.output, response.is_error) == ("direct", False)


def test_ratio_one_never_defers(tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=4_000)
    provider.add(ScriptedReply("hi"))
    agent = agent_for(tmp_path, manager, 1.0, provider)
    list(agent.reply("hello"))
    assert "demo__echo" in names(provider.requests[0])
    assert "search_tools" not in names(provider.requests[0])


def kill_doomed(mgr: ExtensionManager) -> None:
    """Start ``mgr``'s servers, then have ``doomed`` killed by SIGTERM (checked)."""
    mgr.start()
    mgr.wait_ready()
    found = mgr.find_tool("doomed__crash")
    assert found is not None
    mgr.call_tool("doomed", found[1], {"by_signal": "SIGTERM"})
    deadline = time.monotonic() + 10
    while (mgr.statuses()[1].status != "failed") and time.monotonic() < deadline:
        time.sleep(0.05)
    doomed = mgr.statuses()[1]
    assert (doomed.name, doomed.status, doomed.error) == ("doomed", "failed",
                                                          "killed by SIGTERM")


def with_a_dead_server(tmp_path: Path, limit: int, ratio: float, replies: list[ScriptedReply],
                       approve: object = None) -> tuple[Agent, ScriptedProvider]:
    """One turn of an agent whose server ``doomed`` was killed (``demo`` lives) after setup."""
    mgr = ExtensionManager([demo_config("demo"), demo_config("doomed")], tmp_path)
    try:
        kill_doomed(mgr)
        provider = ScriptedProvider(context_limit_tokens=limit)
        provider.add(*replies)
        agent = agent_for(tmp_path, mgr, ratio, provider)
        if approve is not None:
            agent.approve, agent.mode = approve, "approve"  # type: ignore[assignment]
        list(agent.reply("go on"))
    finally:
        mgr.stop_all()
    return agent, provider


def test_a_dead_servers_tools_leave_the_deferred_list_and_search(tmp_path: Path) -> None:
    agent, provider = with_a_dead_server(tmp_path, 4_000, 0.10, [
        ScriptedReply(tool_calls=[("search_tools", {"query": "echo text back"})]),
        ScriptedReply("done")])
    search, done = provider.requests
    assert "demo__echo" in search.system and "doomed__" not in search.system
    outputs = [p.output for m in agent.session.conversation for p in m.content
               if isinstance(p, ToolResponse)]
    assert "demo__echo — Echo the text back." in outputs[0] and "doomed__" not in outputs[0]
    assert "demo__echo" in names(done) and not any(n.startswith("doomed__") for n in names(done))


def test_a_call_to_a_dead_servers_tool_is_refused_without_asking(tmp_path: Path) -> None:
    asked: list[str] = []

    def approve(request: ToolRequest) -> ApprovalDecision:
        asked.append(request.name)
        return "allow_once"

    agent, provider = with_a_dead_server(tmp_path, 200_000, 1.0, [
        ScriptedReply(tool_calls=[("doomed__fail", {})]),
        ScriptedReply(tool_calls=[("demo__fail", {})]), ScriptedReply("done")], approve)
    assert "doomed__fail" in names(provider.requests[0])  # still offered: the list is stable
    outputs = [(p.output, p.is_error) for m in agent.session.conversation for p in m.content
               if isinstance(p, ToolResponse)]
    assert outputs[0] == ("extension doomed failed: killed by SIGTERM; this call was not run.",
                          True)
    assert asked == ["demo__fail"]  # the live server's call was asked about, as before


def test_a_call_to_a_dead_servers_deferred_tool_says_why_it_cannot_run(tmp_path: Path) -> None:
    agent, provider = with_a_dead_server(tmp_path, 4_000, 0.10, [  # its tools are deferred
        ScriptedReply(tool_calls=[("doomed__echo", {"text": "x"})]), ScriptedReply("done")])
    assert "doomed__echo" not in names(provider.requests[0])
    [output] = [p.output for m in agent.session.conversation for p in m.content
                if isinstance(p, ToolResponse)]
    assert output == "extension doomed failed: killed by SIGTERM; this call was not run."


def test_the_request_says_its_tools_are_settled_only_once_extension_tools_are_offered(
        tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=200_000)
    provider.add(ScriptedReply("hi"))
    agent = agent_for(tmp_path, manager, 0.10, provider)
    before = agent.request_context  # what a resumed REPL's toolbar reads before a turn
    assert not before.tools_settled and "demo__echo" not in str(before.tool_schemas)
    list(agent.reply("hello"))
    after = agent.request_context
    assert after.tools_settled and "demo__echo" in str(after.tool_schemas)
