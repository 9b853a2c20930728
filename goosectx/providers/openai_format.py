"""Our messages ⇄ the OpenAI chat format that litellm speaks (pure functions, no litellm).

Outgoing: :func:`to_openai_messages` turns an agent view into ``messages=[...]``. Incoming:
:class:`StreamAssembler` folds streamed chunk deltas (objects or dicts) into text, thinking
and tool-call parts; tool-call arguments that are not a JSON object become a
``ToolRequest`` with ``parse_error`` set, never an exception. Streamed text and reasoning come
out valid Unicode (:class:`SurrogateJoiner`): an emoji's surrogate pair split over two chunks
is joined, a lone surrogate becomes U+FFFD, so what is printed, stored and written as JSON agree.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from goosectx.conversation import (
    Attachment,
    Message,
    Part,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.parts import finite_float, json_kind, not_json_number
from goosectx.providers.base import TextDelta, ThinkingDelta, ToolCallDelta, ToolSchema
from goosectx.surrogates import whole_text
from goosectx.usage import Usage


def to_openai_tools(tools: Sequence[ToolSchema]) -> list[dict[str, Any]]:
    """``[{"type": "function", "function": {name, description, parameters}}, ...]``."""
    return [{"type": "function", "function": dict(t)} for t in tools]


def to_openai_messages(system: str, messages: Sequence[Message], *, vision: bool = False
                       ) -> list[dict[str, Any]]:
    """Convert a system prompt and an agent view to OpenAI chat messages.

    Tool responses become ``role: "tool"`` messages; a user message holding tool responses
    and text yields the tool messages first, then one user message with the text (OpenAI
    requires the tool answers right after the assistant's calls). A tool request whose
    arguments did not parse is sent with ``{}`` (its error response quotes the raw text).
    Thinking parts that carry a provider signature are sent back as ``thinking_blocks``
    (Anthropic requires them before tool calls); unsigned thinking is not sent.
    An attachment with text is sent as its labelled block (naming its source); an image is
    sent as an ``image_url`` part when ``vision`` (the model reads images), else as its
    one-line stub, like any other bytes.

    Returns:
        The messages, system prompt first (omitted when empty).
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "assistant":
            out.append(_assistant(message))
            continue
        texts: list[str] = []
        items: list[dict[str, Any]] = []  # OpenAI content items, once there is an image
        for part in message.content:
            if isinstance(part, ToolResponse):
                out.append({"role": "tool", "tool_call_id": part.id, "content": part.output})
            elif isinstance(part, TextContent) and part.text:
                texts.append(part.text)
            elif isinstance(part, Attachment):
                if vision and part.is_image:
                    if texts:
                        items.append({"type": "text", "text": "\n\n".join(texts)})
                        texts = []
                    items.append({"type": "text", "text": f"[attached image: {part.source}]"})
                    items.append({"type": "image_url", "image_url": {"url": part.data_url()}})
                else:
                    texts.append(part.labelled_text())
        if items:
            if texts:
                items.append({"type": "text", "text": "\n\n".join(texts)})
            out.append({"role": "user", "content": items})
        elif texts:
            out.append({"role": "user", "content": "\n\n".join(texts)})
    return out


def _assistant_text(part: Part) -> str:
    if isinstance(part, TextContent):
        return part.text
    if isinstance(part, Attachment):
        return part.labelled_text()
    return ""


def _assistant(message: Message) -> dict[str, Any]:
    text = "\n\n".join(t for t in map(_assistant_text, message.content) if t)
    data: dict[str, Any] = {"role": "assistant", "content": text or None}
    calls = [
        {
            "id": r.id,
            "type": "function",
            "function": {"name": r.name, "arguments": r.arguments_json() if r.arguments
                         is not None else "{}"},
        }
        for r in message.tool_requests
    ]
    if calls:
        data["tool_calls"] = calls
    blocks = [
        {"type": "thinking", "thinking": p.text, "signature": p.signature}
        for p in message.content
        if isinstance(p, ThinkingContent) and p.signature
    ]
    if blocks:
        data["thinking_blocks"] = blocks
    if data["content"] is None:
        data["content"] = ""  # llama-cpp-python's server rejects null content (a 500)
    return data


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse tool-call arguments: ``(arguments, None)`` or ``(None, why they did not parse)``.

    Empty text means no arguments (``{}``).
    """
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw, parse_constant=not_json_number, parse_float=finite_float)
    except json.JSONDecodeError as exc:
        where = exc.msg.removesuffix(" at")  # 'Unterminated string starting at' + ' at …'
        return None, f"arguments are not valid JSON ({where} at character {exc.pos})"
    except ValueError as exc:  # NaN, Infinity, 1e400: stored, they would break the database
        return None, f"arguments are not valid JSON ({exc})"
    except RecursionError:  # [[[[… thousands deep: not arguments any tool takes
        return None, "arguments are JSON nested too deeply to read"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {json_kind(value)}"
    return value, None


@dataclass(slots=True)
class SurrogateJoiner:
    """Streamed text pieces made whole: a high surrogate ending a piece waits for the next.

    Feed each piece to :meth:`feed`; at the stream's end :meth:`end` gives what is still held
    (U+FFFD for a half that never got its other half, else ``""``). Constant work per piece
    beyond :func:`whole_text`'s one pass over it.
    """

    held: str = ""

    def feed(self, piece: str) -> str:
        """``piece`` (after what was held) as whole text, less a trailing high surrogate."""
        if self.held:
            piece, self.held = self.held + piece, ""
        if piece and "\ud800" <= piece[-1] <= "\udbff":
            piece, self.held = piece[:-1], piece[-1]
        return whole_text(piece)

    def end(self) -> str:
        """What is held as text: U+FFFD for a lone high surrogate, else ``""``."""
        held, self.held = self.held, ""
        return whole_text(held)


@dataclass(slots=True)
class _PendingCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    chars: int = 0


@dataclass(slots=True)
class StreamAssembler:
    """Accumulates streamed chunks into one assistant reply.

    Feed each chunk to :meth:`add` (it yields the text and thinking deltas to show), then
    call :meth:`message`. Chunks may be litellm objects or plain dicts of the same shape.
    ``argument_chars`` is the running total of tool-call argument characters over every call
    (the provider's size cap reads it instead of walking each chunk a second time).
    """

    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    signature: str | None = None
    calls: dict[Any, _PendingCall] = field(default_factory=dict)
    usage: Any = None
    finish_reason: str | None = None
    model: str | None = None
    argument_chars: int = 0
    _text_joiner: SurrogateJoiner = field(default_factory=SurrogateJoiner)
    _thinking_joiner: SurrogateJoiner = field(default_factory=SurrogateJoiner)

    def add(self, chunk: Any) -> Iterator[TextDelta | ThinkingDelta | ToolCallDelta]:
        """Fold one chunk in; yield its visible deltas and tool-call progress.

        Constant work per chunk: arguments are kept as pieces, joined and parsed once in
        :meth:`message`.
        """
        if _get(chunk, "usage") is not None:
            self.usage = _get(chunk, "usage")
        self.model = _get(chunk, "model") or self.model
        for choice in _get(chunk, "choices") or ():
            if _get(choice, "finish_reason"):
                self.finish_reason = _get(choice, "finish_reason")
            delta = _get(choice, "delta")
            if delta is None:
                continue
            reasoning = _get(delta, "reasoning_content")
            if reasoning and (reasoning := self._thinking_joiner.feed(reasoning)):
                self.thinking.append(reasoning)
                yield ThinkingDelta(reasoning)
            for block in _get(delta, "thinking_blocks") or ():
                if _get(block, "signature"):
                    self.signature = _get(block, "signature")
            content = _get(delta, "content")
            if content and (content := self._text_joiner.feed(content)):
                self.text.append(content)
                yield TextDelta(content)
            for i, call in enumerate(_get(delta, "tool_calls") or ()):
                pending = self._add_call(i, call)
                if pending is not None:
                    yield ToolCallDelta(pending.name, pending.chars)

    def end(self) -> Iterator[TextDelta | ThinkingDelta]:
        """The stream ended: yield (and keep) what the joiners still held, as U+FFFD."""
        if reasoning := self._thinking_joiner.end():
            self.thinking.append(reasoning)
            yield ThinkingDelta(reasoning)
        if content := self._text_joiner.end():
            self.text.append(content)
            yield TextDelta(content)

    def _add_call(self, position: int, call: Any) -> _PendingCall | None:
        """Fold one tool-call delta in; the call when arguments arrived, else ``None``."""
        index = _get(call, "index")
        call_id = _get(call, "id")
        key = index if index is not None else (call_id or position)
        pending = self.calls.get(key)
        if pending is None:
            pending = self.calls[key] = _PendingCall()
        if call_id and not pending.id:
            pending.id = call_id
        function = _get(call, "function")
        name = _get(function, "name")
        if name:
            pending.name = name if not pending.name else pending.name
        arguments = _get(function, "arguments")
        if not arguments:
            return None
        pending.arguments.append(arguments)
        pending.chars += len(arguments)
        self.argument_chars += len(arguments)
        return pending

    def message(self, *, include_tool_calls: bool = True) -> Message:
        """The assistant message so far: thinking, text, then tool requests.

        Args:
            include_tool_calls: False for a cancelled stream (its calls may be incomplete).
        """
        parts: list[Part] = []
        if self.thinking:
            parts.append(ThinkingContent("".join(self.thinking), self.signature))
        if self.text:
            parts.append(TextContent("".join(self.text)))
        if include_tool_calls:
            for pending in self.calls.values():
                raw = "".join(pending.arguments)
                call_id = pending.id or "call_" + uuid.uuid4().hex[:24]
                arguments, error = parse_arguments(raw)
                if error is None:
                    parts.append(ToolRequest(call_id, pending.name, arguments))
                else:
                    parts.append(ToolRequest(call_id, pending.name, None, error, raw))
        return Message("assistant", tuple(parts))

    def usage_figures(self) -> Usage | None:
        """The reported usage without cost, or ``None`` when the stream reported none."""
        u = self.usage
        if u is None:
            return None
        input_tokens = int(_get(u, "prompt_tokens") or 0)
        output_tokens = int(_get(u, "completion_tokens") or 0)
        total = int(_get(u, "total_tokens") or 0) or input_tokens + output_tokens
        details = _get(u, "prompt_tokens_details")
        cache_read = _get(details, "cached_tokens") or _get(u, "cache_read_input_tokens")
        cache_write = _get(u, "cache_creation_input_tokens")
        return Usage(
            input_tokens, output_tokens, total,
            int(cache_read) if cache_read else None,
            int(cache_write) if cache_write else None,
        )


def tool_choice_param(choice: str) -> str | dict[str, Any]:
    """``auto`` / ``required`` / ``none`` as they are; a tool name as OpenAI's forced form."""
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}
