"""``run``'s ``denied_calls``: the tool calls of the turn that were refused, not run.

A script reading ``--output-format json`` (or stream-json's ``result`` line) sees each call
the approval refused — no terminal to ask, a deny rule, the user's ``n``, chat mode — with
why, rather than only a warning on stderr (README "One task, non-interactively").
"""

from __future__ import annotations

from typing import Any

from goosectx.approval import (
    CHAT_MODE_TEXT,
    DENIED_TEXT,
    NON_INTERACTIVE_DENIED_TEXT,
    RULE_DENIED_TEXT,
)
from goosectx.conversation import ToolRequest, ToolResponse
from goosectx.events import Event, MessageCompleted, ToolCallFinished, ToolCallStarted

NO_TERMINAL_REASON = "needs approval and there is no terminal to ask"
USER_DENIED = "denied by the user: "
"""Starts what the model gets for a call the user denied with a reason (``denied_text``)."""


def denial_reason(output: str) -> str | None:
    """Why a call that never started was refused (one line), or ``None`` when it was not.

    ``output`` is the tool response goosectx wrote for the model in its place.
    """
    if output.startswith(NON_INTERACTIVE_DENIED_TEXT):  # + why a rule asks, if one does
        why = output[len(NON_INTERACTIVE_DENIED_TEXT):].strip().removeprefix(
            "It needs approval because ").removesuffix(".")
        return f"{NO_TERMINAL_REASON}: {why}" if why else NO_TERMINAL_REASON
    if output.startswith(DENIED_TEXT):
        return "denied by the user"
    if output.startswith(USER_DENIED):
        return output.partition("\n")[0]
    if output.startswith(RULE_DENIED_TEXT + " ("):
        rules = output[len(RULE_DENIED_TEXT) + 2:].partition("). Do not retry")[0]
        return f"denied by a permission rule: {rules}"
    if output.startswith(CHAT_MODE_TEXT):
        return "chat mode runs no tool"
    return None


class DeniedCalls:
    """Collects the turn's refused calls from its events, in the order they were answered."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        """``{"id", "tool", "arguments", "reason"}`` per refused call (JSON-ready)."""
        self._requests: dict[str, ToolRequest] = {}
        self._started: set[str] = set()

    def observe(self, event: Event) -> None:
        """Take one event of the turn into account."""
        if isinstance(event, MessageCompleted) and event.message.role == "assistant":
            self._requests.update((r.id, r) for r in event.message.tool_requests)
        elif isinstance(event, ToolCallStarted):  # it ran: whatever its output says
            self._started.add(event.request.id)
        elif isinstance(event, ToolCallFinished):
            self._finished(event.response)

    def _finished(self, response: ToolResponse) -> None:
        if not response.is_error or response.id in self._started:
            return
        reason = denial_reason(response.output)
        request = self._requests.get(response.id)
        if reason is None or request is None:
            return
        self.calls.append({"id": request.id, "tool": request.name,
                           "arguments": request.arguments, "reason": reason})
