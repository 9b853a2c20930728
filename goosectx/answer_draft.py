"""The answer being streamed, saved as it streams so goosectx dying mid-answer keeps it.

A Ctrl-C, a SIGTERM or an error closes a streamed answer out validly (:mod:`goosectx.turn`);
a kill -9, a crash or a power cut cannot. So the recorder gives every text and reasoning delta
of the answer to an :class:`AnswerDraft`, and stores the answer so far as a row of its own —
at the first delta, then at most once every :data:`DRAFT_INTERVAL_S` — marked the way it
would be stored if goosectx died now (``cancelled`` + ``exited``: the model reads it ending
with ``conversation.EXITED_MARK``, the transcript labels it "cut off: goosectx exited"). The
finished answer (or the one a cancel keeps) replaces that row in the transaction that stores
it. A delta costs O(its length) and one clock reading, however long the history or the
answer; a save costs O(the answer so far), at most once a second. Never prints.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from goosectx.message import Message, MessageMetadata, new_message_id
from goosectx.parts import Part, TextContent, ThinkingContent
from goosectx.secret_tail import SecretTail, settled_end

DRAFT_INTERVAL_S = 1.0
"""Least time between two saves of the answer being streamed (after the first, at once)."""


class AnswerDraft:
    """The text and reasoning of the answer being streamed, and when to save them next.

    Args:
        clock: Seconds of a monotonic clock (``time.monotonic``).

    Attributes:
        saved_id: Id of the draft row stored for this answer, ``None`` before its first save.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._due_s: float | None = None  # None: nothing saved of this answer yet
        self._id = new_message_id()
        self._created = datetime.now(UTC)
        self.saved_id: str | None = None

    def add(self, text: str, *, reasoning: bool = False) -> bool:
        """Take one delta; returns True when the draft is due to be saved now.

        Due at the first delta of an answer, then when :data:`DRAFT_INTERVAL_S` has passed
        since the last save.
        """
        (self._reasoning if reasoning else self._text).append(text)
        now_s = self._clock()
        if self._due_s is not None and now_s < self._due_s:
            return False
        self._due_s = now_s + DRAFT_INTERVAL_S
        return True

    def message(self, redact: Callable[[str], str] | None = None) -> Message:
        """The answer so far as it is stored: one id and time for every save of it.

        An assistant message of the reasoning and text received, marked ``cancelled`` and
        ``exited`` (what it is if goosectx dies before the answer is finished). With
        ``redact`` (this environment's secrets, as the finished answer is redacted), each
        text is redacted and saved only up to its last whitespace and before a tail that
        could still become a key (:mod:`goosectx.secret_tail`, when ``redact`` lists its
        ``secrets``): a key still arriving at its end is stored neither whole nor in part,
        and a key split across two deltas or two saves is whole in the text redacted (the
        whole answer so far, at each save).
        """
        parts: list[Part] = []
        reasoning, text = "".join(self._reasoning), "".join(self._text)
        if redact is not None:
            reasoning, text = _settled(reasoning, redact), _settled(text, redact)
        if reasoning:
            parts.append(ThinkingContent(reasoning))
        if text:
            parts.append(TextContent(text))
        return Message("assistant", tuple(parts), MessageMetadata(cancelled=True, exited=True),
                       self._id, self._created)

    def finish(self) -> str | None:
        """The answer was stored whole (or it never began): start afresh for the next one.

        Returns:
            The id of the draft row the stored answer is to replace, ``None`` if none was saved.
        """
        saved = self.saved_id
        self._text, self._reasoning, self._due_s = [], [], None
        self._id, self._created, self.saved_id = new_message_id(), datetime.now(UTC), None
        return saved


def _settled(text: str, redact: Callable[[str], str]) -> str:
    """``text`` as far as no later delta can join it to a key (:func:`settled_end`), redacted."""
    return redact(text[:settled_end(text, SecretTail.of(redact))])
