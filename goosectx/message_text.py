"""The text of a message as token counting sees it, and estimates made without the tokenizer.

Part of token counting (docs/architecture.md §5; :mod:`goosectx.tokens` counts this text and
re-exports these names).
"""

from __future__ import annotations

from collections.abc import Iterable

from goosectx.conversation import (
    Attachment,
    Message,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)

MESSAGE_OVERHEAD_TOKENS = 4
"""Per-message framing tokens (role markers), as OpenAI's counting guide does it."""


def message_text_for_count(message: Message) -> str:
    """The text of a message as it is counted: text, signed thinking, tool calls and results.

    Unsigned thinking is not counted: it is never sent (:meth:`Conversation.agent_messages`).

    A text attachment counts as the labelled block the model reads; bytes (an image) are not
    text and count by their ``token_estimate`` instead (:func:`bytes_estimate_tokens`).
    """
    pieces: list[str] = []
    for p in message.content:
        if isinstance(p, Attachment):
            if p.is_text:
                pieces.append(p.labelled_text())
        elif isinstance(p, TextContent):
            pieces.append(p.text)
        elif isinstance(p, ThinkingContent) and p.signature:
            pieces.append(p.text)
        elif isinstance(p, ToolRequest):
            pieces.append(p.name)
            pieces.append(p.arguments_json())
        elif isinstance(p, ToolResponse):
            pieces.append(p.output)
        elif isinstance(p, SystemNotification):
            continue
    return "\n".join(pieces)


def message_chars_for_count(message: Message) -> int:
    """``len(message_text_for_count(message))``, without building the text.

    Each tool call's arguments are made JSON once; no output or text is copied (the plan of
    a long session sizes every message by its stored count per character).
    """
    chars = pieces = 0
    for p in message.content:
        if isinstance(p, Attachment):
            if p.is_text:
                chars += len(p.labelled_text())
                pieces += 1
        elif isinstance(p, TextContent):
            chars += len(p.text)
            pieces += 1
        elif isinstance(p, ThinkingContent) and p.signature:
            chars += len(p.text)
            pieces += 1
        elif isinstance(p, ToolRequest):
            chars += len(p.name) + len(p.arguments_json())
            pieces += 2
        elif isinstance(p, ToolResponse):
            chars += len(p.output)
            pieces += 1
    return chars + max(0, pieces - 1)  # the newlines between the pieces


def bytes_estimate_tokens(message: Message) -> int:
    """Tokens of a message's byte attachments (images): the sum of their ``token_estimate``."""
    return sum(p.token_estimate for p in message.content
               if isinstance(p, Attachment) and not p.is_text)


def rough_count_messages(messages: Iterable[Message]) -> int:
    """About 4 characters per token, without the tokeniser (with the per-message framing).

    For figures shown before anything is counted (a session just imported): the real counts
    are made, and stored, at first need.
    """
    return sum((message_chars_for_count(m) + 3) // 4 + MESSAGE_OVERHEAD_TOKENS
               for m in messages)
