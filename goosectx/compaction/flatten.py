"""The summary request's input: the head flattened to lines, each with its token estimate.

Part of step 2 of the compaction pipeline (docs/architecture.md §5), apart from the ladder
(:mod:`goosectx.compaction.request`) that removes and elides lines until the request fits.
The agent-visible messages are flattened to lines (``[user]: …``, ``[assistant]: …``, tool
calls as name + arguments, tool results as text; thinking and notifications omitted); a
result longer than ``summary_result_chars`` is cut to its head and tail lines. A line's
tokens come from its message's stored count where there is one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from goosectx.conversation import Attachment, Message, TextContent, ToolRequest, ToolResponse
from goosectx.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class Line:
    """One flattened line of the summary input.

    Attributes:
        text: The line, role prefix included.
        tool_id: Id of the tool call for a call or result line, else ``None``.
        is_result: True for a tool-result line.
        tokens: Its token count plus one for the newline (0 until measured).
    """

    text: str
    tool_id: str | None = None
    is_result: bool = False
    tokens: int = 0


def _one_line_prefix(role: str, message: Message, *, first_text: bool = True) -> str:
    """A text line's label; only a summary's first text is the summary (``first_text``).

    The agent view merges the user messages re-sent after a summary into its message, which
    keeps the summary's metadata: their texts are the user's.
    """
    if message.metadata.is_summary and first_text:
        return "[summary of the earlier conversation]"
    return f"[{role}]"


def cut_lines(text: str, max_chars: int) -> str:
    """``text`` cut to its first and last lines within ``max_chars`` with a marker.

    ``[… N lines cut …]`` names how many lines were left out; a text with few, long lines is
    cut by characters instead.
    """
    if len(text) <= max_chars:
        return text
    lines = text.splitlines()
    half = max_chars // 2
    head: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > half:
            break
        head.append(line)
        size += len(line) + 1
    tail: list[str] = []
    size = 0
    for line in reversed(lines[len(head):]):
        if size + len(line) + 1 > half:
            break
        tail.append(line)
        size += len(line) + 1
    tail.reverse()
    cut = len(lines) - len(head) - len(tail)
    if not head and not tail:
        return f"{text[:half]} [… {len(text) - 2 * half:,} characters cut …] {text[-half:]}"
    return "\n".join([*head, f"[… {cut:,} lines cut …]", *tail])


def flatten(messages: Sequence[Message], result_chars: int | None = None) -> list[Line]:
    """Flatten agent-visible messages to summary-input lines, oldest first.

    Continuation messages (compaction boilerplate), thinking and notifications are omitted;
    a tool result longer than ``result_chars`` is cut to head and tail lines. A text
    attachment becomes a block labelled with its source; bytes (an image) their stub.
    """
    lines: list[Line] = []
    for m in messages:
        if m.metadata.is_continuation:
            continue
        first_text = True
        for p in m.content:
            if isinstance(p, TextContent):
                if p.text.strip():
                    prefix = _one_line_prefix(m.role, m, first_text=first_text)
                    lines.append(Line(f"{prefix}: {p.text.strip()}"))
                    first_text = False
            elif isinstance(p, ToolRequest):
                lines.append(Line(f"[assistant tool call] {p.name} {p.arguments_json()}", p.id))
            elif isinstance(p, ToolResponse):
                tag = "[tool result, error]" if p.is_error else "[tool result]"
                output = p.output.strip()
                if result_chars is not None:
                    output = cut_lines(output, result_chars)
                lines.append(Line(f"{tag} {output}", p.id, is_result=True))
            elif isinstance(p, Attachment):
                lines.append(Line(_attachment_line(m.role, p)))
    return lines


def _attachment_line(role: str, p: Attachment) -> str:
    """An attachment's line: its labelled text, or the stub of bytes (an image)."""
    if p.text is None:
        return f"[{role} attachment] {p.stub()}"
    return f"[{role} attachment: {p.source}]\n{p.text.strip()}"


def kept_line_chars(message: Message) -> Iterator[int]:
    """The length of each line :func:`flatten` makes of ``message``, its tool results left out.

    Computed without building the lines (a text's or a call's line is its prefix and its
    text); ``message`` is not a continuation (:func:`flatten` makes no line of one).
    """
    prefix = len(_one_line_prefix(message.role, message)) + 2  # "[role]: "
    for p in message.content:
        if isinstance(p, TextContent):
            text = p.text.strip()
            if text:
                yield prefix + len(text)
                prefix = len(_one_line_prefix(message.role, message, first_text=False)) + 2
        elif isinstance(p, ToolRequest):
            yield len(f"[assistant tool call] {p.name} ") + len(p.arguments_json())
        elif isinstance(p, Attachment):
            yield len(_attachment_line(message.role, p))


def measured_lines(messages: Sequence[Message], counter: TokenCounter,
                    result_chars: int | None) -> list[Line]:
    """:func:`flatten`, each line with its tokens (estimated from a stored count if any).

    A line's tokens are its message's stored count scaled to the line's characters (the
    message's own tokens per character), else counted: a long session's head is not tokenised
    a second time to size the summary request. The request chosen is counted exactly
    (:meth:`SummaryLadder._build`).
    """
    out: list[Line] = []
    for m in messages:
        ratio = counter.stored_tokens_per_char(m)
        for line in flatten((m,), result_chars):
            tokens = (counter.count_text(line.text) if ratio is None
                      else math.ceil(len(line.text) * ratio))
            out.append(Line(line.text, line.tool_id, line.is_result, tokens + 1))
    return out
