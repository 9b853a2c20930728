"""What a request offers: the built-in tools, then a tool source's (the extensions').

docs/architecture.md §1. The agent asks :meth:`ToolOffering.sync` at the start of every turn
and after ``search_tools`` loaded a tool (the one deliberate mid-turn change); otherwise the
list stays as it was, so the cached prefix of the request stays valid. A deferred tool the model
calls by its exact name still runs (:meth:`ToolOffering.served`), without changing the list.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from goosectx.conversation import Message, ToolResponse
from goosectx.tools.base import Tool, ToolRegistry, ToolSource


def deferred_text(name: str) -> str:
    """What a call of the deferred tool ``name`` was answered before such calls ran.

    Kept to read stored sessions: such a call was refused, not run (:func:`recent_tools`).
    """
    return (f"{name} is deferred to save context: call search_tools to load it (it is "
            "offered from the next call).")


def recent_tools(history: Iterable[Message],
                 loaded_by: Callable[[str], Sequence[str]]) -> list[str]:
    """Tools the calls in ``history`` used or ``search_tools`` loaded, least recent first.

    A tool counts at its call's response, and a loaded one at the response of the
    ``search_tools`` call that loaded it (``loaded_by(call id)``); a deferred one the model
    called by name counts at that call's response. A call answered with :func:`deferred_text`
    (an older session's) was refused, not run: it is no use of that tool.
    """
    latest: dict[str, str] = {}  # call id → the name of the last request with that id
    order: dict[str, None] = {}  # insertion order = recency, least recent first
    for message in history:
        for request in message.tool_requests:
            latest[request.id] = request.name
        for response in message.tool_responses:
            name = latest.get(response.id, "")
            if not name or (response.is_error and response.output == deferred_text(name)):
                continue
            for touched in (name, *loaded_by(response.id)):
                order.pop(touched, None)
                order[touched] = None
    return list(order)


class ToolOffering:
    """The agent's tool list and the tool source behind it.

    Attributes:
        registry: The tools offered now (built-ins first, then the source's, sorted).
        source: The tool source, or ``None`` (built-ins only).
        deferred: Names the tool budget left out (named in the system prompt).
    """

    def __init__(self, builtin: ToolRegistry, source: ToolSource | None) -> None:
        self.registry = builtin
        self.source = source
        self.deferred: tuple[str, ...] = ()
        self._builtin = builtin.tools()
        self._state: tuple[int, int, str] | None = None

    def instructions(self) -> list[tuple[str, str]]:
        """The source's instructions for the system prompt (sorted by name)."""
        return self.source.instructions() if self.source else []

    def prepare_turn(self, cancel: threading.Event) -> list[str]:
        """Let the source get ready for a turn; its notices for the user."""
        return self.source.prepare_turn(cancel) if self.source else []

    @property
    def settled(self) -> bool:
        """The source's tools have been offered once (:meth:`sync`), or there is no source."""
        return self.source is None or self._state is not None

    @property
    def loaded_mid_turn(self) -> bool:
        """``search_tools`` loaded a tool since the last :meth:`sync`."""
        return (self.source is not None and self._state is not None
                and self.source.loads != self._state[1])

    def refusal(self, name: str) -> str | None:
        """For the model, when it calls a tool of a server that died: why it cannot run.

        The source's :meth:`~goosectx.tools.base.ToolSource.refusal`; ``None`` for a tool
        the request carries, a deferred one (:meth:`served`) or one nobody has.
        """
        if self.registry.get(name) is not None or name in self.deferred:
            return None
        return self.source.refusal(name) if self.source else None

    def served(self, name: str) -> Tool | None:
        """The deferred tool ``name`` the model called by its exact name, else ``None``.

        It runs like any call, approval included, but does not join the list: the list stays
        stable within a call; the call is a use, so the next load keeps the tool if the
        budget holds it. A model that needs more tools than the budget holds gets them all.
        """
        if self.source is None or name not in self.deferred or self.registry.get(name):
            return None
        return self.source.deferred_tool(name)

    def noting_unloads(self, response: ToolResponse,
                       view: Callable[[], Sequence[Message]]) -> ToolResponse:
        """``response`` of a ``search_tools`` call that loaded tools, naming what they unload.

        Args:
            response: Any tool call's response; only a loading search's is changed.
            view: The messages the model sees, this step's responses up to ``response``
                included: the tools they used or loaded decide, as at the next :meth:`sync`,
                which of the tools offered now the budget defers from the next call.

        Returns:
            ``response``, with a line naming those tools when there are any.
        """
        source = self.source
        if source is None or not source.loaded_by(response.id):
            return response
        gone = source.unloaded(self.registry.names(), recent_tools(view(), source.loaded_by))
        if not gone:
            return response
        each = "each " if len(gone) > 1 else ""
        return replace(response, output=f"{response.output}\nUnloaded to stay within the tool "
                                        f"budget: {', '.join(gone)} ({each}still callable by "
                                        "its exact name).")

    def sync(self, limit_tokens: Callable[[], int], history: Sequence[Message]) -> bool:
        """Rebuild :attr:`registry` if the source or the history's start changed; True if so.

        Args:
            limit_tokens: The model's context limit (the tool budget's base).
            history: The messages the model sees (``Conversation.agent_messages()``): the tools
                they use or loaded stay offered while the budget holds them. A compaction (or
                ``/clear``, an undone compaction) changes their first message: the tools it
                hid are deferred again.
        """
        source = self.source
        state = (source.generation, source.loads,
                 history[0].id if history else "") if source is not None else None
        if source is None or state == self._state:
            return False
        self._state = state
        recent = recent_tools(history, source.loaded_by)
        offer = source.offer(ToolRegistry(self._builtin).schemas(), limit_tokens(), recent)
        self.registry = ToolRegistry([*self._builtin, *offer.tools])
        self.deferred = tuple(offer.deferred)
        return True
