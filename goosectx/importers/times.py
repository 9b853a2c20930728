"""Times in another agent's transcript: read, and left out when no conversation had them.

A transcript's time may be absurd — the year 3026, a negative epoch, ``NaN`` (Python's JSON
reads it), a number past what a date holds — and a session or message saved with it sorts
wrongly for ever after (a session of 3026 stays the newest; ``-c`` picks it). A time is
*possible* when it is after the Unix epoch and at most a day after the import (clocks
disagree). :class:`~goosectx.importers.builder.TranscriptBuilder` gives a message with an
impossible time the time of the message before it, as one with no time (the messages at the
start: the first time the transcript has, :func:`date_leading`), and counts it for a
``note:`` line (:func:`impossible_note`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from goosectx.conversation import Message

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""Times up to and including this one are impossible (0 is also what "no time" is written as)."""
FUTURE_MARGIN = timedelta(days=1)
"""How far after the import a possible time may be."""
NO_TIME = datetime.min.replace(tzinfo=UTC)
"""What :func:`parse_time` gives for a number that is no time at all (NaN, infinity, a number
past year 9999): impossible, so it is counted as the other impossible times are."""


def parse_time(value: Any) -> datetime | None:
    """A UTC datetime from ISO 8601 text or epoch seconds / milliseconds; ``None`` if unknown.

    A number that is no time gives :data:`NO_TIME`; check a time with :func:`possible`.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 10**11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return NO_TIME
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T", 1))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def possible(when: datetime, now: datetime) -> bool:
    """True for a time a conversation imported at ``now`` can have (see the module's text)."""
    try:
        return EPOCH < when <= now + FUTURE_MARGIN
    except TypeError:  # (every parsed time has a zone; a naive one is not ours)
        return False


def impossible_note(count: int, first: datetime) -> str:
    """The ``note:`` line for ``count`` messages with impossible times (``first``: the first)."""
    shown = "not a time" if first == NO_TIME else first.isoformat()[:10]
    messages = "1 message" if count == 1 else f"{count:,} messages"
    return (f"{messages} had an impossible time (the first: {shown}): kept with the time of the "
            "message before (at the start: of the first message with a time)")


def date_leading(messages: list[Message], placeholder: datetime) -> None:
    """Date the messages at the start that have no time of their own by the first one that has.

    They got ``placeholder`` (the import's time); they would come after the whole transcript.
    """
    from goosectx.conversation import Message

    lead = next((i for i, m in enumerate(messages) if m.created is not placeholder), 0)
    first = messages[lead].created
    messages[:lead] = [Message(m.role, m.content, m.metadata, m.id, first)
                       for m in messages[:lead]]
