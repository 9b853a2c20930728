"""One-line texts of the transcript: the rule after a compaction, an attachment's line.

Pure functions (no console): :mod:`goosectx.cli.render` draws what they return.
"""

from __future__ import annotations

from goosectx.attachment import Attachment
from goosectx.cli.sanitize import terminal_safe
from goosectx.events import HistoryReplaced
from goosectx.usage import cost_text

__all__ = ["attachment_line", "compaction_rule_text"]


def compaction_rule_text(event: HistoryReplaced, *, say_cost_unknown: bool = True) -> str:
    """``context compacted · 118,402 → 6,911 tokens · $0.0040`` (DESIGN.md §4.2 step 5).

    ``/clear`` reads ``context cleared · …``; an extractive summary says so instead of a
    cost; a trigger other than ``manual`` is named at the end. An unknown cost reads "cost
    unknown" only when ``say_cost_unknown`` (the renderer says it once a session); a cost we
    estimated reads ``~$0.0040 (estimate)``.
    """
    head = "context cleared" if event.trigger == "clear" else "context compacted"
    parts = [head, f"{event.tokens_before:,} → {event.tokens_after:,} tokens"]
    if event.trigger != "clear":
        if event.strategy == "extractive" and event.call is None:
            parts.append("extractive, no model call")
        elif event.cost_usd is not None or say_cost_unknown:
            parts.append(cost_text(event.cost_usd, event.call is not None
                                   and event.call.usage.estimated))
    if event.trigger in ("auto", "reactive"):
        parts.append(event.trigger)
    if event.auto_compaction_paused:
        parts.append("auto-compaction paused")
    return " · ".join(parts)


def attachment_line(attachment: Attachment) -> str:
    """An attachment folded to one terminal-safe line: its stub (the content is never drawn).

    ``[attached: src/app.py, 1,240 tokens]``. The source is outside text: it passes the one
    sanitiser (escape sequences shown visibly, never executed) and is kept on one line.
    """
    return " ".join(terminal_safe(attachment.stub()).split())
