"""What a resumed REPL draws: the tail of the transcript, not the whole history.

Drawing every stored message with rich before the prompt costs seconds per thousand
messages, so a resumed session shows at most the last :data:`TAIL_TURNS` turns and at most
about :data:`TAIL_LINES` lines of them, then says how many earlier messages there are and how
to see them (``/history user``; ``--history`` draws everything). See docs/architecture.md
("The print path").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from goosectx.cli.folding import ARGUMENT_LINES, FOLD_LINES, plural
from goosectx.conversation import (
    Conversation,
    Message,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)

TAIL_TURNS = 2
"""At most this many of the newest turns (a turn starts at a user request)."""
TAIL_LINES = 40
"""About this many terminal lines at most (a longer text is drawn as its last lines)."""
LONG_TEXT_LINES = TAIL_LINES // 2
"""A text part drawn on resume keeps about this many of its last terminal lines."""
REQUEST_LINES = 6
"""A tail cut inside a turn starts with the turn's request, cut to about this many lines."""
_PANEL_LINES = 2
"""Border lines around a text panel."""

if TYPE_CHECKING:
    from goosectx.cli.render import TranscriptRenderer


def estimated_lines(message: Message, width: int) -> int:
    """About how many terminal lines :meth:`Renderer.message` draws for ``message``."""
    width = max(20, width - 4)
    total = 0
    for part in message.content:
        if isinstance(part, TextContent | ThinkingContent):
            text_lines = part.text.splitlines() or [""]
            total += _PANEL_LINES + sum(max(1, -(-len(line) // width)) for line in text_lines)
        elif isinstance(part, ToolRequest):
            total += 1 + min(ARGUMENT_LINES, len(part.arguments or {}) or 1)
        elif isinstance(part, ToolResponse):
            total += 1 + min(FOLD_LINES, part.output.count("\n") + 1)
        else:
            total += 1
    return total


def resume_tail(messages: Sequence[Message], *, width: int,
                max_lines: int = TAIL_LINES, max_turns: int = TAIL_TURNS
                ) -> tuple[list[Message], int]:
    """The newest user-visible messages to draw on resume, and how many come before them.

    Walks back from the newest message, stopping before a message that would pass
    ``max_lines`` or start a turn beyond ``max_turns``; the newest message is always kept.
    A tail that starts inside a turn gets the turn's request first (its end, at most
    :data:`REQUEST_LINES` lines) and a note of how many of the turn's messages are left out.
    Only the kept messages are measured; the earlier ones are merely counted (a flag each).

    Returns:
        (the messages to draw, oldest first; the number of earlier user-visible messages).
    """
    kept: list[Message] = []
    lines = 0
    turns = 0
    index = len(messages)
    while index > 0:
        m = messages[index - 1]
        if not m.metadata.user_visible:
            index -= 1
            continue
        m = _capped(m, width, LONG_TEXT_LINES)
        cost = estimated_lines(m, width)
        if kept and lines + cost > max_lines:
            break
        kept.append(m)
        lines += cost
        index -= 1
        if m.role == "user" and m.is_user_request:
            turns += 1
            if turns >= max_turns:
                break
    skipped = 0
    if kept and not kept[-1].is_user_request:  # cut mid-turn: draw what the turn is for
        start = index
        while start > 0 and not (messages[start - 1].metadata.user_visible
                                 and messages[start - 1].is_user_request):
            start -= 1
        if start > 0:
            skipped = sum(1 for m in messages[start:index] if m.metadata.user_visible)
            if skipped:
                kept.append(Message.notification(
                    f"… {plural(skipped, 'earlier message')} of this turn"))
            kept.append(_capped(messages[start - 1], width, REQUEST_LINES))
            index = start - 1
    kept.reverse()
    earlier = sum(1 for m in messages[:index] if m.metadata.user_visible) + skipped
    return kept, earlier


def _capped(message: Message, width: int, max_lines: int) -> Message:
    """``message`` with each text part longer than ``max_lines`` terminal lines cut to its end.

    The cut text starts with a line saying how many lines are above and how to see them; the
    stored message is unchanged (only the drawing is shortened).
    """
    width = max(20, width - 4)
    parts = []
    for part in message.content:
        if isinstance(part, TextContent) and (part.text.count("\n") >= max_lines
                                              or len(part.text) > max_lines * width):
            part = replace(part, text=_text_end(part.text, width, max_lines))
        parts.append(part)
    return replace(message, content=tuple(parts)) if parts != list(message.content) else message


def _text_end(text: str, width: int, max_lines: int) -> str:
    """The last ``max_lines`` terminal lines of ``text`` after a line saying what is above.

    A line too long to fit whole keeps its end, from a word's start where one is near; the
    line above then says so ("… 2 lines and 85 characters above"). Plain words, no
    Markdown: plain mode prints the text as it is.
    """
    lines = text.splitlines()
    kept: list[str] = []
    room = max_lines
    head = 0  # characters of a cut line left above
    while lines and room > 0:
        line = lines[-1]
        rows = max(1, -(-len(line) // width))
        if rows > room:  # one very long line: keep its end
            cut = len(line) - room * width + 1
            space = line.find(" ", cut - 1, cut + 30)
            cut = space + 1 if space >= 0 else cut
            kept.append("…" + line[cut:])
            head = cut
            lines.pop()
            break
        kept.append(lines.pop())
        room -= rows
    if not head and (not lines or (len(lines) == 1 and not lines[0])):
        return text
    fence = ["```"] if sum(ln.lstrip().startswith("```") for ln in kept) % 2 else []
    end = "\n".join([*fence, *reversed(kept)])  # a cut inside a code block stays one
    above = [plural(len(lines), "line")] if lines else []
    if head:
        above.append(plural(head, "character"))
    return f"… {' and '.join(above)} above · /history user to see all\n\n{end}"


def draw_resumed(renderer: TranscriptRenderer, conversation: Conversation, *, width: int,
                 full: bool) -> None:
    """Draw a resumed session: the tail (everything with ``--history``), then a rule."""
    if full:
        renderer.history(conversation)
        renderer.rule("resumed · earlier messages above")
        return
    tail, earlier = resume_tail(conversation.messages, width=width)
    renderer.history(tail)
    if earlier:
        renderer.rule(f"resumed · {plural(earlier, 'earlier message')} · "
                      "/history user to see them")
    else:
        renderer.rule("resumed · earlier messages above")
