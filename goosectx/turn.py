"""What one agent turn has in flight, and how a cancel (or a crash) closes it out validly.

Part of the core (docs/architecture.md §3): yields events, never prints.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from goosectx.approval import ASKED_CANCELLED_TEXT, CANCELLED_TEXT
from goosectx.conversation import (
    Conversation,
    Message,
    MessageMetadata,
    Part,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.events import Event, ToolCallFinished, TurnFinished
from goosectx.redaction_reply import without_shares

INTERRUPTED_TEXT = (
    "[interrupted: goosectx exited during this call; it may have run in part or not at all "
    "— check before running it again]"
)
"""The stored answer to a tool call goosectx died during (kill -9, a crash, a power cut):
found unanswered at the end of the history when the session is resumed
(:func:`answer_interrupted`)."""
UNRECORDED_TEXT = (
    "[no result: the imported transcript ends during this call; it may have run in part or "
    "not at all — check before running it again]"
)
"""The stored answer to a tool call an imported transcript ends with, unanswered: the other
agent stopped (or the file was cut) before its result was written."""
NO_RESULT_TEXT = (
    "[no result: the imported transcript has no result for this call; it may have run in part "
    "or not at all — check before running it again]"
)
"""The answer an import gives to a call the transcript never answers, before its last message
(:mod:`goosectx.importers.mend`)."""
NOT_STARTED_TEXT = (
    "[not run: goosectx exited before this call started; nothing was done — run it again if "
    "it is still needed]"
)
"""The stored answer to a tool call of a reply goosectx died before reaching: the calls of a
reply run in order, so those after the one it died during never started."""
CANCELLED_NOT_STARTED_TEXT = (f"{CANCELLED_TEXT} The turn was cancelled before it started: "
                              "it did not run.")
"""The answer to a call of a reply the user's cancel came before (a Ctrl-C while an earlier call
ran, ``c`` at an earlier call's question): the calls run in order, so it never started
(``/undo`` leaves it out). It starts with the bare text, which alone keeps meaning "may have
run" (the call a Ctrl-C stopped, and every cancelled call of a session stored before)."""
ERROR_NOT_STARTED_PREFIX = "[not run: the turn ended on an error"
"""How the answer to a call an error's end of the turn came before starts
(:func:`error_not_started_text`)."""


def error_not_started_text(kind: str) -> str:
    """The answer to a call of a reply an error ended the turn before (no cancel of the user's).

    ``kind``: the error's own short phrase (``GoosectxError.kind``, "the spending cap was
    reached"). The calls run in order, so it never started: worded as :data:`NOT_STARTED_TEXT`
    (``/undo`` leaves it out).
    """
    return (f"{ERROR_NOT_STARTED_PREFIX} ({kind}) before this call started; nothing was done "
            "— run it again if it is still needed]")


TURN_ERROR_KEY = "turn_error"
"""``metadata.extra`` key of the notice an error's end of a turn stores
(:func:`turn_error_notice`): drawn by ``sessions show``, a resume and an export; live, the
turn's own error line says it instead."""


def turn_error_notice(one_line: str) -> Message:
    """The user-only notice stored when an error ends a turn (the model never sees it).

    ``one_line``: the error's one line, already redacted (``GoosectxError.one_line``), so the
    transcript says why the turn has no answer ("The turn stopped: the spending cap …").
    """
    return Message.notification(f"The turn stopped: {one_line}").with_metadata(
        extra={TURN_ERROR_KEY: True})


INTERRUPTED_TEXTS = (INTERRUPTED_TEXT, UNRECORDED_TEXT)
"""The answers :func:`answer_interrupted` stores for a call that may have run."""


@dataclass(slots=True)
class Turn:
    """What one turn has in flight, so a cancel at any point can close it out validly."""

    cancel: threading.Event
    streamed: list[str] = field(default_factory=list)
    reasoned: list[str] = field(default_factory=list)
    shares: list[str] = field(default_factory=list)
    """Raw pieces of a key the live stream redacted across a join (``stream_reply``'s)."""
    open_requests: list[ToolRequest] = field(default_factory=list)
    responses: list[ToolResponse] = field(default_factory=list)
    attachments: list[Part] = field(default_factory=list)
    cancel_text: str = CANCELLED_TEXT
    """The answer to the calls a cancel leaves unanswered (``approval.cancelled_text``; an
    error's: :func:`error_not_started_text`)."""
    handling: ToolRequest | None = None
    """The call of ``open_requests`` being approved or run (the agent's)."""
    started: list[ToolRequest] = field(default_factory=list)
    """The calls of ``open_requests`` that started running (in order): they may have run."""
    started_text: str = CANCELLED_TEXT
    """The answer to a started call a cancel left unanswered (``approval.stopped_running_text``:
    the user's, or a signal's)."""

    def reply_calls(self, requests: list[ToolRequest]) -> None:
        """A reply's tool calls are open now: none answered, none started yet."""
        self.open_requests, self.responses, self.started, self.handling = requests, [], [], None


def close_cancelled(turn: Turn, complete: Callable[[Message], Iterator[Event]], *,
                finish: bool = True, error: bool = False) -> Iterator[Event]:
    """Close a cancelled turn validly, so the history stays valid.

    Keeps streamed text and reasoning (marked cancelled), answers every open tool request with
    "cancelled" (:func:`cancel_answer`: whether it started, and why it stopped), then ends the
    turn (unless ``finish`` is false). ``complete`` appends a message and yields its events
    (the agent's). ``error``: an error ended the turn, not a cancel (the kept text is marked
    ``stopped_by_error`` too; ``turn.cancel_text`` and ``started_text`` say so).
    """
    if turn.streamed or turn.reasoned:
        parts: list[Part] = [ThinkingContent("".join(turn.reasoned))] if turn.reasoned else []
        if turn.streamed:
            parts.append(TextContent("".join(turn.streamed)))
        kept = without_shares(Message("assistant", tuple(parts), MessageMetadata(
            cancelled=True, stopped_by_error=error)), turn.shares)  # as the stream showed it
        turn.streamed, turn.reasoned, turn.shares = [], [], []
        yield from complete(kept)
    if turn.open_requests:
        answered = Counter(r.id for r in turn.responses)  # a reply may repeat an id
        for request in turn.open_requests:
            if answered[request.id]:
                answered[request.id] -= 1
            else:
                response = ToolResponse(request.id, cancel_answer(turn, request), is_error=True)
                turn.responses.append(response)
                yield ToolCallFinished(response)
        responses = tuple(turn.responses)
        turn.reply_calls([])
        yield from complete(Message("user", responses))
    if finish:
        yield TurnFinished("cancelled")


def cancel_answer(turn: Turn, request: ToolRequest) -> str:
    """What the model is told about ``request``, an open call a cancel left unanswered.

    A call that started may have run: ``turn.started_text``. The call being asked about gets
    the cancel's own answer too (``c`` at its question, a signal's, the input's: each says it
    did not run). A call never reached gets :data:`CANCELLED_NOT_STARTED_TEXT` for the user's
    cancel; a signal's, the input's or an error's text (:func:`error_not_started_text`)
    already says it did not run, and why.
    """
    if any(request is call for call in turn.started):
        return turn.started_text
    if request is turn.handling and turn.cancel_text != CANCELLED_TEXT:
        return turn.cancel_text
    if turn.cancel_text in (CANCELLED_TEXT, ASKED_CANCELLED_TEXT):
        return CANCELLED_NOT_STARTED_TEXT
    return turn.cancel_text


def answer_interrupted(conversation: Conversation,
                       imported_at: datetime | None = None) -> Message | None:
    """The answer to the tool calls a crash left unanswered at the end of the history.

    goosectx stores a reply's tool calls before it runs them, and each result as it finishes
    (one row each, replaced by the message answering them all at the end: the recorder), so
    a process that dies in between (kill -9 while a command runs or while the approval
    question waits) leaves the history ending with the reply and the results it had. The
    agent view would drop the calls left unanswered, and the model would never learn a
    command was started.

    Returns:
        A user message answering each call of the last reply that has no stored result, in
        order: the first (the one running, or waiting for approval) with
        :data:`INTERRUPTED_TEXT`, the later ones (never started: calls run one at a time)
        with :data:`NOT_STARTED_TEXT`, both ``is_error``; the caller appends and saves it.
        ``None`` when the history does not end with unanswered tool requests (so a second
        resume adds nothing). :data:`UNRECORDED_TEXT` for each instead when the session was
        imported at ``imported_at`` and the calls are from before it: goosectx never ran
        them. Pure: ``conversation`` is not changed.
    """
    found = _last_reply(conversation.messages)
    if found is None:
        return None
    reply, answered = found
    text = (UNRECORDED_TEXT if imported_at is not None and reply.created <= imported_at
            else INTERRUPTED_TEXT)
    responses: list[ToolResponse] = []
    for request in reply.tool_requests:
        if answered[request.id]:
            answered[request.id] -= 1
            continue
        responses.append(ToolResponse(request.id, text, is_error=True))
        if text == INTERRUPTED_TEXT:
            text = NOT_STARTED_TEXT
    return Message("user", tuple(responses)) if responses else None


def _last_reply(messages: list[Message]) -> tuple[Message, Counter[str]] | None:
    """The reply with tool calls that ``messages`` end with, after its results so far.

    Returns:
        (the reply, how many results each of its call ids has); ``None`` when ``messages`` end
        with anything else.
    """
    answered: Counter[str] = Counter()
    at = len(messages) - 1
    while at >= 0 and messages[at].role == "user" and messages[at].tool_responses:
        answered.update(r.id for r in messages[at].tool_responses)
        at -= 1
    if at < 0 or not messages[at].tool_requests:
        return None
    return messages[at], answered


def interrupted_calls(conversation: Conversation) -> list[str]:
    """The names of the tool calls the history's last message answers as interrupted.

    (:data:`INTERRUPTED_TEXTS`, stored when the session was resumed after goosectx died during
    them or an imported transcript ended with them); ``[]`` when the last message is anything
    else.
    """
    if not conversation.messages:
        return []
    last = conversation.messages[-1]
    answered = {r.id for r in last.tool_responses if r.output in INTERRUPTED_TEXTS}
    found = _last_reply(conversation.messages[:-1]) if answered else None
    if found is None:
        return []
    return [r.name for r in found[0].tool_requests if r.id in answered]


def not_started_calls(conversation: Conversation) -> list[str]:
    """The names of the calls the history's last message answers :data:`NOT_STARTED_TEXT`."""
    if not conversation.messages:
        return []
    not_run = {r.id for r in conversation.messages[-1].tool_responses
               if r.output == NOT_STARTED_TEXT}
    found = _last_reply(conversation.messages[:-1]) if not_run else None
    if found is None:
        return []
    return [r.name for r in found[0].tool_requests if r.id in not_run]


def cut_by_exit(conversation: Conversation) -> bool:
    """True when the history ends with an answer goosectx exited during as it streamed.

    (Its draft, saved as it streamed: ``metadata.exited``, :mod:`goosectx.answer_draft`.)
    """
    last = conversation.messages[-1] if conversation.messages else None
    return last is not None and last.role == "assistant" and last.metadata.exited
