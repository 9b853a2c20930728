"""What a model call streams: text, reasoning and tool-call progress, then the reply.

The items of :meth:`goosectx.providers.base.Provider.stream` (docs/architecture.md §1); import
them from :mod:`goosectx.providers.base`, which loads this module at their first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from goosectx.conversation import Message
from goosectx.usage import Usage


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A chunk of streamed answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A chunk of streamed reasoning text."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A chunk of a tool call's arguments arrived (progress only; the call is in the reply).

    Attributes:
        name: The tool's name as streamed so far (may be empty at first).
        argument_chars: Characters of this call's arguments received so far.
    """

    name: str
    argument_chars: int


@dataclass(frozen=True, slots=True)
class ProviderResponse:
    """The finished reply of one model call (always the last item of a stream).

    Attributes:
        message: The assistant message: thinking, text and tool-request parts, in order. A
            tool call whose arguments are not valid JSON becomes a ``ToolRequest`` with
            ``parse_error`` set.
        usage: Reported usage (with cost when litellm knows it), or ``None`` if not reported.
        model: The model that answered.
        finish_reason: The provider's finish reason, if any.
    """

    message: Message
    usage: Usage | None
    model: str
    finish_reason: str | None = None


StreamItem: TypeAlias = TextDelta | ThinkingDelta | ToolCallDelta | ProviderResponse
