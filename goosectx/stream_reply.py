"""One streamed model call of the agent loop: text deltas out, the final response back.

Part of the core (docs/architecture.md §3): yields events, never prints.
"""

from __future__ import annotations

import threading
from collections.abc import Generator

from goosectx.compaction.manager import RequestContext
from goosectx.conversation import Conversation
from goosectx.errors import MalformedModelReply
from goosectx.events import Event, MessageDelta, Notification
from goosectx.providers.base import Provider, ProviderResponse, TextDelta, ThinkingDelta


def stream_reply(
    provider: Provider, request: RequestContext, conversation: Conversation,
    streamed: list[str], cancel: threading.Event,
) -> Generator[Event, None, ProviderResponse]:
    """Stream one call, yielding text deltas; returns the provider's final response.

    ``streamed`` is cleared, then collects the text so far, so a cancel can keep it.

    Raises:
        MalformedModelReply: the stream ended without a final response.
    """
    streamed.clear()
    final: ProviderResponse | None = None
    thinking_shown = False
    stream = provider.stream(request.system_prompt, conversation.agent_view(),
                             request.tool_schemas, cancel=cancel)
    try:
        for item in stream:
            if isinstance(item, TextDelta):
                streamed.append(item.text)
                yield MessageDelta(item.text)
            elif isinstance(item, ThinkingDelta):
                if not thinking_shown:
                    thinking_shown = True
                    yield Notification("thinking", "thinking…")
            elif isinstance(item, ProviderResponse):
                final = item
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if final is None:
        raise MalformedModelReply("the model's stream ended without a reply")
    return final
