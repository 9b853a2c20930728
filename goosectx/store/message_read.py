"""Reading the messages table's rows back as messages (docs/architecture.md §8).

A whole session at load (:func:`read_messages`, with the stored token counts), one row
(:func:`parse_message`), or a plain row as a :class:`~goosectx.conversation.PlainMessage`
without building the message (:func:`plain_row`). Plain rows — the two visibility flags (and
the ``hidden_by`` of a compaction that hid the row) and plain parts, almost every row of a
long session — are built directly, without the generic checks of :meth:`Message.from_dict`.
Writing rows: :mod:`goosectx.store.messages` and :mod:`goosectx.store.rows`.
"""

from __future__ import annotations

import functools
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from goosectx.conversation import (
    Message,
    MessageMetadata,
    PlainMessage,
    build_message,
    plain_message,
    plain_parts,
)
from goosectx.errors import StoreCorrupt
from goosectx.parts import slot_twin
from goosectx.session import UNKNOWN_TIME, TokenCount
from goosectx.store.database import loads
from goosectx.store.rows import FLAGS_ONLY_JSON, MESSAGES_WITH_STATE, METADATA_JSON, TOKEN_COUNT


def read_messages(
    conn: sqlite3.Connection, session_id: str, path: Path, damaged: list[str] | None = None
) -> tuple[list[Message], dict[str, TokenCount]]:
    """A session's messages in position order and the stored counts of those counted.

    The rows are read one by one as they are parsed, never all held at once: a row's stored
    JSON is freed once its message is built, so the load's memory is about that of the
    messages alone (the stored JSON of 100k messages is ~200 MB more to hold, to fault in,
    and to give back when the process ends).

    ``damaged``: see :func:`parse_message`.

    Raises:
        StoreCorrupt: a stored message does not parse.
    """
    rows = conn.execute(
        f"SELECT m.id, {ROLE_CODE}, m.created, m.content_json, {METADATA_JSON}, {TOKEN_COUNT}"
        f" FROM {MESSAGES_WITH_STATE} WHERE m.session_id=? ORDER BY m.position",
        (session_id,),
    )
    messages: list[Message] = []
    counts: dict[str, TokenCount] = {}
    last_encoding = None
    for mid, role, created, content_json, metadata_json, count, encoding in rows:
        role = ROLES.get(role, role)
        message = _plain_message_row(mid, role, created, content_json, metadata_json)
        if message is None:  # what parse_message does first, done here without its call
            message = parse_message(session_id, path, mid, role, created, content_json,
                                    metadata_json, damaged)
        messages.append(message)
        if type(count) is int and type(encoding) is str:  # else not counted: count again
            known: Any = _CountFields()  # TokenCount(count, encoding, parts), by its slots
            known.count = count
            if encoding == last_encoding:  # the same text kept once, not once a row
                encoding = last_encoding
            known.encoding = last_encoding = encoding
            known.parts = len(message.content)
            known.__class__ = TokenCount
            counts[mid] = known
    return messages, counts


_CountFields = slot_twin(TokenCount, "count", "encoding", "parts")
ROLE_CODE = "CASE m.role WHEN 'user' THEN 0 WHEN 'assistant' THEN 1 ELSE m.role END"
"""The role column as read at load: a number for the two roles, any other stored value as it
is (the column's TEXT affinity stores a number as text, so a number read is one of these).
SQLite made a new text for every row, and each message kept its own (100k messages: 6 MB)."""
ROLES = {0: "user", 1: "assistant"}
"""The role of each :data:`ROLE_CODE` number: one text shared by every message."""


def parse_message(session_id: str, path: Path, mid: str, role: str, created: str,
                  content_json: str, metadata_json: str,
                  damaged: list[str] | None = None) -> Message:
    """One stored row as a :class:`Message`.

    ``damaged``: when given, a row whose only fault is a ``created`` time that does not parse
    is read with :data:`~goosectx.session.UNKNOWN_TIME` and its id appended here (``sessions
    show`` / ``export`` show the rest); else such a row is unreadable like any other.

    Raises:
        StoreCorrupt: the row does not parse.
    """
    message = _plain_message_row(mid, role, created, content_json, metadata_json)
    if message is not None:
        return message
    try:
        return Message.from_dict({
            "id": mid, "role": role, "created": created,
            "content": loads(content_json), "metadata": loads(metadata_json),
        })
    except (ValueError, TypeError) as exc:
        from goosectx.store.database import stored_time

        if damaged is not None and stored_time(created) is None:
            message = parse_message(session_id, path, mid, role, UNKNOWN_TIME.isoformat(),
                                    content_json, metadata_json)  # any other fault raises
            damaged.append(mid)
            return message
        raise StoreCorrupt(
            f"message {mid} of session {session_id} in {path} is unreadable: {exc}",
            "the database was left as it is; save what still reads with goosectx sessions "
            f"export {session_id} --skip-damaged -f json -o FILE (then sessions import FILE), "
            "remove this session with goosectx sessions remove, or restore a backup",
        ) from None


_FLAGS_JSON = {text: {"user_visible": user, "agent_visible": agent}
               for (user, agent), text in FLAGS_ONLY_JSON.items()}
""":data:`FLAGS_ONLY_JSON` the other way round — the flags by their stored text: such a row's
metadata needs no parsing. Read only, never changed."""
FLAGS_METADATA = {text: MessageMetadata(flags["user_visible"], flags["agent_visible"])
                  for text, flags in _FLAGS_JSON.items()}
"""The metadata of such a row, made once and shared by every message loaded with it: a
:class:`MessageMetadata` is never changed in place (a new one replaces it, ``with_metadata``),
and making one costs more than the message around it."""


@functools.lru_cache(maxsize=64)
def hidden_metadata(metadata_json: str) -> MessageMetadata | None:
    """The metadata of a row a compaction hid (the flags and ``hidden_by`` alone), else ``None``.

    After a compaction almost every row of a long session is such a row, with one text per
    compaction (:func:`~goosectx.store.rows.metadata_json`): it is parsed once and the one
    value is shared like :data:`FLAGS_METADATA`'s (it holds nothing mutable).
    """
    try:
        data = loads(metadata_json)
        if type(data) is not dict or data.keys() != _HIDDEN_KEYS:
            return None
        return MessageMetadata.from_dict(data)
    except (ValueError, TypeError):
        return None


_HIDDEN_KEYS = {"user_visible", "agent_visible", "hidden_by"}


def _plain_message_row(mid: Any, role: Any, created: Any, content_json: Any,
                       metadata_json: Any) -> Message | None:
    """The :class:`Message` of a plain row (the two visibility flags, plain parts), or ``None``.

    Built directly: the same value :meth:`Message.from_dict` gives, without its generic checks
    (almost every row of a long session is plain, and they cost more than the JSON). Any other
    row gives ``None``: ``from_dict`` then reads it, or refuses it with its error.
    """
    metadata = FLAGS_METADATA.get(metadata_json)
    if metadata is None and type(metadata_json) is str and metadata_json.endswith('"}'):
        metadata = hidden_metadata(metadata_json)
    if metadata is None or type(mid) is not str or role not in ("user", "assistant"):
        return None
    try:
        content = loads(content_json)
        when = datetime.fromisoformat(created)
    except (ValueError, TypeError):
        return None
    if type(content) is not list:
        return None
    parts = plain_parts(content)
    if parts is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return build_message(role, parts, metadata, mid, when)


def plain_row(mid: Any, role: Any, created: Any, content_json: Any,
               metadata_json: Any) -> PlainMessage | None:
    """One stored row as a :class:`PlainMessage` when it is a plain one, else ``None``.

    ``None`` for a row that does not parse too: :func:`parse_message` then says why.
    """
    try:
        metadata = _FLAGS_JSON.get(metadata_json)
        return plain_message(mid, role, created, loads(content_json),
                             loads(metadata_json) if metadata is None else metadata)
    except (ValueError, TypeError):
        return None
