"""An in-process provider that plays back scripted replies and records every request.

The test double for unit tests and benchmarks (after simonw/llm's queue-based fake model and
pydantic-ai's ``FunctionModel``): no network, no litellm. For the real HTTP path use the
OpenAI-compatible fake server in ``tests/fakeserver.py``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from goosectx.conversation import Message, TextContent, ThinkingContent, ToolRequest
from goosectx.providers.base import (
    ContextLimit,
    ProviderResponse,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    TokenPrices,
    ToolSchema,
)
from goosectx.tokens import TokenCounter
from goosectx.usage import Usage

_ids = itertools.count(1)


@dataclass(slots=True)
class ScriptedReply:
    """One scripted model reply.

    Attributes:
        text: Answer text (streamed in ``chunk_chars`` pieces).
        tool_calls: ``(name, arguments)`` pairs; a ``str`` argument is sent raw (to script
            malformed JSON).
        thinking: Reasoning text, emitted before the answer.
        usage: Reported usage; ``"auto"`` estimates it with tiktoken from the request;
            ``None`` reports nothing.
        error: Raised instead of replying (e.g. ``ContextLengthExceeded(...)``).
        chunk_chars: Size of streamed text pieces.
        finish_reason: The finish reason reported (``None``: ``tool_calls`` or ``stop``).
    """

    text: str = ""
    tool_calls: Sequence[tuple[str, dict[str, Any] | str]] = ()
    thinking: str = ""
    usage: Usage | str | None = "auto"
    error: BaseException | None = None
    chunk_chars: int = 16
    finish_reason: str | None = None


@dataclass(slots=True)
class RecordedRequest:
    """What one call received."""

    system: str
    messages: list[Message]
    tools: list[ToolSchema]
    max_tokens: int | None
    tool_choice: str | None


ScriptItem = ScriptedReply | str | BaseException | Callable[[RecordedRequest], Any]


class ScriptExhausted(AssertionError):
    """The provider was called more times than the script has replies."""


@dataclass
class ScriptedProvider:
    """A :class:`~goosectx.providers.base.Provider` that plays back ``script`` in order.

    Each item is a :class:`ScriptedReply`, a plain ``str`` (a text reply), an exception
    instance (raised) or a callable ``(RecordedRequest) -> item`` for replies that depend on
    the request. ``requests`` records every call.
    """

    script: list[ScriptItem] = field(default_factory=list)
    model: str = "scripted/test-model"
    context_limit_tokens: int = 128_000
    output_limit: int = 4_096
    manages_own_context: bool = False
    cost_per_call_usd: float | None = None
    token_prices: TokenPrices | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    on_call: Callable[[RecordedRequest], None] | None = None
    vision: bool | None = None
    """Whether the scripted model reads images (``None``: unknown), for ``@image`` mentions."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._counter = TokenCounter(None)

    def add(self, *items: ScriptItem) -> None:
        """Append replies to the script."""
        self.script.extend(items)

    def context_limit(self) -> ContextLimit:
        """The scripted context limit."""
        return ContextLimit(self.context_limit_tokens, "scripted")

    def output_limit_tokens(self) -> int:
        """The scripted output limit."""
        return self.output_limit

    def prices(self) -> TokenPrices | None:
        """The scripted prices (``None``: unknown)."""
        return self.token_prices

    def reads_images(self) -> bool | None:
        """The scripted ``vision``."""
        return self.vision

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
        """Record the request and play the next scripted reply (``retries``: nothing to retry).

        Raises:
            ScriptExhausted: no reply left; any exception the script holds.
        """
        request = RecordedRequest(system, list(messages), list(tools), max_tokens, tool_choice)
        with self._lock:
            self.requests.append(request)
            if self.on_call is not None:
                self.on_call(request)
            if not self.script:
                raise ScriptExhausted(f"scripted provider has no reply left for call "
                                      f"#{len(self.requests)}")
            item = self.script.pop(0)
        if callable(item) and not isinstance(item, BaseException):
            item = item(request)
        if isinstance(item, BaseException):
            raise item
        reply = ScriptedReply(text=item) if isinstance(item, str) else item
        if reply.error is not None:
            raise reply.error
        parts: list[Any] = []
        if reply.thinking:
            yield ThinkingDelta(reply.thinking)
            parts.append(ThinkingContent(reply.thinking))
        for i in range(0, len(reply.text), max(1, reply.chunk_chars)):
            if cancel is not None and cancel.is_set():
                break
            yield TextDelta(reply.text[i:i + reply.chunk_chars])
        if reply.text:
            parts.append(TextContent(reply.text))
        for name, args in reply.tool_calls:
            call_id = f"call_{next(_ids)}"
            if isinstance(args, str):
                parts.append(ToolRequest(call_id, name, None, "arguments are not valid JSON",
                                         args))
            else:
                parts.append(ToolRequest(call_id, name, dict(args)))
        message = Message("assistant", tuple(parts))
        usage: Usage | None
        if reply.usage == "auto":
            usage = self.estimate_usage(request, message)
        else:
            usage = reply.usage if isinstance(reply.usage, Usage) else None
        yield ProviderResponse(message, usage, self.model, reply.finish_reason
                               or ("tool_calls" if reply.tool_calls else "stop"))

    def estimate_usage(self, request: RecordedRequest, reply: Message) -> Usage:
        """Usage as tiktoken counts the request (system, messages, tools) and the reply."""
        input_tokens = (
            self._counter.count_cached_text(request.system)
            + self._counter.count_messages(request.messages)
            + self._counter.count_tool_schemas(request.tools)
        )
        output_tokens = self._counter.count_message(reply)
        return Usage.of(input_tokens, output_tokens, self.cost_per_call_usd)
