"""The agent tool loop: model → tools → model until the model answers without a tool call.

INTERFACE SKELETON (the agent-loop issue fills in the bodies; signatures are the contract the
REPL, ``run`` and the tests rely on).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from goosectx.approval import ApprovalFn
from goosectx.compaction.manager import ContextManager, RequestContext
from goosectx.config import ApprovalMode, Settings
from goosectx.events import Event
from goosectx.providers.base import Provider
from goosectx.session import Session
from goosectx.tools.base import ToolRegistry


class Agent:
    """Drives one session.

    The agent mutates the in-memory ``session`` (appends completed messages; compaction swaps
    the conversation) and yields an event for every change; it never prints and never
    touches the store (the session recorder persists the events).

    Args:
        session: The session to continue.
        settings: Resolved settings.
        provider: The main model, or ``None`` (then ``reply`` ends with a clear error event).
        tools: The tools offered to the model.
        approve: Called for each tool call that needs approval in the current mode.
        mode: Approval mode (``settings.mode`` by default).
        context: The context manager (built from the other arguments by default).
    """

    def __init__(
        self,
        session: Session,
        settings: Settings,
        *,
        provider: Provider | None,
        tools: ToolRegistry,
        approve: ApprovalFn,
        mode: ApprovalMode | None = None,
        context: ContextManager | None = None,
    ) -> None:
        raise NotImplementedError

    @property
    def request_context(self) -> RequestContext:
        """System prompt (with project instructions) and tool schemas of the next request."""
        raise NotImplementedError

    def reply(self, user_input: str, *, cancel: threading.Event | None = None) -> Iterator[Event]:
        """Run one turn for ``user_input``; ends with exactly one ``TurnFinished``."""
        raise NotImplementedError

    def compact(self, instructions: str | None = None, *, strategy: str = "llm") -> Iterator[Event]:
        """Manual compaction (``/compact [instructions]``)."""
        raise NotImplementedError

    def clear(self) -> Iterator[Event]:
        """``/clear``."""
        raise NotImplementedError

    def set_mode(self, mode: ApprovalMode) -> None:
        """Change the approval mode (``/mode``)."""
        raise NotImplementedError

    def set_provider(self, provider: Provider | None) -> None:
        """Change the model (``/model``); its context limit applies to the next call."""
        raise NotImplementedError
