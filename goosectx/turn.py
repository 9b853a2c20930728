"""What one agent turn has in flight, and how a cancel closes it out validly.

Part of the core (docs/architecture.md §3): yields events, never prints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from goosectx.approval import CANCELLED_TEXT
from goosectx.conversation import (
    Message,
    MessageMetadata,
    Part,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.events import Event, ToolCallFinished, TurnFinished


@dataclass(slots=True)
class Turn:
    """What one turn has in flight, so a cancel at any point can close it out validly."""

    cancel: threading.Event
    streamed: list[str] = field(default_factory=list)
    reasoned: list[str] = field(default_factory=list)
    open_requests: list[ToolRequest] = field(default_factory=list)
    responses: list[ToolResponse] = field(default_factory=list)
    attachments: list[Part] = field(default_factory=list)


def close_cancelled(turn: Turn, complete: Callable[[Message], Iterator[Event]], *,
                finish: bool = True) -> Iterator[Event]:
    """Close a cancelled turn validly, so the history stays valid.

    Keeps streamed text and reasoning (marked cancelled), answers every open tool request with
    "cancelled", then ends the turn (unless ``finish`` is false). ``complete`` appends a
    message and yields its events (the agent's).
    """
    if turn.streamed or turn.reasoned:
        parts: list[Part] = [ThinkingContent("".join(turn.reasoned))] if turn.reasoned else []
        if turn.streamed:
            parts.append(TextContent("".join(turn.streamed)))
        turn.streamed, turn.reasoned = [], []
        yield from complete(Message("assistant", tuple(parts),
                                          MessageMetadata(cancelled=True)))
    if turn.open_requests:
        answered = {r.id for r in turn.responses}
        for request in turn.open_requests:
            if request.id not in answered:
                response = ToolResponse(request.id, CANCELLED_TEXT, is_error=True)
                turn.responses.append(response)
                yield ToolCallFinished(response)
        responses = tuple(turn.responses)
        turn.open_requests, turn.responses = [], []
        yield from complete(Message("user", responses))
    if finish:
        yield TurnFinished("cancelled")
