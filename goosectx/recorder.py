"""The session recorder: the one writer that turns core events into store writes.

Used alike by the REPL, ``run``, ``compact`` and the tests (DESIGN.md §2 "Who writes").
``MessageCompleted`` → one appended row; ``HistoryReplaced`` / ``CompactionUndone`` /
``ToolPairsSummarized`` → one transaction; ``UsageUpdated`` → one ledger row plus the new
``current`` figure; ``TurnFinished`` → the session's state when its stated limits changed
since last written, whatever the turn's outcome (a turn that failed may still have learned
the window a server stated when it rejected the request). After each but
``MessageCompleted`` and ``TurnFinished``, the token counts made since are stored with their
messages (one transaction). A large batch — an old
history counted at first need, e.g. the first turn after resuming an imported session — is
stored on a background thread with its own connection, a transaction per :data:`BULK_COUNTS`
rows, so the prompt does not wait for it (:meth:`SessionRecorder.wait_for_counts` before the
process ends).

A write that fails (a full disk) leaves its event pending, and every later event waits behind
it: each :meth:`SessionRecorder.record` first retries the pending events in order, so the store
always holds the session as it was at some point of the turn — never an answer without the
request before it. :attr:`SessionRecorder.unsaved` says what never reached the store.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import replace

from goosectx.events import (
    CompactionUndone,
    Event,
    HistoryReplaced,
    MessageCompleted,
    ToolPairsSummarized,
    TurnFinished,
    UsageUpdated,
)
from goosectx.message import Message
from goosectx.session import Session, TokenCount
from goosectx.store import SessionStore

BULK_COUNTS = 1_000
"""More new counts than this at once are stored in the background, this many per transaction
(each count is one small ``message_state`` row, migration 8)."""


class SessionRecorder:
    """Persist the events of one session.

    Args:
        store: The session store.
        session: The in-memory session the core works on; only its id and state are read
            (the state is stored with every usage row and history replacement, and at each
            turn's end).
    """

    def __init__(self, store: SessionStore, session: Session) -> None:
        self.store = store
        self.session = session
        self.fresh_token_counts: Callable[[], Mapping[str, TokenCount]] | None = None
        """Where new token counts come from (``ContextManager.take_fresh_token_counts``);
        they are stored after each model call, each compaction, and on :meth:`save_counts`."""
        self._saver: threading.Thread | None = None
        self._pending: list[Event] = []
        self._saved_stated = self._stated()  # the stated limits as last written

    def _stated(self) -> dict[str, list[int]]:
        return {model: list(entry) for model, entry in self.session.state.stated_limits.items()}

    def save_counts(self, *, wait: bool = False) -> None:
        """Store the token counts made since the last save.

        Up to :data:`BULK_COUNTS` in one transaction here; more in the background.

        Args:
            wait: Also wait for a background save to end (before the process ends).
        """
        counts = self.fresh_token_counts() if self.fresh_token_counts else None
        messages = self.session.conversation.messages
        if counts and len(counts) <= BULK_COUNTS:
            counts = _counts_of_messages(messages, counts, self.session.token_counts)
            if counts:
                self.store.save_token_counts(self.session.id, counts)
        elif counts:  # checked on the saving thread, against the messages as they are now
            self._save_in_background(dict(counts), list(messages))
        if wait:
            self.wait_for_counts()

    def _save_in_background(self, counts: dict[str, TokenCount],
                            messages: list[Message]) -> None:
        self.wait_for_counts()  # one background save at a time
        session_id, data_dir, kind = self.session.id, self.store.data_dir, type(self.store)

        def work() -> None:
            try:
                store = kind(data_dir)
                try:
                    items = list(_counts_of_messages(messages, counts, None).items())
                    for start in range(0, len(items), BULK_COUNTS):
                        store.save_token_counts(session_id,
                                                dict(items[start:start + BULK_COUNTS]))
                finally:
                    store.close()
            except Exception:  # noqa: BLE001 - counts are a cache: made again at next need
                pass

        self._saver = threading.Thread(target=work, name="goosectx-counts", daemon=True)
        self._saver.start()

    def wait_for_counts(self) -> None:
        """Wait for a background save of counts (if any) to end."""
        saver, self._saver = self._saver, None
        if saver is not None:
            saver.join()

    @property
    def unsaved(self) -> int:
        """How many events are not stored yet (a write failed; they wait, in order)."""
        return len(self._pending)

    @property
    def unsaved_messages(self) -> int:
        """How many of the :attr:`unsaved` events are messages."""
        return sum(isinstance(event, MessageCompleted) for event in self._pending)

    def record(self, event: Event) -> None:
        """Persist ``event`` if it changes the session; other events are ignored.

        Events whose write failed earlier are written first, in order; ``event`` waits
        behind them (see :meth:`flush`).

        Raises:
            StoreError: a write failed (nothing half-written: each write is a transaction);
                the event it was for, and every one after it, stay pending.
        """
        if isinstance(event, TurnFinished) and self._stated() == self._saved_stated:
            return  # the state is written with the turn's usage rows; a failed turn's, here
        if isinstance(event, _WRITTEN):
            self._pending.append(event)
            self.flush()

    def retract(self, message: Message) -> None:
        """Take back ``message``, just recorded, whose turn was never sent to the model.

        Dropped from the pending writes if it is there, else deleted from the store (one
        transaction; :meth:`SessionStore.retract_message`).
        """
        for index, event in enumerate(self._pending):
            if isinstance(event, MessageCompleted) and event.message.id == message.id:
                del self._pending[index]
                return
        self.store.retract_message(self.session.id, message.id)

    def flush(self) -> None:
        """Write the pending events in order, each in its own transaction.

        Raises:
            StoreError: a write failed; that event and the later ones stay pending.
        """
        counted = False
        while self._pending:
            event = self._pending[0]
            self._write(event)
            del self._pending[0]
            counted = counted or not isinstance(event, MessageCompleted | TurnFinished)
        if counted:
            self.save_counts()

    def _write(self, event: Event) -> None:
        sid = self.session.id
        stated = self._stated()
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
        elif isinstance(event, TurnFinished):  # whatever the outcome: a failed turn, too,
            self.store.update_session(sid, state=self.session.state)  # learns (stated limit)
        if not isinstance(event, MessageCompleted | ToolPairsSummarized):
            self._saved_stated = stated


_WRITTEN = (MessageCompleted, UsageUpdated, HistoryReplaced, CompactionUndone,
            ToolPairsSummarized, TurnFinished)
"""The events that change the stored session."""


def _counts_of_messages(messages: list[Message], counts: Mapping[str, TokenCount],
                        session_counts: dict[str, TokenCount] | None) -> dict[str, TokenCount]:
    """``counts`` less those made for a copy of a message rather than the message itself.

    A copy repair made under a message's id (merged with the next message, or trimmed) has
    another number of parts; its count would be wrong for the stored message (and is dropped
    from ``session_counts``, if given, so the message's own is made at next need). The
    messages are read from the newest back until every id is found (fresh counts are mostly
    new ones).
    """
    wanted = dict(counts)
    kept: dict[str, TokenCount] = {}
    for message in reversed(messages):
        count = wanted.pop(message.id, None)
        if count is not None and count.parts in (None, len(message.content)):
            kept[message.id] = count
        elif (count is not None and session_counts is not None
              and session_counts.get(message.id) is count):
            del session_counts[message.id]  # the message's own count is made at need
        if not wanted:
            break
    return kept
