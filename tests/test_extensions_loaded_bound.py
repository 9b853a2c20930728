"""The tools ``search_tools`` loads stay a bounded set: an exact name loads that one tool, the
loaded ones stay within the tool budget (the least recently used or loaded go back to
deferred) and a compaction keeps loaded only what the messages the model still sees use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from extension_support import demo_config

from goosectx.agent import Agent
from goosectx.approval import deny_all
from goosectx.config import Settings
from goosectx.conversation import ToolResponse
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.source import ExtensionToolSource
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter
from goosectx.tools.builtin import default_registry, make_tool_context

LIMIT_TOKENS = 12_000
"""The tool budget is 1,200 tokens: the built-ins and search_tools leave room for a few of
the demo server's ``op_NNN`` tools (about 80 tokens each), not for 40 of them."""


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtensionManager]:
    mgr = ExtensionManager([demo_config("demo", "--many", "40")],
                           tmp_path_factory.mktemp("bound"))
    mgr.start()
    mgr.wait_ready()
    yield mgr
    mgr.stop_all()


def agent_for(tmp_path: Path, manager: ExtensionManager, provider: ScriptedProvider,
              **settings: Any) -> Agent:
    config = Settings(data_dir=tmp_path / "data", **settings)
    store = SessionStore(config.data_dir)
    session = store.create_session(tmp_path, name=None, model=provider.model)
    store.close()
    return Agent(session, config, provider=provider, tools=default_registry(),
                 approve=deny_all, mode="auto",
                 tool_context=make_tool_context(config, tmp_path),
                 tool_source=ExtensionToolSource(manager, 0.10))


def ops(request: object) -> list[str]:
    """The ``op_NNN`` tools a request carries."""
    return [t["name"] for t in request.tools  # type: ignore[attr-defined]
            if t["name"].startswith("demo__op_")]


def search(query: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[("search_tools", {"query": query})])


def test_an_exact_name_loads_that_one_tool(tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    provider.add(search("demo__op_017"), ScriptedReply("done"))
    agent = agent_for(tmp_path, manager, provider)
    list(agent.reply("use op 17"))
    first, after = provider.requests
    assert ops(first) == [] and ops(after) == ["demo__op_017"]


def test_loaded_tools_stay_within_the_tool_budget_least_recent_dropped(
        tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    provider.add(search("demo__op_000"),
                 ScriptedReply(tool_calls=[("demo__op_000", {"x": "a"})]),
                 *(search(f"demo__op_{n:03d}") for n in range(1, 12)),
                 search("operation number lorem ipsum"), ScriptedReply("done"))
    agent = agent_for(tmp_path, manager, provider)
    list(agent.reply("use many operations"))
    counter = TokenCounter()
    for request in provider.requests:
        assert counter.count_tool_schemas(request.tools) <= 0.10 * LIMIT_TOKENS
    last = provider.requests[-2]  # the request after op_011's search
    assert "demo__op_011" in ops(last) and "demo__op_010" in ops(last)
    assert "demo__op_000" not in ops(last) and "demo__op_001" not in ops(last)
    assert "demo__op_000" in last.system and "demo__op_001" in last.system  # deferred again
    assert 2 < len(ops(last)) < 10
    words = [p.output for m in agent.session.conversation for p in m.content
             if isinstance(p, ToolResponse)][-1]
    assert words.startswith("Loaded (callable from your next step):\ndemo__op_")
    loaded = words.splitlines()[1:-2]
    assert words.splitlines()[-2] == (
        f"({40 - len(ops(last)) - len(loaded)} more match; the tool budget holds these: use "
        "more specific words, or an exact tool name, to load another)")
    assert ops(provider.requests[-1]) == sorted(line.split(" — ")[0] for line in loaded)
    unloaded = sorted(set(ops(last)) - set(ops(provider.requests[-1])))
    assert unloaded and words.splitlines()[-1] == (  # the search says what it unloaded
        f"Unloaded to stay within the tool budget: {', '.join(unloaded)} (each still callable "
        "by its exact name).")


def test_a_compaction_keeps_loaded_only_the_tools_the_kept_messages_use(
        tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    provider.add(search("demo__op_005"), ScriptedReply("loaded " + "word " * 800),
                 ScriptedReply("next"))
    agent = agent_for(tmp_path, manager, provider, keep_recent_ratio=0.0)
    list(agent.reply("load op 5"))
    list(agent.compact(strategy="extractive"))
    list(agent.reply("go on"))
    _search, loaded, after = provider.requests
    assert ops(loaded) == ["demo__op_005"]
    assert ops(after) == [] and "demo__op_005" in after.system  # deferred again


def test_a_tool_called_again_outlasts_ones_loaded_before_it(
        tmp_path: Path, manager: ExtensionManager) -> None:
    probe = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    probe.add(*(search(f"demo__op_{n:03d}") for n in range(10)), ScriptedReply("done"))
    list(agent_for(tmp_path / "probe", manager, probe).reply("load ten"))
    fit = len(ops(probe.requests[-1]))  # how many op tools the budget holds
    assert fit >= 2
    provider = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    provider.add(*(search(f"demo__op_{n:03d}") for n in range(fit)),
                 ScriptedReply(tool_calls=[("demo__op_000", {"x": "again"})]),
                 search(f"demo__op_{fit:03d}"), ScriptedReply("done"))
    agent = agent_for(tmp_path, manager, provider)
    list(agent.reply("use some operations"))
    before, last = provider.requests[-2:]
    assert ops(before) == [f"demo__op_{n:03d}" for n in range(fit)]
    assert "demo__op_000" in ops(last) and f"demo__op_{fit:03d}" in ops(last)
    assert "demo__op_001" not in ops(last) and len(ops(last)) == fit


def test_the_exact_name_of_a_loaded_tool_loads_no_other(
        tmp_path: Path, manager: ExtensionManager) -> None:
    provider = ScriptedProvider(context_limit_tokens=LIMIT_TOKENS)
    provider.add(search("demo__op_003"), search("demo__op_003"), ScriptedReply("done"))
    agent = agent_for(tmp_path, manager, provider)
    list(agent.reply("use op 3"))
    _first, loaded, again = provider.requests
    assert ops(loaded) == ops(again) == ["demo__op_003"]
