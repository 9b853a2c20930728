"""Storing the token counts a session's counter made.

The part of the session recorder (:class:`~goosectx.recorder.SessionRecorder`) a dry run
needs, without the events.

Counts only (``message_state`` rows, migration 8; docs/architecture.md §8): up to
:data:`BULK_COUNTS` in the caller's transaction, more on a background thread — which a front
end may hold back until it is idle (:attr:`CountSaver.defer_bulk`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from goosectx.message import Message
from goosectx.session import Session, TokenCount
from goosectx.store import SessionStore

BULK_COUNTS = 1_000
"""More new counts than this at once are stored in the background, this many per transaction
(each count is one small ``message_state`` row, migration 8)."""


class CountSaver:
    """Store the token counts made for one session (the recorder's count part).

    Args:
        store: The session store.
        session: The in-memory session (its id, messages and stored counts are read).
    """

    def __init__(self, store: SessionStore, session: Session) -> None:
        self.store = store
        self.session = session
        self.fresh_token_counts: Callable[[], Mapping[str, TokenCount]] | None = None
        """Where new token counts come from (``ContextManager.take_fresh_token_counts``);
        they are stored after each model call, each compaction, and on :meth:`save_counts`."""
        self._saver: threading.Thread | None = None
        self.defer_bulk = False
        """True: a batch of more than :data:`BULK_COUNTS` waits for :meth:`start_deferred`
        (the REPL: once its prompt is drawn), or a :meth:`save_counts` that waits. Its save
        (0.4 s of CPU and the store's writer lock at 100k messages, the first turn after a
        resume) then runs while the user reads, not between the answer's last chunk and the
        prompt."""
        self._deferred: dict[str, TokenCount] = {}

    @property
    def has_deferred(self) -> bool:
        """Whether a batch of counts waits for :meth:`start_deferred`."""
        return bool(self._deferred)

    def save_counts(self, *, wait: bool = False) -> None:
        """Store the token counts made since the last save.

        Up to :data:`BULK_COUNTS` in one transaction here; more in the background (held back
        while :attr:`defer_bulk`, unless ``wait``).

        Args:
            wait: Also wait for a background save to end (before the process ends).
        """
        counts = self.fresh_token_counts() if self.fresh_token_counts else None
        messages = self.session.conversation.messages
        if counts and len(counts) <= BULK_COUNTS:
            counts = counts_of_messages(messages, counts, self.session.token_counts)
            if counts:
                self.store.save_token_counts(self.session.id, counts)
        elif counts:  # checked on the saving thread, against the messages as they are then
            self._deferred.update(counts)
        if wait or not self.defer_bulk:
            self.start_deferred()
        if wait:
            self.wait_for_counts()

    def start_deferred(self) -> None:
        """Start storing the batch of counts held back (:attr:`defer_bulk`), if any."""
        counts, self._deferred = self._deferred, {}
        if counts:
            self._save_in_background(counts, list(self.session.conversation.messages))

    def _save_in_background(self, counts: dict[str, TokenCount],
                            messages: list[Message]) -> None:
        self.wait_for_counts()  # one background save at a time
        session_id, data_dir, kind = self.session.id, self.store.data_dir, type(self.store)

        def work() -> None:
            try:
                store = kind(data_dir)
                try:
                    items = list(counts_of_messages(messages, counts, None).items())
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


def counts_of_messages(messages: list[Message], counts: Mapping[str, TokenCount],
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
