"""What a request offers: the built-in tools, then a tool source's (the extensions').

docs/architecture.md §1. The agent asks :meth:`ToolOffering.sync` at the start of every turn
and after ``search_tools`` loaded a tool (the one deliberate mid-turn change); otherwise the
list stays as it was, so the cached prefix of the request stays valid.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

from goosectx.conversation import Message
from goosectx.tools.base import ToolRegistry, ToolSource


def deferred_text(name: str) -> str:
    """What the model reads when it calls the deferred tool ``name``: how to load it."""
    return (f"{name} is deferred to save context: call search_tools to load it (it is "
            "offered from the next call).")


def recent_tools(history: Iterable[Message],
                 loaded_by: Callable[[str], Sequence[str]]) -> list[str]:
    """Tools the calls in ``history`` used or ``search_tools`` loaded, least recent first.

    A tool counts at its call's response, and a loaded one at the response of the
    ``search_tools`` call that loaded it (``loaded_by(call id)``). A call of a deferred tool
    answered with :func:`deferred_text` was refused, not run: it is no use of that tool (only
    ``search_tools`` loads a deferred one).
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

    def deferred_refusal(self, name: str) -> str | None:
        """For the model, when it calls a tool the request did not carry: what to do.

        A deferred tool: how to load it; a tool of a server that died: why it cannot run
        (the source's :meth:`~goosectx.tools.base.ToolSource.refusal`); else ``None``.

        The tool is not loaded on the spot: the list stays stable within a call, and
        ``search_tools`` is the one way in (docs/architecture.md §1).
        """
        if self.registry.get(name) is not None:
            return None
        if name not in self.deferred:  # a tool of a server that died, else none
            return self.source.refusal(name) if self.source else None
        return deferred_text(name)

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
