"""The summary request's input: the head flattened to lines, each with its token estimate.

Part of step 2 of the compaction pipeline (docs/architecture.md §5), apart from the ladder
(:mod:`goosectx.compaction.request`) that removes and elides lines until the request fits.
The agent-visible messages are flattened to lines (``[user]: …``, ``[assistant]: …``, tool
calls as name + arguments, tool results as text; thinking and notifications omitted); a
result longer than ``summary_result_chars`` is cut to its head and tail lines. A line's
tokens come from its message's stored count where there is one. Text from outside (tools,
files, the model, imports) cannot close or forge the ``<conversation>`` block or a role label
(:func:`quoted`), as an ``@`` attachment's text cannot close its block.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from goosectx.conversation import (
    Attachment,
    Message,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import compared_record
from goosectx.tokens import TokenCounter


@compared_record  # read-only to mypy; printed nowhere (a test)
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
        return _SUMMARY_LABEL
    return f"[{role}]"


_SUMMARY_LABEL = "[summary of the earlier conversation]"

_BLOCK_TAG = LazyPattern(r"<(?=[\s/]*conversation)", re.I)  # (each compiled at its first use)
_LABEL = ("\\[(?=[ \t]*(?:user|assistant|tool|summary of the earlier conversation)\\b"
          "[^\\]\n]{0,200}\\])")
_ROLE_LABEL = LazyPattern("(\n[ \t]*)" + _LABEL, re.I)  # (a literal start: scanned fast)
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # str.splitlines' (a model may too)
_ROLE_LABEL_ANY = LazyPattern(f"([\n{_OTHER_BREAKS}][ \t]*)" + _LABEL, re.I)
_ASCII_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"  # those of them an ASCII text may hold


def _other_break(text: str) -> bool:
    r"""Whether ``text`` holds a line break other than ``"\n"`` (one ``in`` scan each)."""
    for c in _ASCII_BREAKS if text.isascii() else _OTHER_BREAKS:  # a loop, not ``any``
        if c in text:
            return True
    return False


def quoted(text: str) -> str:
    """``text`` as the summary request's block holds it: data that cannot act as its frame.

    The ``<`` starting a ``<conversation>`` or ``</conversation>`` tag is written ``&lt;`` (as
    an attachment's own tags are: :meth:`goosectx.attachment.Attachment.labelled_text`), and
    the ``[`` of a role label (``[user]``, ``[assistant]``, ``[tool result]``, the summary's)
    starting a line inside the text ``&#91;``; nothing else changes.
    """
    if "<" in text:
        text = _BLOCK_TAG.sub("&lt;", text)
    if "[" in text:
        any_break = _other_break(text)
        text = (_ROLE_LABEL_ANY if any_break else _ROLE_LABEL).sub(r"\1&#91;", text)
    return text


def cut_lines(text: str, max_chars: int) -> str:
    """``text`` cut to its first and last lines within ``max_chars`` with a marker.

    ``[… N lines cut …]`` names how many lines were left out; a text with few, long lines is
    cut by characters instead.
    """
    if len(text) <= max_chars:
        return text
    if not _other_break(text):  # "\n" alone breaks lines: no list of them
        return _cut_at_newlines(text, max_chars // 2)
    return _cut_split(text, max_chars // 2)


def _cut_split(text: str, half: int) -> str:
    """:func:`cut_lines` of ``text``, longer than ``2 * half``, from its list of lines."""
    lines = text.splitlines()
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


def _cut_at_newlines(text: str, half: int) -> str:
    r""":func:`_cut_split` of a text only ``"\n"`` breaks, found from the positions of those.

    A line is kept in the head when it ends (its ``"\n"``) before ``half``, in the tail when
    it starts at least ``half - 1`` characters before the end (a last ``"\n"`` ends no
    line, as for ``splitlines``); the two never meet (the text is over ``2 * half``).
    """
    body = text[:-1] if text.endswith("\n") else text
    end = body.rfind("\n", 0, half)  # the head's last line ends there
    start = body.find("\n", len(body) - half)  # the tail's first line starts after it
    if end < 0 and start < 0:
        return f"{text[:half]} [… {len(text) - 2 * half:,} characters cut …] {text[-half:]}"
    kept = (body.count("\n", 0, end) + 1 if end >= 0 else 0) + (
        body.count("\n", start) if start >= 0 else 0)
    marker = f"[… {body.count(chr(10)) + 1 - kept:,} lines cut …]"
    return "\n".join([*([body[:end]] if end >= 0 else []), marker,
                      *([body[start + 1:]] if start >= 0 else [])])


def flatten(messages: Sequence[Message], result_chars: int | None = None) -> list[Line]:
    """Flatten agent-visible messages to summary-input lines, oldest first.

    Continuation messages (compaction boilerplate), thinking and notifications are omitted;
    a tool result longer than ``result_chars`` is cut to head and tail lines. A text
    attachment becomes a block labelled with its source; bytes (an image) their stub.
    """
    return [Line(text, tool_id, is_result) for m in messages
            if not m.metadata.is_continuation
            for text, tool_id, is_result in _line_parts(m, result_chars)]


def _line_parts(m: Message, result_chars: int | None) -> list[tuple[str, str | None, bool]]:
    """(text, tool id, is result) of each of :func:`flatten`'s lines of ``m``."""
    return _lines_and_counted_chars(m, result_chars)[0]


def _lines_and_counted_chars(m: Message, result_chars: int | None
                             ) -> tuple[list[tuple[str, str | None, bool]], int]:
    """:func:`_line_parts` of ``m`` and ``message_chars_for_count(m)``, in one pass.

    Each tool call's arguments are made JSON once, for both.
    """
    lines: list[tuple[str, str | None, bool]] = []
    first_text = True
    chars = pieces = 0
    for p in m.content:
        if isinstance(p, TextContent):
            chars += len(p.text)
            pieces += 1
            if p.text.strip():
                prefix = _one_line_prefix(m.role, m, first_text=first_text)
                lines.append((f"{prefix}: {quoted(p.text.strip())}", None, False))
                first_text = False
        elif isinstance(p, ToolRequest):
            arguments = p.arguments_json()
            chars += len(p.name) + len(arguments)
            pieces += 2
            lines.append((f"[assistant tool call] {quoted(p.name)} {quoted(arguments)}", p.id,
                          False))
        elif isinstance(p, ToolResponse):
            tag = "[tool result, error]" if p.is_error else "[tool result]"
            output = p.output
            chars += len(output)
            pieces += 1
            output = output.strip()
            if result_chars is not None:
                output = cut_lines(output, result_chars)
            lines.append((f"{tag} {quoted(output)}", p.id, True))
        elif isinstance(p, Attachment):
            if p.is_text:
                chars += len(p.labelled_text())
                pieces += 1
            lines.append((_attachment_line(m.role, p), None, False))
        elif isinstance(p, ThinkingContent) and p.signature:
            chars += len(p.text)
            pieces += 1
    return lines, chars + max(0, pieces - 1)


def _attachment_line(role: str, p: Attachment) -> str:
    """An attachment's line: its labelled text, or the stub of bytes (an image)."""
    if p.text is None:
        return f"[{role} attachment] {p.stub()}"
    return f"[{role} attachment: {quoted(p.source)}]" + quoted(f"\n{p.text.strip()}")


def kept_and_counted_chars(message: Message) -> tuple[list[int], int]:
    """Each length of :func:`flatten`'s lines of ``message`` but results; its counted length.

    The second is ``message_chars_for_count(message)``; both in one pass, without building
    the lines (a text's or a call's line is its prefix and its text); ``message`` is not a
    continuation (:func:`flatten` makes no line of one). Each tool call's arguments are made
    JSON once, for both. With no such line (a message of tool results only) the counted
    length is 0 and no output is read.
    """
    lines, chars = _kept_lines(message)
    return [base + len(quoted(a)) + len(quoted(b)) for base, a, b in lines], chars


def kept_floor_tokens(message: Message, counter: TokenCounter, cap: int) -> int | None:
    """``sum(min(ceil(n * ratio) + 1, cap))`` over the ``n`` of :func:`kept_and_counted_chars`.

    ``ratio``: the message's stored tokens per character (``None`` without a stored count,
    unless it has no such line: 0). A line is quoted only when its unquoted length leaves it
    under ``cap`` (quoting only lengthens a text).
    """
    lines, chars = _kept_lines(message)
    if not lines:
        return 0
    ratio = counter.stored_tokens_per_char(message, chars)
    if ratio is None:
        return None
    total = 0
    for base, a, b in lines:
        if math.ceil((base + len(a) + len(b)) * ratio) + 1 >= cap:
            total += cap
        else:
            total += min(math.ceil((base + len(quoted(a)) + len(quoted(b))) * ratio) + 1, cap)
    return total


def _kept_lines(message: Message) -> tuple[list[tuple[int, str, str]], int]:
    """:func:`kept_and_counted_chars`, each line ``(n, a, b)``: ``n + len(quoted(a)) + …(b)``."""
    lines: list[tuple[int, str, str]] = []
    chars = pieces = 0
    results: list[ToolResponse] = []
    role = message.role
    label = len(_SUMMARY_LABEL) if message.metadata.is_summary else len(role) + 2  # "[role]"
    for p in message.content:  # the commonest parts first
        if isinstance(p, TextContent):
            text = p.text
            chars += len(text)
            pieces += 1
            kept = text.strip()
            if kept:
                lines.append((label + 2, kept, ""))  # _one_line_prefix's label, ": ", the text
                label = len(role) + 2  # a summary's first text alone is the summary
        elif isinstance(p, ToolRequest):
            arguments = p.arguments_json()
            lines.append((23, p.name, arguments))  # "[assistant tool call] NAME ARGUMENTS"
            chars += len(p.name) + len(arguments)
            pieces += 2
        elif isinstance(p, ToolResponse):
            results.append(p)
            pieces += 1
        elif isinstance(p, Attachment):
            lines.append((len(_attachment_line(role, p)), "", ""))
            if p.is_text:
                chars += len(p.labelled_text())
                pieces += 1
        elif isinstance(p, ThinkingContent):
            if p.signature:
                chars += len(p.text)
                pieces += 1
    if not lines:
        return lines, 0
    chars += sum(len(r.output) for r in results)
    return lines, chars + max(0, pieces - 1)


def measured_message(m: Message, counter: TokenCounter, result_chars: int | None) -> list[Line]:
    """:func:`flatten`'s lines of ``m`` (not a continuation), each with its tokens.

    A line's tokens are the message's stored count scaled to the line's characters (the
    message's own tokens per character), else counted: a long session's head is not tokenised
    a second time to size the summary request. The request chosen is counted exactly
    (:meth:`SummaryLadder._build`).
    """
    return measured_lines_and_chars(m, counter, result_chars)[0]


def measured_lines_and_chars(m: Message, counter: TokenCounter, result_chars: int | None
                             ) -> tuple[list[Line], int]:
    """:func:`measured_message` of ``m`` and the counted characters its tokens were scaled by."""
    parts, chars = _lines_and_counted_chars(m, result_chars)
    ratio = counter.stored_tokens_per_char(m, chars)
    out: list[Line] = []
    for text, tool_id, is_result in parts:
        tokens = (counter.count_text(text) if ratio is None
                  else math.ceil(len(text) * ratio))
        out.append(Line(text, tool_id, is_result, tokens + 1))
    return out, chars
