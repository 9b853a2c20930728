"""Tool-pair summarisation (DESIGN.md §4.3, after goose's tool-call summarisation).

Tool requests and responses grow faster than prose. When the agent-visible tool pairs that
can be condensed exceed cutoff + 10, the oldest 10 (never one of the newest 3) are replaced in
the model's view by one-line notes written in ONE summariser call: each note is an agent-only
assistant message placed where its pair stood, and the pair becomes user-only. Only messages
that hold nothing but their pair are rewritten, so no tool request ever loses its response. A note
carries what its pair gives the facts (:func:`condensed_pair`), so later compactions still list
the files, errors and commands of condensed pairs (docs/architecture.md §5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from goosectx.compaction.decide import PROTECTED_NEWEST_PAIRS, TOOL_PAIR_BATCH
from goosectx.compaction.prompts import (
    TOOL_PAIR_NOTE_PREFIX,
    TOOL_PAIRS_INSTRUCTIONS,
)
from goosectx.compaction.request import elide_middle
from goosectx.compaction.tool_errors import error_excerpt, ran_status
from goosectx.conversation import (
    CONDENSED_PAIRS,
    Message,
    MessageList,
    MessageMetadata,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
    answered_requests,
)
from goosectx.tokens import TokenCounter

NOTE_MAX_CHARS = 240
"""A note longer than this (from the model) is cut."""
CONDENSED_ARGUMENT_CHARS = 2_000
"""A note keeps its pair's string arguments (and a failed result's start) up to this length."""
TOOL_PAIRS_OUTPUT_TOKENS = 2_000
"""``max_tokens`` of the notes call (before the model's own output limit)."""


@dataclass(frozen=True, slots=True)
class ToolPair:
    """A tool request and its response, each alone in its message.

    Attributes:
        request_message: The assistant message holding only ``request`` (thinking allowed).
        response_message: The user message holding only ``response``.
        request: The tool call.
        response: Its result.
    """

    request_message: Message
    response_message: Message
    request: ToolRequest
    response: ToolResponse


def _sole_request(message: Message) -> ToolRequest | None:
    if message.role != "assistant":
        return None
    requests = message.tool_requests
    others = [p for p in message.content if not isinstance(p, ToolRequest | ThinkingContent)
              and not (isinstance(p, TextContent) and not p.text.strip())]
    return requests[0] if len(requests) == 1 and not others else None


def _sole_response(message: Message) -> ToolResponse | None:
    if message.role != "user" or len(message.content) != 1:
        return None
    part = message.content[0]
    return part if isinstance(part, ToolResponse) else None


def count_tool_pairs(agent_messages: Sequence[Message]) -> int:
    """Number of tool requests in ``agent_messages`` that have their response."""
    return len(answered_requests(agent_messages))


def select_pairs(agent_messages: Sequence[Message], cutoff: int) -> list[ToolPair]:
    """The pairs to summarise now: the oldest eligible ones, at most 10, or none.

    Only pairs whose messages hold nothing else can be condensed, so only they count: nothing
    is selected unless they exceed ``cutoff`` + 10 (a pair beside the model's text, or one of
    several parallel calls, would otherwise keep the count above the trigger for good and cost
    a summariser call per tool call). The newest 3 pairs are never selected.
    """
    answered = answered_requests(agent_messages)
    newest = len(answered) - PROTECTED_NEWEST_PAIRS
    pairs: list[ToolPair] = []
    old: list[ToolPair] = []
    for k, (at, request, answer) in enumerate(answered):
        response = _sole_response(agent_messages[answer])
        if _sole_request(agent_messages[at]) is not request or response is None:
            continue
        pairs.append(ToolPair(agent_messages[at], agent_messages[answer], request, response))
        if k < newest:
            old.append(pairs[-1])
    return old[:TOOL_PAIR_BATCH] if len(pairs) > cutoff + TOOL_PAIR_BATCH else []


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def extractive_note(pair: ToolPair) -> str:
    """A one-line note built from the pair itself: name, arguments, first line of output.

    E.g. ``shell `pytest -q` → 3 failed in test_io.py … (12 lines)``.
    """
    req, resp = pair.request, pair.response
    args = req.arguments or {}
    if len(args) == 1 and isinstance(next(iter(args.values())), str):
        shown = f"`{_shorten(next(iter(args.values())), 100)}`"
    else:
        shown = _shorten(req.arguments_json(), 100)
    lines = [ln for ln in resp.output.splitlines() if ln.strip()]
    first = _shorten(lines[0], 120) if lines else "(no output)"
    more = f" … ({len(lines)} lines)" if len(lines) > 1 else ""
    status = "error: " if resp.is_error else ""
    return f"{req.name} {shown} → {status}{first}{more}"


_PAIR_TAG = re.compile(r"<(?=[\s/]*(?:tool_call|result)\b)", re.I)
"""A ``<`` starting a tag of the notes request's frame inside a call's own text."""


def _as_data(text: str) -> str:
    """``text`` as the notes request holds it: its ``<tool_call>``/``<result>`` tags as ``&lt;``.

    A tool's output (a file it read) cannot close its block and open a forged call or
    instruction; nothing else changes.
    """
    return _PAIR_TAG.sub("&lt;", text) if "<" in text else text


def notes_prompt(pairs: Sequence[ToolPair], counter: TokenCounter, per_pair_tokens: int) -> str:
    """The user message of the notes call: each pair in a numbered block, long outputs elided."""
    blocks = []
    for i, pair in enumerate(pairs, 1):
        output = pair.response.output.strip()
        output = elide_middle(output, per_pair_tokens, counter.count_text(output))
        status = ' status="error"' if pair.response.is_error else ""
        call = _as_data(f"{pair.request.name} {pair.request.arguments_json()}")
        blocks.append(f'<tool_call n="{i}">\n{call}\n<result{status}>\n{_as_data(output)}\n'
                      "</result>\n</tool_call>")
    return "\n\n".join(blocks) + "\n\n" + TOOL_PAIRS_INSTRUCTIONS


def note_message(note: str, pair: ToolPair | None = None) -> Message:
    """The agent-only assistant message that stands in for a pair (carrying its facts)."""
    text = note if note.startswith(TOOL_PAIR_NOTE_PREFIX) else TOOL_PAIR_NOTE_PREFIX + note
    message = Message.assistant(_shorten(text, NOTE_MAX_CHARS + len(TOOL_PAIR_NOTE_PREFIX)),
                                MessageMetadata.agent_only())
    return message if pair is None else message.with_metadata(
        extra={CONDENSED_PAIRS: [condensed_pair(pair)]})


def condensed_pair(pair: ToolPair) -> dict[str, Any]:
    """What a later compaction's facts need of ``pair`` (its note's ``CONDENSED_PAIRS`` item).

    The call (long string arguments cut to :data:`CONDENSED_ARGUMENT_CHARS`) and, of the
    result, only its error line (or, for a failed call without one, its start), followed by
    the shell tool's status line when the result ends with one (``[exit code: 1]``: the
    command ran, so a file it wrote is "maybe written by a command that failed", not
    "not changed").
    """
    req, resp = pair.request, pair.response
    arguments = None if req.arguments is None else {
        k: v[:CONDENSED_ARGUMENT_CHARS] if isinstance(v, str) else v
        for k, v in req.arguments.items()}
    excerpt = error_excerpt(resp.output)
    output = excerpt or (resp.output[:CONDENSED_ARGUMENT_CHARS] if resp.is_error else "")
    status = ran_status(resp.output) if resp.is_error else None
    if status is not None and ran_status(output) is None:
        output = f"{output}\n{status}" if output else status
    return {"id": req.id, "name": req.name, "arguments": arguments, "output": output,
            "is_error": resp.is_error}


def apply_notes(messages: Sequence[Message], pairs: Sequence[ToolPair],
                notes: Sequence[str | None]) -> tuple[MessageList, list[Message], list[Message]]:
    """Hide each pair from the model and insert its note right after its response.

    A missing note gets :func:`extractive_note`.

    Returns:
        (the whole new message list — a :class:`MessageList`, which the conversation takes
        as it is —, the hidden messages as they were, the note messages).
    """
    hide: set[str] = set()
    note_after: dict[str, Message] = {}
    hidden: list[Message] = []
    added: list[Message] = []
    for pair, note in zip(pairs, notes, strict=True):
        message = note_message(note or extractive_note(pair), pair)
        hide.update((pair.request_message.id, pair.response_message.id))
        hidden += [pair.request_message, pair.response_message]
        note_after[pair.response_message.id] = message
        added.append(message)
    out = MessageList()
    for m in messages:
        out.append(m.with_metadata(agent_visible=False) if m.id in hide else m)
        if m.id in note_after:
            out.append(note_after[m.id])
    return out, hidden, added
