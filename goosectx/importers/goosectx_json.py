"""Our own JSON export (``goosectx sessions export --format json``), read back unchanged.

An export larger than :data:`~goosectx.importers.builder.MAX_DOCUMENT_BYTES` (a long session)
is read one message at a time (:mod:`goosectx.importers.json_stream`), with the same checks
and the same session as a smaller one read whole. ``sessions import`` reads the messages it
can in their stored form (:mod:`goosectx.stored_message`): the same checks, no objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from goosectx.conversation import Conversation, Message
from goosectx.errors import ImportFormatError
from goosectx.export_read import (
    NewerExport,
    check_export_header,
    check_message_fields,
    message_from_json,
    session_and_messages_from_json,
)
from goosectx.importers import builder
from goosectx.importers.builder import format_error, read_json
from goosectx.session import Session, new_session_id
from goosectx.stored_message import StoredMessage, stored_message


def load(path: Path, *, stored: bool = False) -> list[Session]:
    """The exported session with its messages, ledger, state and metadata as they were.

    Message ids and times are kept; the store draws a new session id only if it is taken.
    ``stored``: the messages go to ``session.stored_messages``, each one with only text, tool
    request and tool response parts read in its stored form (``conversation`` stays empty).

    Raises:
        ImportFormatError: not a goosectx export, a newer schema, or a broken message (named).
    """
    try:
        large = path.stat().st_size > builder.MAX_DOCUMENT_BYTES
    except OSError:
        large = False  # read_json says why it cannot be read
    read = _read_stored if stored else message_from_json
    if large:
        session, messages = _load_streamed(path, read)
    else:
        data = read_json(path)
        if not isinstance(data, dict):
            raise format_error(path, "", "not a goosectx session export")
        try:
            session, messages = session_and_messages_from_json(data, read)
            _check_unique_ids(messages)
        except (ValueError, KeyError, TypeError) as exc:
            raise _export_error(path, exc) from None
    _possible_times(session, messages)
    if stored:
        session.stored_messages = messages
    else:
        session.conversation = Conversation(cast("list[Message]", messages))  # all Messages
    return [_with_id(session)]


def _read_stored(number: int, item: Any) -> Message | StoredMessage:
    """Message ``number`` in its stored form if it has one, else as :func:`message_from_json`."""
    if type(item) is dict:
        check_message_fields(number, item)  # (as message_from_json does)
    return stored_message(item) or message_from_json(number, item)


_Read = Callable[[int, Any], Message | StoredMessage]


def _load_streamed(path: Path, read: _Read) -> tuple[Session, list[Message | StoredMessage]]:
    """:func:`load` of an export too large to read whole: one message in memory as JSON."""
    from goosectx.importers.json_stream import iter_members

    members: dict[str, Any] = {}
    messages: list[Message | StoredMessage] = []
    try:
        for key, number, value in iter_members(path, "messages"):
            if number is None:
                members[key] = value
                continue
            if number == 1 and "format" in members:
                check_export_header(members)  # a file that is no export: before its messages
            messages.append(read(number, value))
        members.setdefault("messages", [])  # read above; one that is no list stays, refused
        session, _ = session_and_messages_from_json(members, message_from_json)
        _check_unique_ids(messages)
    except (ValueError, KeyError, TypeError) as exc:
        raise _export_error(path, exc) from None
    return session, messages


def _export_error(path: Path, exc: Exception) -> ImportFormatError:
    """What is wrong with the export, in one line naming the file (a newer one: upgrade)."""
    if isinstance(exc, NewerExport):
        return ImportFormatError(f"{path.name}: {exc}", "upgrade goosectx to import it")
    return format_error(path, "", str(exc))


def _check_unique_ids(messages: Iterable[Message | StoredMessage]) -> None:
    """Raise ValueError naming the first message whose id an earlier message has."""
    seen: dict[str, int] = {}
    for number, message in enumerate(messages, start=1):
        first = seen.setdefault(message.id, number)
        if first != number:
            raise ValueError(f"message #{number}: its id {message.id[:80]!r} is also message "
                             f"#{first}'s (each message needs its own id)")


def _possible_times(session: Session, messages: list[Message | StoredMessage]) -> None:
    """Give each message with an impossible time the one before it, as other formats do.

    (:mod:`goosectx.importers.times`; the ones at the start take the first possible time
    after them.) A stored-form time is parsed only when its date is the import's day or later,
    or before 1970-01-02: the others are possible as they are written. The session's own
    times follow, and a note counts the messages (in place).
    """
    from datetime import UTC

    from goosectx.importers.builder import IMPORT_NOTES
    from goosectx.importers.times import impossible_note, possible

    now = datetime.now(UTC)
    today = now.date().isoformat()
    last_possible: Message | StoredMessage | None = None
    impossible: list[datetime] = []
    leading: list[int] = []  # impossible ones before any possible time: dated by the first
    for i, m in enumerate(messages):
        fine = isinstance(m, StoredMessage) and "1970-01-02" <= m.created[:10] < today
        when = None if fine else _time(m)
        if when is None or possible(when, now):
            last_possible = m
            for j in leading:
                messages[j] = _dated(messages[j], _time(m))
            leading.clear()
            continue
        impossible.append(when)
        if last_possible is None:
            leading.append(i)
        else:
            messages[i] = _dated(m, _time(last_possible))
    for j in leading:  # no message had a possible time
        messages[j] = _dated(messages[j], now)
    if not possible(session.created, now):
        session.created = _time(messages[0]) if messages else now
    if not possible(session.updated, now):
        session.updated = max(session.created, _time(messages[-1]) if messages else now)
    if impossible:
        session.metadata[IMPORT_NOTES] = [impossible_note(len(impossible), impossible[0])]


def _dated(message: Message | StoredMessage, when: datetime) -> Message | StoredMessage:
    """``message`` with the time ``when``."""
    from dataclasses import replace

    if isinstance(message, StoredMessage):
        return message._replace(created=when.isoformat())
    return replace(message, created=when)


def _time(message: Message | StoredMessage) -> datetime:
    """A message's time (a stored-form one parsed)."""
    if isinstance(message, StoredMessage):
        return datetime.fromisoformat(message.created)
    return message.created


def _with_id(session: Session) -> Session:
    if not session.id:
        session.id = new_session_id(session.created)
    return session
