"""The provider protocol: what the agent loop and compaction need from a model.

Adapters translate their library's errors into :mod:`goosectx.errors`
(``ContextLengthExceeded``, ``RateLimited``, ``AuthFailed``, ``ProviderUnavailable``) so the
core can catch exactly the one it handles.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from goosectx.conversation import Message
from goosectx.plain_record import plain_record

if TYPE_CHECKING:  # the stream's items load with the first stream (a dry run makes none)
    from goosectx.providers.stream_items import ProviderResponse as ProviderResponse
    from goosectx.providers.stream_items import StreamItem as StreamItem
    from goosectx.providers.stream_items import TextDelta as TextDelta
    from goosectx.providers.stream_items import ThinkingDelta as ThinkingDelta
    from goosectx.providers.stream_items import ToolCallDelta as ToolCallDelta

ToolSchema: TypeAlias = dict[str, Any]
"""One tool as sent: ``{"name": str, "description": str, "parameters": <JSON schema>}``."""

_STREAM_ITEMS = ("ProviderResponse", "StreamItem", "TextDelta", "ThinkingDelta", "ToolCallDelta")


def __getattr__(name: str) -> Any:
    """The stream's items (:mod:`.stream_items`), imported when first asked for.

    Four dataclasses a command that calls no model (``compact --dry-run``) does not load.
    """
    if name in _STREAM_ITEMS:
        from goosectx.providers import stream_items

        return getattr(stream_items, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")




STATED_LIMIT_SOURCE = "stated by the server when it rejected a request"
"""The source of a context limit the server stated in a rejection ("maximum context length is
N tokens"): it wins over a larger configured one."""


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
class ContextLimit:
    """A context window and where the figure came from.

    Attributes:
        tokens: The context limit in tokens (input side).
        source: ``env GOOSE_CONTEXT_LIMIT``, ``config``, ``litellm model info`` or ``default``.
    """

    tokens: int
    source: str


@plain_record  # read-only to mypy; compared, printed nowhere (a test)
class TokenPrices:
    """A model's list prices (litellm's cost map), US dollars per token.

    Attributes:
        input_usd_per_token: Price of one input token.
        output_usd_per_token: Price of one output token, or ``None`` when not listed.
    """

    input_usd_per_token: float
    output_usd_per_token: float | None = None


class Provider(Protocol):
    """A model that streams replies.

    Attributes:
        model: The model name as litellm knows it (``openai/gpt-4o-mini``).
        manages_own_context: When true, goosectx never compacts for this model.
    """

    model: str
    manages_own_context: bool

    def context_limit(self) -> ContextLimit:
        """The context window (DESIGN.md §3 precedence)."""
        ...

    def output_limit_tokens(self) -> int:
        """The most tokens one reply may have."""
        ...

    def prices(self) -> TokenPrices | None:
        """The model's prices, or ``None`` when they are unknown (the cap cannot apply)."""
        ...

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        max_tokens: int | None = None,
        tool_choice: str | None = None,
        cancel: threading.Event | None = None,
        retries: int | None = None,
    ) -> Iterator[StreamItem]:
        """Stream one model call; the last item is a :class:`ProviderResponse`.

        ``messages`` is an agent view (already repaired). Transient errors are retried with
        bounded backoff before the stream starts: ``retries`` times (``None``: the provider's
        default; summary calls pass 0 — compaction has its own fallback and breaker).

        Raises:
            ContextLengthExceeded, RateLimited, AuthFailed, ProviderUnavailable,
            MalformedModelReply.
        """
        ...


STOPPED_OVER_BUDGET = "stopped over budget"
"""The finish reason of a reply :func:`complete` stopped reading (past ``max_text_chars``)."""


def complete(
    provider: Provider,
    system: str,
    messages: Sequence[Message],
    *,
    max_tokens: int | None = None,
    cancel: threading.Event | None = None,
    retries: int | None = None,
    max_text_chars: int | None = None,
) -> ProviderResponse:
    """Run one call without tools and return its final response (used by summarisers).

    ``cancel`` is passed to :meth:`Provider.stream`: once it is set the stream ends early and
    the response holds what arrived so far (the caller checks ``cancel`` itself); so is
    ``retries`` (summarisers pass 0: one request per attempt reaches the server).
    ``max_text_chars``: once the reply's text passes it, the stream is closed (the provider
    drops the request) and the response holds the text read so far, no usage, and the
    finish reason :data:`STOPPED_OVER_BUDGET` (a provider ignoring ``max_tokens`` sent a
    276k-token summary, read for 68 s before it was refused).
    """
    from goosectx.providers.stream_items import ProviderResponse, TextDelta

    final: ProviderResponse | None = None
    stream = provider.stream(system, messages, (), max_tokens=max_tokens, cancel=cancel,
                             retries=retries)
    pieces: list[str] = []
    text_chars = 0
    try:
        for item in stream:
            if isinstance(item, ProviderResponse):
                final = item
            elif isinstance(item, TextDelta) and max_text_chars is not None:
                pieces.append(item.text)
                text_chars += len(item.text)
                if text_chars > max_text_chars:
                    return ProviderResponse(Message.assistant("".join(pieces)), None,
                                            provider.model, STOPPED_OVER_BUDGET)
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            close()
    if final is None:
        from goosectx.errors import MalformedModelReply

        raise MalformedModelReply("the provider's stream ended without a reply")
    return final
