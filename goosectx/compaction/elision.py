"""Cutting a kept message in the middle to fit the context window (its beginning and end kept).

What :mod:`goosectx.compaction.tail` uses when the turn in progress (its request and newest
tool pairs) is over the room left: the copies the model reads instead of the originals, which
stay, hidden. Pure functions.
"""

from __future__ import annotations

from dataclasses import replace

from goosectx.compaction.cuts import word_head, word_tail
from goosectx.compaction.tool_errors import telling_line
from goosectx.conversation import Message, MessageMetadata, TextContent, ToolResponse

KEEP_LINE_MAX_CHARS = 400
"""A failed result's telling line longer than this is not kept apart in its elided copy."""


def elide_text(text: str, keep_tokens: int, tokens: int, keep_line: str | None = None) -> str:
    """``text`` (of ``tokens`` tokens) cut in the middle to about ``keep_tokens`` with a marker.

    The head and the tail end at a line break when one is near (whole first and last lines),
    else between words as the summary's cuts do (:func:`~goosectx.compaction.cuts.word_head`).
    ``keep_line`` (a failed result's telling line, :func:`tool_errors.telling_line`), when the
    cut would lose it, follows the marker whole (up to :data:`KEEP_LINE_MAX_CHARS`).
    """
    if tokens <= keep_tokens:
        return text
    chars_per_token = len(text) / max(tokens, 1)
    half = max(int(max(keep_tokens - 16, 8) * chars_per_token / 2), 1)
    if 2 * half >= len(text):
        return text
    head, tail = text[:half], text[-half:]
    cut = head.rfind("\n")  # whole lines when the text has them (a tool result's output)
    head = head[:cut] if cut >= half // 2 else word_head(text, half)
    cut = tail.find("\n")
    tail = tail[cut + 1:] if 0 <= cut <= half // 2 else word_tail(text, half)
    if keep_line and len(keep_line) <= KEEP_LINE_MAX_CHARS and keep_line not in head + tail:
        first, _, rest = tail.partition("\n")  # a first line cut mid-way is the line's end
        tail = "\n".join([keep_line, *([rest] if rest else [])] if keep_line.endswith(first)
                         else [keep_line, tail])
    return (f"{head}\n[… {tokens - keep_tokens:,} tokens elided to fit the context "
            f"window …]\n{tail}")


def elided_copy(message: Message, keep_tokens: int, tokens: int) -> Message:
    """An agent-only copy of ``message`` whose texts and tool results are cut in the middle."""
    share = keep_tokens / max(tokens, 1)
    parts = []
    for p in message.content:
        if isinstance(p, TextContent):
            size = max(len(p.text) // 4, 1)
            p = TextContent(elide_text(p.text, int(size * share), size))
        elif isinstance(p, ToolResponse):
            size = max(len(p.output) // 4, 1)
            p = replace(p, output=elide_text(p.output, int(size * share), size,
                                             telling_line(p.output) if p.is_error else None))
        parts.append(p)
    return Message(message.role, tuple(parts), MessageMetadata.agent_only()).with_metadata(
        extra={"elided_from_tokens": tokens, "copy_of": message.id})
