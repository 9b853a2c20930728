"""The session recorder: the one writer that turns core events into store writes.

Used alike by the REPL, ``run``, ``compact`` and the tests (DESIGN.md §2 "Who writes").
``MessageDelta`` / ``ReasoningDelta`` → the answer so far as a draft row, at the first and
then at most once a second (:mod:`goosectx.answer_draft`), which the answer's
``MessageCompleted`` replaces (any other event but a notification drops it: the loop kept
nothing of that stream); ``MessageCompleted`` → one appended row; ``HistoryReplaced`` /
``CompactionUndone`` / ``ToolPairsSummarized`` → one transaction; ``UsageUpdated`` → one
ledger row plus the new ``current`` figure; ``TurnFinished`` → the session's state when its
stated limits changed since last written, whatever the turn's outcome (a turn that failed may
still have learned the window a server stated when it rejected the request);
``ToolCallFinished`` after a reply with tool calls → its result kept as one row of its own
until the message answering the reply replaces those rows (one transaction), so a process
killed between two calls of a reply leaves the results it had
(:func:`goosectx.turn.answer_interrupted`); :meth:`SessionRecorder.save_figure` → the state
alone, when the context figure the displays noted (``sessions list`` shows it) changed since
it was last written. After each but
``MessageCompleted`` and ``TurnFinished``, the token counts made since are stored with their
messages (one transaction). A large batch — an old
history counted at first need, e.g. the first turn after resuming an imported session — is
stored on a background thread with its own connection, a transaction per :data:`BULK_COUNTS`
rows, so the prompt does not wait for it (:meth:`SessionRecorder.wait_for_counts` before the
process ends; the REPL starts it once its next prompt is drawn, ``defer_bulk``); that part
is :class:`~goosectx.count_saver.CountSaver`, which a dry run uses alone.

A write that fails (a full disk) leaves its event pending, and every later event waits behind
it: each :meth:`SessionRecorder.record` first retries the pending events in order, so the store
always holds the session as it was at some point of the turn — never an answer without the
request before it. :attr:`SessionRecorder.unsaved` says what never reached the store.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from goosectx.answer_draft import AnswerDraft
from goosectx.count_saver import BULK_COUNTS as BULK_COUNTS
from goosectx.count_saver import CountSaver
from goosectx.errors import StoreError
from goosectx.events import (
    CompactionUndone,
    Event,
    HistoryReplaced,
    MessageCompleted,
    MessageDelta,
    Notification,
    ReasoningDelta,
    ToolCallFinished,
    ToolPairsSummarized,
    TurnFinished,
    UsageUpdated,
)
from goosectx.message import Message
from goosectx.session import Session
from goosectx.store import SessionStore

log = logging.getLogger(__name__)


class DraftRedact:
    """The redactor of a front end's current agent's streamed replies, looked up at each use.

    For :attr:`SessionRecorder.redact` where the agent may be built again (the REPL: a
    ``/model``, a ``/resume``): ``reply_redact`` gives the agent's ``Agent.reply_redact()``,
    the redactor its stored answer gets (the environment's and the extensions' secrets); its
    ``secrets`` are what the draft is held back for (:mod:`goosectx.secret_tail`).
    """

    def __init__(self, reply_redact: Callable[[], Callable[[str], str]]) -> None:
        self._reply_redact = reply_redact

    @property
    def secrets(self) -> list[str] | None:
        """The values redacted, when the agent's redactor lists them (``None``: it does not)."""
        found = getattr(self._reply_redact(), "secrets", None)
        return None if found is None else list(found)

    def __call__(self, text: str) -> str:
        """``text`` redacted by the agent's redactor of the moment."""
        return self._reply_redact()(text)


class SessionRecorder(CountSaver):
    """Persist the events of one session.

    Args:
        store: The session store.
        session: The in-memory session the core works on; only its id and state are read
            (the state is stored with every usage row and history replacement, and at each
            turn's end).
    """

    def __init__(self, store: SessionStore, session: Session) -> None:
        super().__init__(store, session)
        self._pending: list[Event] = []
        self._saved_stated = self._stated()  # the stated limits as last written
        self._saved_figure = self._figure()  # the context figure as last written
        self._results: list[str] | None = None
        """Ids of the rows holding the results of the stored reply's calls so far, one each;
        ``None`` when the last stored message is no reply with tool calls."""
        self._draft = AnswerDraft()  # the answer streaming now, saved as it streams
        self._replacing: dict[str, str] = {}  # answer id → the draft row it replaces
        self.redact: Callable[[str], str] | None = None
        """The agent's redactor of a streamed reply (``Agent.reply_redact``, or a
        :class:`DraftRedact` of it): the draft is redacted and held back as the answer is
        (:meth:`goosectx.answer_draft.AnswerDraft.message`); ``None``: stored as streamed."""

    def _stated(self) -> dict[str, list[int]]:
        return {model: list(entry) for model, entry in self.session.state.stated_limits.items()}

    def _figure(self) -> list[int] | None:
        figure = self.session.state.context_figure
        return None if figure is None else list(figure)

    def save_figure(self) -> None:
        """Store the context figure noted in the session state since it was last written.

        The state alone, in one small transaction (``updated`` untouched); nothing while
        events wait to be written (their writes carry the state) or when it has not changed.

        Raises:
            StoreError: the write failed (nothing else depends on it).
        """
        figure = self._figure()
        if self._pending or figure == self._saved_figure:
            return
        self.store.save_state(self.session.id, self.session.state)
        self._saved_figure = figure

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
        if isinstance(event, MessageDelta | ReasoningDelta):
            if self._draft.add(event.text, reasoning=isinstance(event, ReasoningDelta)):
                self._save_draft()
            return
        if not isinstance(event, Notification):  # an answer's stream ends at any other event
            draft_id = self._draft.finish()
            if draft_id is None:
                pass
            elif isinstance(event, MessageCompleted) and event.message.role == "assistant":
                self._replacing[event.message.id] = draft_id  # whole, or as a cancel kept it
            else:  # the loop kept nothing of it (a refused call is sent again): nor does the
                self._drop_draft(draft_id)  # store
        if isinstance(event, TurnFinished) and self._stated() == self._saved_stated:
            return  # the state is written with the turn's usage rows; a failed turn's, here
        if isinstance(event, _WRITTEN):
            self._pending.append(event)
            self.flush()

    def _save_draft(self) -> None:
        """Store the answer streamed so far (:mod:`goosectx.answer_draft`) over its last save.

        Not while earlier events wait (it would come before them); a failure is only logged:
        the whole answer is stored when it ends.
        """
        if self._pending:
            return
        message = self._draft.message(self.redact)
        if not message.content:
            return  # nothing settled yet (one word, still arriving)
        try:
            self.store.save_draft(self.session.id, message, replacing=self._draft.saved_id)
        except StoreError as exc:
            log.info("could not save the answer as it streams: %s", exc.one_line())
            return
        self._draft.saved_id = message.id

    def _drop_draft(self, draft_id: str) -> None:
        try:
            self.store.retract_message(self.session.id, draft_id)
        except StoreError as exc:
            log.info("could not remove the streamed answer's draft: %s", exc.one_line())

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
            counted = counted or not isinstance(event, _UNCOUNTED)
        if counted:
            self.save_counts()

    def _write(self, event: Event) -> None:
        sid = self.session.id
        stated, figure = self._stated(), self._figure()
        if isinstance(event, MessageCompleted):
            message = event.message
            answers = message.role == "user" and bool(message.tool_responses)
            draft_id = self._replacing.pop(message.id, None)
            replacing = [*(self._results or () if answers else ()),
                         *(() if draft_id is None else (draft_id,))]
            self.store.append_message(sid, message, replacing=replacing)
            self._results = [] if message.tool_requests else None
        elif isinstance(event, ToolCallFinished):
            if self._results is None:
                return
            result = Message("user", (event.response,))
            self.store.append_message(sid, result)
            self._results.append(result.id)
            return
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
                                       current_is_estimate=event.after_is_estimate,
                                       state=self.session.state)
        elif isinstance(event, ToolPairsSummarized):
            self.store.replace_history(sid, event.conversation, ledger_entry=event.call)
        elif isinstance(event, TurnFinished):  # whatever the outcome: a failed turn, too,
            self.store.update_session(sid, state=self.session.state)  # learns (stated limit)
        if not isinstance(event, MessageCompleted | ToolPairsSummarized):
            self._saved_stated, self._saved_figure = stated, figure


_WRITTEN = (MessageCompleted, ToolCallFinished, UsageUpdated, HistoryReplaced, CompactionUndone,
            ToolPairsSummarized, TurnFinished)
"""The events that change the stored session."""
_UNCOUNTED = (MessageCompleted, ToolCallFinished, TurnFinished)
"""The events after which the token counts made are not stored (one row each: kept small)."""
