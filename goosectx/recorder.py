"""The session recorder: the one writer that turns core events into store writes.

Used alike by the REPL, ``run``, ``compact`` and the tests (DESIGN.md §2 "Who writes").
``MessageCompleted`` → one appended row; ``HistoryReplaced`` / ``CompactionUndone`` /
``ToolPairsSummarized`` → one transaction; ``UsageUpdated`` → one ledger row plus the new
``current`` figure. After each of the last four, the token counts made since are stored with
their messages (one transaction).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from goosectx.events import (
    CompactionUndone,
    Event,
    HistoryReplaced,
    MessageCompleted,
    ToolPairsSummarized,
    UsageUpdated,
)
from goosectx.session import Session, TokenCount
from goosectx.store import SessionStore


class SessionRecorder:
    """Persist the events of one session.

    Args:
        store: The session store.
        session: The in-memory session the core works on; only its id and state are read
            (the state is stored with every usage row and history replacement).
    """

    def __init__(self, store: SessionStore, session: Session) -> None:
        self.store = store
        self.session = session
        self.fresh_token_counts: Callable[[], Mapping[str, TokenCount]] | None = None
        """Where new token counts come from (``ContextManager.take_fresh_token_counts``);
        they are stored after each model call, each compaction, and on :meth:`save_counts`."""

    def save_counts(self) -> None:
        """Store the token counts made since the last save (one transaction, if any)."""
        counts = self.fresh_token_counts() if self.fresh_token_counts else None
        if counts:
            self.store.save_token_counts(self.session.id, counts)

    def record(self, event: Event) -> None:
        """Persist ``event`` if it changes the session; other events are ignored.

        Raises:
            StoreError: the write failed (nothing half-written: each write is a transaction).
        """
        sid = self.session.id
        if isinstance(event, MessageCompleted):
            self.store.append_message(sid, event.message)
        elif isinstance(event, UsageUpdated):
            self.store.add_usage(
                sid, event.call, current_tokens=event.current_tokens, is_estimate=event.is_estimate,
                state=self.session.state,
            )
        elif isinstance(event, HistoryReplaced):
            self.store.replace_history(
                sid,
                event.conversation,
                ledger_entry=event.call,
                current_tokens=event.tokens_after,
                current_is_estimate=True,
                state=replace(self.session.state,
                              auto_compaction_paused=event.auto_compaction_paused),
            )
        elif isinstance(event, CompactionUndone):
            # The undone compaction's ledger row stays: its cost was paid.
            self.store.replace_history(sid, event.conversation, current_tokens=event.tokens_after,
                                       current_is_estimate=True, state=self.session.state)
        elif isinstance(event, ToolPairsSummarized):
            self.store.replace_history(sid, event.conversation, ledger_entry=event.call)
        if isinstance(event, UsageUpdated | HistoryReplaced | CompactionUndone
                      | ToolPairsSummarized):
            self.save_counts()
