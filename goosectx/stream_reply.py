"""One streamed model call of the agent loop: text deltas out, the final response back.

Part of the core (docs/architecture.md §3): yields events, never prints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator

from goosectx.compaction.figures import RequestContext
from goosectx.config import Settings
from goosectx.conversation import Conversation
from goosectx.errors import MalformedModelReply
from goosectx.events import Event, MessageDelta, Notification, ReasoningDelta
from goosectx.providers.base import Provider, ProviderResponse, TextDelta, ThinkingDelta


def stream_reply(
    provider: Provider, request: RequestContext, conversation: Conversation,
    streamed: list[str], cancel: threading.Event, reasoned: list[str] | None = None,
    notices: Callable[[], list[str]] | None = None,
) -> Generator[Event, None, ProviderResponse]:
    """Stream one call, yielding text and reasoning deltas; returns the final response.

    ``streamed`` (the answer text) and ``reasoned`` (the reasoning text) are cleared, then
    collect what arrived so far, so a cancel can keep it. Each chunk costs O(its length).
    ``notices`` (the spending cap's, e.g. "cannot be enforced for this model") are yielded as
    inline notifications once the call is under way.

    Raises:
        MalformedModelReply: the stream ended without a final response.
    """
    streamed.clear()
    if reasoned is not None:
        reasoned.clear()
    final: ProviderResponse | None = None
    stream = provider.stream(request.system_prompt, conversation.agent_view(),
                             request.tool_schemas, cancel=cancel)
    for text in notices() if notices is not None else ():
        yield Notification("inline", text)
    try:
        for item in stream:
            if isinstance(item, TextDelta):
                streamed.append(item.text)
                yield MessageDelta(item.text)
            elif isinstance(item, ThinkingDelta):
                if reasoned is not None:
                    reasoned.append(item.text)
                yield ReasoningDelta(item.text)
            elif isinstance(item, ProviderResponse):
                final = item
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if final is None:
        raise MalformedModelReply("the model's stream ended without a reply")
    return final


def cut_off_notice(response: ProviderResponse, provider: Provider,
                   settings: Settings) -> str | None:
    """The notice after a reply the provider ended at its output limit, else ``None``.

    A reply with ``finish_reason`` ``length`` is kept as it arrived; the notice says it was
    cut and names ``max_output_tokens`` (config ``[models."MODEL"]``), the one setting of it.
    """
    if response.finish_reason != "length":
        return None
    model = provider.model
    configured = settings.model_config(model).max_output_tokens
    where = f'[models."{model}"] in the config file'
    if configured:
        return (f"the answer was cut off at the output limit (max_output_tokens = "
                f"{configured:,}); raise max_output_tokens under {where}")
    return (f"the answer was cut off at the model's output limit "
            f"({provider.output_limit_tokens():,} tokens); to raise it, set "
            f"max_output_tokens under {where}")
