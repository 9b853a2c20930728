"""What every imported transcript goes through last (:meth:`TranscriptBuilder.session`).

One place for every importer, so no format keeps what the model would silently lose:

* **Elision**: every part over :data:`~goosectx.importers.builder.MAX_MESSAGE_CHARS` is cut to
  head and tail around an "elided on import" marker, however the importer made the message
  (a part appended to an earlier message included).
* **Tool pairs**: the agent view drops a tool call without a result and a result without a
  call (providers refuse them), so an import mends them and says so, as ``--skip-damaged``
  does for a damaged row: a call no later message answers gets a result saying the transcript
  has none (:data:`NO_RESULT_TEXT`, an error) in the message after it — except the calls of
  the transcript's last message, which a resume answers (``turn.UNRECORDED_TEXT``) and says;
  a result whose call is not in the transcript becomes text (:data:`NO_CALL_TEXT`, then its
  output), and so does a call written in a user message.

:func:`finish` returns the notes the import prints (``note: …`` lines).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace

from goosectx.conversation_repair import matched_tool_parts
from goosectx.message import Message, MessageMetadata
from goosectx.parts import Part, TextContent, ToolRequest, ToolResponse
from goosectx.turn import NO_RESULT_TEXT

NO_CALL_TEXT = "[a tool result whose call is not in the imported transcript; its output:]"
"""Starts the text an imported tool result without its call becomes."""
MISPLACED_CALL_TEXT = "[a tool call the imported transcript holds in a user message:]"
"""Starts the text a tool call in a user message becomes (only a reply can make a call)."""

__all__ = ["MISPLACED_CALL_TEXT", "NO_CALL_TEXT", "NO_RESULT_TEXT", "finish"]


def finish(messages: Sequence[Message], cap: Callable[[Part], Part]
           ) -> tuple[list[Message], list[str]]:
    """``messages`` with every part capped (``cap``) and every tool part paired; the notes.

    Returns:
        The messages (the ones unchanged as they were) and one note per kind of mend made.
    """
    capped = [_capped(m, cap) for m in messages]
    matched = matched_tool_parts(capped)
    if _all_paired(capped, matched):
        return capped, []
    last = len(capped) - 1
    out: list[Message] = []
    unanswered: list[str] = []
    orphans = 0
    for i, m in enumerate(capped):
        parts: list[Part] = []
        owed: list[ToolResponse] = []
        for j, p in enumerate(m.content):
            if not isinstance(p, ToolRequest | ToolResponse) or (i, j) in matched:
                parts.append(p)
            elif isinstance(p, ToolResponse):
                orphans += 1
                parts.append(TextContent(f"{NO_CALL_TEXT}\n{p.output}"))
            elif m.role != "assistant":
                parts.append(TextContent(f"{MISPLACED_CALL_TEXT} {p.name} "
                                         f"{json.dumps(p.arguments, ensure_ascii=False)}"))
            else:
                parts.append(p)
                if i != last:  # the last message's calls: answered on resume, and said
                    unanswered.append(p.name)
                    owed.append(ToolResponse(p.id, NO_RESULT_TEXT, is_error=True))
        out.append(m if parts == list(m.content) else replace(m, content=tuple(parts)))
        if owed:
            out.append(Message("user", tuple(owed), MessageMetadata(), f"{m.id}_results",
                               m.created))
    return out, _notes(unanswered, orphans)


def _capped(message: Message, cap: Callable[[Part], Part]) -> Message:
    parts = tuple(cap(p) for p in message.content)
    return message if all(a is b for a, b in zip(parts, message.content, strict=True)) else (
        replace(message, content=parts))


def _all_paired(messages: list[Message], matched: set[tuple[int, int]]) -> bool:
    return all((i, j) in matched for i, m in enumerate(messages)
               for j, p in enumerate(m.content) if isinstance(p, ToolRequest | ToolResponse)
               if not (i == len(messages) - 1 and isinstance(p, ToolRequest)
                       and m.role == "assistant"))


def _notes(unanswered: list[str], orphans: int) -> list[str]:
    notes = []
    if unanswered:
        names = ", ".join(dict.fromkeys(unanswered))
        notes.append(f"{_count(len(unanswered), 'tool call')} ({names}) had no result in the "
                     "transcript: each is answered with a result saying so, which the model "
                     "reads")
    if orphans:
        notes.append(f"{_count(orphans, 'tool result')} had no call in the transcript: "
                     "each is kept as text saying so, which the model reads")
    return notes


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"
