"""Extensions: what tool deferral saves, what a load costs, and REPL launch with servers.

1. **First request, with and without deferral**: the tokens of the first request (system
   prompt + tool schemas + one short user message) with ``server-everything``, ``git`` and
   ``time`` configured and a small context limit (:data:`SMALL_LIMIT_TOKENS`), at
   ``tool_budget_ratio`` 0.10 (deferral) and 1 (off). The real servers are taken from PATH or
   ``$GOOSECTX_MCP_BIN``; without them three copies of the test server stand in (the note
   says which).
2. **A load in prompt-cache terms**: ``search_tools`` loading one tool changes the tool list,
   so the cached prefix breaks at the tools: the tokens re-read uncached are the loaded
   tool's schema plus everything after the tool block (system prompt and messages so far).
3. **REPL launch → prompt drawn and a typed key echoed**, in a pty, with 3 stdio extensions
   configured against none (target: within 0.1 s).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import ROOT, Figure, quick_arg

SMALL_LIMIT_TOKENS = 32_000
LAUNCH_MAX_EXTRA_S = 0.1
DEMO = ROOT / "tests" / "mcp_servers" / "demo_server.py"


def _find(program: str) -> str | None:
    extra = os.environ.get("GOOSECTX_MCP_BIN", "")
    return shutil.which(program, path=os.pathsep.join(filter(None, [extra,
                                                                     os.environ["PATH"]])))


def _configs() -> tuple[list[Any], str]:
    from goosectx.extensions.config import parse_table

    time_bin, git_bin = _find("mcp-server-time"), _find("mcp-server-git")
    everything = _find("mcp-server-everything")
    if time_bin and git_bin and everything:
        return [parse_table("time", {"cmd": time_bin}),
                parse_table("git", {"cmd": git_bin, "args": ["--repository", str(ROOT)]}),
                parse_table("everything", {"cmd": everything, "args": ["stdio"]})], \
            "server-everything + mcp-server-git + mcp-server-time"
    demo = [parse_table(n, {"cmd": sys.executable, "args": [str(DEMO), "--name", n]})
            for n in ("demo1", "demo2", "demo3")]
    return demo, "3 × the test server (real servers not installed)"


def _first_request(manager: Any, ratio: float, work: Path) -> tuple[int, Any]:
    from goosectx.agent import Agent
    from goosectx.approval import deny_all
    from goosectx.config import Settings
    from goosectx.extensions.source import ExtensionToolSource
    from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
    from goosectx.store import SessionStore
    from goosectx.tokens import TokenCounter
    from goosectx.tools.builtin import default_registry, make_tool_context

    settings = Settings(data_dir=work / f"data-{ratio}")
    store = SessionStore(settings.data_dir)
    session = store.create_session(work, name=None, model="scripted/test-model")
    store.close()
    provider = ScriptedProvider(context_limit_tokens=SMALL_LIMIT_TOKENS)
    provider.add(ScriptedReply("ok"))
    agent = Agent(session, settings, provider=provider, tools=default_registry(),
                  approve=deny_all, mode="auto",
                  tool_context=make_tool_context(settings, work),
                  tool_source=ExtensionToolSource(manager, ratio))
    list(agent.reply("What is the time?"))
    request = provider.requests[0]
    counter = TokenCounter()
    total = (counter.count_text(request.system) + counter.count_tool_schemas(request.tools)
             + counter.count_messages(request.messages))
    return total, (agent, request, counter)


def token_figures() -> list[Figure]:
    """Rows 1 and 2 (see the module docstring)."""
    from goosectx.extensions.manager import ExtensionManager

    configs, label = _configs()
    work = Path(tempfile.mkdtemp(prefix="goosectx-bench-ext-"))
    manager = ExtensionManager(configs, work, ["shell", "text_editor", "tree"])
    try:
        manager.start()
        manager.wait_ready()
        deferred, (agent, request, counter) = _first_request(manager, 0.10, work)
        full, _ = _first_request(manager, 1.0, work)
        tools = sum(len(s.tools) for s in manager.statuses())
        source = agent.offering.source
        one = next(t for t in source._all_tools() if t.name not in
                   {x["name"] for x in request.tools})
        schema = counter.count_tool_schemas([{"name": one.name, "description": one.description,
                                              "parameters": one.parameters}])
        after = counter.count_text(request.system) + counter.count_messages(request.messages)
    finally:
        manager.stop_all()
    saved = Figure("first request, tool deferral on (ratio 0.10)", deferred, "tokens",
                   "deferral off (ratio 1)", full, "info", None,
                   f"{label}; {tools} extension tools; limit {SMALL_LIMIT_TOKENS:,} tokens; "
                   f"saves {full - deferred:,} tokens ({1 - deferred / full:.0%}) per request")
    load = Figure("one search_tools load, uncached prefix", schema + after, "tokens",
                  "", None, "info", None,
                  f"loading {one.name}: its schema {schema:,} tokens + the system prompt and "
                  f"messages after the tool block {after:,} tokens are re-read uncached once")
    return [saved, load]


def _launch_once(config_text: str) -> float:
    """Seconds from spawning the REPL in a pty to its prompt drawn and a typed key echoed."""
    import pexpect

    with tempfile.TemporaryDirectory(prefix="goosectx-bench-launch-") as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(config_text)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GOOSE_")}
        env.update(GOOSECTX_HOME=str(Path(tmp) / "home"), GOOSECTX_CONFIG=str(config),
                   PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color")
        exe = Path(sys.executable).parent / "goosectx"
        start = time.perf_counter()
        child = pexpect.spawn(str(exe), cwd=tmp, env=env, dimensions=(40, 110),
                              encoding="utf-8", timeout=60)
        child.expect("❯")
        child.send("z")
        child.expect("z")
        elapsed = time.perf_counter() - start
        child.send("\x7f")  # erase it, then Ctrl-D leaves (and stops the servers)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        child.close()
    return elapsed


def launch_figure(quick: bool) -> Figure:
    """Row 3: REPL launch with 3 stdio extensions against none.

    The two launches alternate (none, three, none, three, …) so a slow moment of a shared
    machine hits both; the figure is the median of each and the verdict the median of the
    paired differences.
    """
    repeat = 5 if quick else 11
    demo = "".join(f'[extensions.d{i}]\ncmd = "{sys.executable}"\nargs = ["{DEMO}"]\n'
                   for i in range(3))
    _launch_once("")  # warm the file cache for both
    pairs = [(_launch_once(""), _launch_once(demo)) for _ in range(repeat)]
    none = statistics.median(p[0] for p in pairs)
    three = statistics.median(p[1] for p in pairs)
    extra = statistics.median(p[1] - p[0] for p in pairs)
    return Figure("REPL launch → prompt + key echoed, 3 stdio extensions", three, "s",
                  "no extensions", none, f"≤ baseline + {LAUNCH_MAX_EXTRA_S} s",
                  extra <= LAUNCH_MAX_EXTRA_S,
                  f"{repeat} alternating pairs; median extra {extra * 1000:+.0f} ms; servers "
                  "start in the background after the prompt is drawn; mcp is imported on that "
                  "thread")


def run(quick: bool = False) -> list[Figure]:
    """Every extension figure."""
    return [*token_figures(), launch_figure(quick)]


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
