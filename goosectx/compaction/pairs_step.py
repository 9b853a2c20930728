"""The tool-pair step after a model call: old tool pairs become one-line agent-only notes.

Called by :meth:`~goosectx.compaction.manager.ContextManager.after_call`
(docs/architecture.md §5). Never prints; yields events.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from goosectx.compaction.summarize import SummaryCancelled, summarising_text, tool_pair_notes
from goosectx.compaction.toolpairs import apply_notes, select_pairs
from goosectx.events import Event, Notification, ToolPairsSummarized
from goosectx.providers.base import Provider
from goosectx.session import Session
from goosectx.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class Condensed:
    """What the step changed: the raw tokens it hid and the event to yield once figures are set."""

    hidden_tokens: int
    event: ToolPairsSummarized


def condense_old_pairs(
    session: Session, summarisers: Sequence[Provider], counter: TokenCounter,
    counter_for: Callable[[str | None], TokenCounter], *, cutoff: int,
    cancel: threading.Event | None, redact: Callable[[str], str] | None = None,
) -> Generator[Event, None, Condensed | None]:
    """Condense the oldest tool pairs past ``cutoff`` (+ the batch) in one summariser call.

    The oldest 10 pairs (never the newest 3) become notes; a note the reply lacks, or a failed
    call, gets an extractive one. Yields a thinking notification; returns ``None`` when there
    is nothing to condense or ``cancel`` was set during the call (nothing changes then).
    ``redact``: the redaction a model's reply gets, given to each note the summariser wrote.
    """
    pairs = select_pairs(session.conversation.agent_messages(), cutoff)
    if not pairs:
        return None
    yield Notification("thinking", summarising_text(len(pairs), "old tool call"))
    try:
        notes, call = tool_pair_notes(summarisers, pairs, counter_for, cancel=cancel)
    except SummaryCancelled:
        return None
    if redact is not None:  # a key the summariser wrote: kept out, as a reply's is
        notes = [None if note is None else redact(note) for note in notes]
    new, hidden, added = apply_notes(session.conversation.messages, pairs, notes)
    hidden_tokens = counter.count_messages(hidden)
    saved = hidden_tokens - counter.count_messages(added)
    session.conversation.messages = new
    if call is not None:
        session.ledger.entries.append(call)
    return Condensed(hidden_tokens, ToolPairsSummarized(len(pairs), saved,
                                                        session.conversation.snapshot(), call))
