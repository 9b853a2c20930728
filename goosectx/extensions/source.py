"""The extensions as the agent's tool source: what each request offers, and the budget.

Implements ``tools.base.ToolSource`` (docs/architecture.md §1): the agent asks at the start of
every turn (never mid-turn, except after ``search_tools`` loaded a tool) which tools the
request carries. Extension tools come sorted by name after the built-ins, so the prefix of
the request is stable; ``tools/list_changed`` is applied here, between turns.

Tool definitions are budgeted (the anchor is the tool-search approach Claude Code adopted for
large MCP setups): when all schemas together exceed ``tool_budget_ratio`` × the context limit,
the request carries the built-in tools, the resource tools, ``search_tools`` and the extension
tools the messages the model sees used or loaded, the most recent first while they fit the
budget; the system prompt names the deferred ones (those of running servers: a server that
failed or exited has none). A tool ``search_tools`` returns is loaded from the next model call
on; an exact tool name loads that one tool, words load the best matches that fit the budget.
A tool less recently used or loaded than the ones that fill the budget is deferred again (the
search result that unloads it says so), and so is one whose use and load a compaction hid from
the model. A deferred tool the model calls by its exact name still runs (approval as usual):
a task that needs more tools than the budget holds gets them all.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.model import CallOutcome
from goosectx.extensions.names import model_tool_name
from goosectx.extensions.tools import ListResourcesTool, McpTool, ReadResourceTool, finish
from goosectx.providers.base import ToolSchema
from goosectx.tokens import TokenCounter
from goosectx.tools.base import Tool, ToolContext, ToolResult

SEARCH_RESULTS = 8
RESOURCE_TOOLS = frozenset({"list_resources", "read_resource"})


@dataclass(frozen=True, slots=True)
class Offer:
    """The tools one request carries.

    Attributes:
        tools: Extension, resource and search tools to offer, sorted by name.
        deferred: Names of extension tools left out (listed in the system prompt).
        all_schema_tokens: What every tool's schema together would cost, tokens.
    """

    tools: tuple[Tool, ...]
    deferred: tuple[str, ...] = ()
    all_schema_tokens: int = 0


class SearchToolsTool:
    """``search_tools``: find deferred extension tools by words; the ones found are loaded."""

    name = "search_tools"
    description = ("Search the extension tools that are not loaded yet (their names are listed "
                   "in the system prompt). Returns matching tool names with a one-line "
                   "description; the tools returned can be called from your next step on.")
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {"type": "string",
                                 "description": "Words describing what the tool should do, "
                                                "or a tool's exact name (loads that one)."}},
        "required": ["query"],
    }

    def __init__(self, source: ExtensionToolSource) -> None:
        self._source = source

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Searching changes nothing on disk."""
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The matches loaded, best first (:meth:`ExtensionToolSource.search`)."""
        query = str(arguments.get("query", ""))
        found, more = self._source.search(query, ctx.call_id)
        if not found:
            return ToolResult(f"No deferred tool matches {query!r}.")
        lines = [f"{name} — {summary}" for name, summary in found]
        if more:
            lines.append(f"({more} more match; the tool budget holds these: use more specific "
                         "words, or an exact tool name, to load another)")
        return finish(CallOutcome("Loaded (callable from your next step):\n" + "\n".join(lines)),
                      ctx, "mcp-search")


def _one_line(text: str) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line[:160]


class ExtensionToolSource:
    """The agent's view of the extensions (see the module docstring).

    Args:
        manager: The running extensions.
        budget_ratio: ``tool_budget_ratio`` (1 = never defer).
        counter: Token counter for schema costs.
    """

    def __init__(self, manager: ExtensionManager, budget_ratio: float = 0.10,
                 counter: TokenCounter | None = None) -> None:
        self.manager = manager
        self.budget_ratio = budget_ratio
        self.counter = counter or TokenCounter()
        self.loads = 0
        """Bumped whenever ``search_tools`` loads a tool (the agent then refreshes)."""
        self._lock = threading.Lock()
        self._search = SearchToolsTool(self)
        self._deferred: tuple[str, ...] = ()
        self._loaded_by: dict[str, tuple[str, ...]] = {}
        """``search_tools`` call id → the tools that call loaded."""
        self._room_tokens: int | None = None
        """What the budget leaves the loaded tools at the last :meth:`offer` (None: no deferral)."""

    @property
    def generation(self) -> int:
        """Changes when the extensions' tools or instructions may have changed."""
        return self.manager.generation

    def prepare_turn(self, cancel: threading.Event | None = None) -> list[str]:
        """Before a turn: wait (bounded) for starting servers, apply ``list_changed``.

        Returns:
            One-line notices for the user (a server still starting, one that failed, …).
        """
        waiting = self.manager.wait_ready(cancel)
        self.manager.refresh_changed()
        notices = self.manager.drain_notices()
        notices += [f"extension {name} is still starting; its tools are not offered this turn"
                    for name in waiting]
        return notices

    def _all_tools(self, live_only: bool = False) -> list[Tool]:
        tools: list[Tool] = []
        any_resources = False
        for status in self.manager.statuses():
            # A server that died keeps the tools the request carries offered (the list stays
            # stable; a call then returns an error naming it), but none of its tools is
            # deferred or found by search_tools. One that never started offers none.
            if status.status not in (("ready",) if live_only else ("ready", "failed")):
                continue
            trusted = bool(status.public.get("trusted"))
            tools.extend(McpTool(self.manager, status.name, t, trusted) for t in status.tools)
            any_resources = any_resources or bool(status.resources)
        if any_resources:
            tools += [ListResourcesTool(self.manager), ReadResourceTool(self.manager)]
        return sorted(tools, key=lambda t: t.name)

    def _cost(self, tool: Tool) -> int:
        return self.counter.count_tool_schemas([{"name": tool.name,
                                                 "description": tool.description,
                                                 "parameters": tool.parameters}])

    def offer(self, builtin: Sequence[ToolSchema], limit_tokens: int,
              recent: Sequence[str]) -> Offer:
        """The tools the next request carries besides the built-ins (sorted by name).

        Args:
            builtin: The built-in tools' schemas (always sent; they count in the budget).
            limit_tokens: The model's context limit.
            recent: Tools the messages the model sees used or ``search_tools`` loaded, least
                recent first (:func:`goosectx.tools.offering.recent_tools`; a refused call of
                a deferred tool is no use).
        """
        tools = self._all_tools()
        schemas = [*builtin, *({"name": t.name, "description": t.description,
                                "parameters": t.parameters} for t in tools)]
        total = self.counter.count_tool_schemas(schemas)
        if self.budget_ratio >= 1 or total <= self.budget_ratio * limit_tokens:
            self._deferred, self._room_tokens = (), None
            return Offer(tuple(tools), (), total)
        fixed = [t for t in tools if t.name in RESOURCE_TOOLS]
        fixed_tokens = self.counter.count_tool_schemas([
            *builtin, *({"name": t.name, "description": t.description,
                         "parameters": t.parameters} for t in [*fixed, self._search])])
        self._room_tokens = int(self.budget_ratio * limit_tokens) - fixed_tokens
        keep = {t.name for t in fixed} | self._kept(tools, recent, self._room_tokens)
        offered = [t for t in tools if t.name in keep]
        live = {t.name for t in self._all_tools(live_only=True)}
        self._deferred = tuple(t.name for t in tools if t.name not in keep and t.name in live)
        if not self._deferred:  # nothing to find (the built-ins alone are over the budget):
            return Offer(tuple(offered), (), total)  # no search_tools schema to pay for
        return Offer(tuple(sorted([*offered, self._search], key=lambda t: t.name)),
                     self._deferred, total)

    def _kept(self, tools: Iterable[Tool], recent: Sequence[str], room_tokens: int) -> set[str]:
        """The most recent of ``recent`` that fit ``room_tokens`` (the newest one always)."""
        by_name = {t.name: t for t in tools}
        kept: set[str] = set()
        spent = 0
        for name in reversed(recent):
            tool = by_name.get(name)
            if tool is None or name in kept or name in RESOURCE_TOOLS:
                continue
            cost = self._cost(tool)
            if kept and spent + cost > room_tokens:
                break
            kept.add(name)
            spent += cost
        return kept

    def unloaded(self, offered: Iterable[str], recent: Sequence[str]) -> list[str]:
        """Of the extension tools ``offered`` now, those the budget defers once ``recent`` is.

        ``recent`` as for :meth:`offer` (it ends with what a search just loaded); the room is
        the last :meth:`offer`'s. Names in ``offered``'s order; none when nothing is deferred.
        """
        if self._room_tokens is None:
            return []
        tools = self._all_tools()
        keep = self._kept(tools, recent, self._room_tokens)
        budgeted = {t.name for t in tools if t.name not in RESOURCE_TOOLS}
        return [name for name in offered if name in budgeted and name not in keep]

    def deferred_tool(self, name: str) -> Tool | None:
        """The deferred tool ``name`` of a running server (the model called it by name), else None.

        It runs as any call (approval as usual) without joining the list: the request's tools
        stay as they were until the next load, when the call counts as a use.
        """
        if name not in self._deferred:
            return None
        return next((t for t in self._all_tools(live_only=True) if t.name == name), None)

    def loaded_by(self, call_id: str) -> tuple[str, ...]:
        """The tools the ``search_tools`` call ``call_id`` loaded (none for any other call)."""
        return self._loaded_by.get(call_id, ())

    def refusal(self, name: str) -> str | None:
        """Why ``name``, a tool of an extension that is not running, cannot run (else ``None``).

        A server that died left the deferred list; one that could not start, is still starting
        or was not given again on resume (:attr:`ExtensionManager.absent`) never listed its
        tools: a call of any ``NAME__…`` of it is answered with the reason, naming it
        (:meth:`ExtensionManager.down_reason`), not "no tool named …"; so is a call of a tool
        its server lists but goosectx skipped (it runs only as a task).
        """
        tool = next((t for t in self._all_tools() if t.name == name), None)
        if isinstance(tool, McpTool):
            return tool.unavailable()
        owner = self.manager.owner(name)
        if owner is None:
            return None
        return self.manager.down_reason(owner) or self._skipped(owner, name)

    def _skipped(self, extension: str, name: str) -> str | None:
        """Why ``name``, a tool ``extension`` lists but skipped (a task-only tool), is not run."""
        status = next((s for s in self.manager.statuses() if s.name == extension), None)
        for item in status.skipped if status is not None else ():
            tool, _sep, why = item.partition(": ")
            if model_tool_name(extension, tool) == name:
                return (f"extension {extension} does not offer its tool {tool}: {why}; this "
                        "call was not run.")
        return None

    def search(self, query: str, call_id: str = "") -> tuple[list[tuple[str, str]], int]:
        """Deferred tools matching ``query``, loaded by the call ``call_id``, best first.

        A query that is a tool's exact name finds that one tool (one offered already is then
        the most recently loaded, not joined by others). Otherwise name and
        description words are scored and up to :data:`SEARCH_RESULTS` of the best are
        loaded, as many as the budget's room holds (at least one). :attr:`loads` is bumped
        when any is found.

        Returns:
            (name, one-line description) of the tools loaded, and how many more matched.
        """
        deferred = set(self._deferred)
        every = self._all_tools(live_only=True)  # a server that died is left out
        live = [t for t in every if t.name in deferred]
        exact: list[Tool] = [t for t in every if t.name.lower() == query.strip().lower()
                             and isinstance(t, McpTool)]  # an offered one: loaded anew
        if exact:
            matches = exact
        else:
            words = {w for w in re.findall(r"[a-z0-9]+", query.lower()) if len(w) > 1}
            scored = []
            for tool in live:
                hay = f"{tool.name} {tool.description}".lower()
                score = sum(3 if w in tool.name.lower() else 1 for w in words if w in hay)
                if score or not words:
                    scored.append((-score, tool.name, tool))
            matches = [tool for _, _, tool in sorted(scored, key=lambda s: s[:2])]
        found: list[Tool] = []
        spent = 0
        for tool in matches[:SEARCH_RESULTS]:
            cost = self._cost(tool)
            if found and self._room_tokens is not None and spent + cost > self._room_tokens:
                break
            found.append(tool)
            spent += cost
        if found:
            with self._lock:
                self._loaded_by[call_id] = tuple(t.name for t in found)
                self.loads += 1
        return [(t.name, _one_line(t.description)) for t in found], len(matches) - len(found)

    def instructions(self) -> list[tuple[str, str]]:
        """(extension, instructions) of ready servers that have any, sorted by name."""
        return [(s.name, s.instructions) for s in self.manager.statuses()
                if s.status == "ready" and s.instructions]

    def costs(self) -> list[tuple[str, int, int, int]]:
        """Per extension: (name, instruction tokens, schema tokens, resources), by name."""
        rows = []
        for status in self.manager.statuses():
            schemas = [{"name": t.model_name, "description": t.description,
                        "parameters": t.input_schema} for t in status.tools]
            rows.append((status.name, self.counter.count_text(status.instructions)
                         if status.instructions else 0,
                         self.counter.count_tool_schemas(schemas), len(status.resources)))
        return rows
