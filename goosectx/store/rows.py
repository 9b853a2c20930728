"""A message as a stored row: the INSERT, the JSON of its metadata, the reads' columns.

Part of the messages table (:mod:`goosectx.store.messages`, docs/architecture.md §8): what a
row holds (its parts and metadata as compact JSON, its token count) and, since migration 8,
where what changes after it is written is read from (``message_state``).
"""

from __future__ import annotations

from typing import Any

from goosectx.conversation import Message, MessageMetadata, part_to_dict
from goosectx.lazy_pattern import LazyPattern
from goosectx.session import TokenCount
from goosectx.store.database import dumps

INSERT_MESSAGE = (
    "INSERT INTO messages (id, session_id, position, role, created, content_json,"
    " metadata_json, token_count, token_encoding) VALUES (?,?,?,?,?,?,?,?,?)"
)


MESSAGES_WITH_STATE = "messages m LEFT JOIN message_state s ON s.message_rowid = m.rowid"
"""The FROM clause of a read of stored messages: each row with its ``message_state``."""
METADATA_JSON = "coalesce(s.metadata_json, m.metadata_json)"
"""A message's stored metadata (select it from :data:`MESSAGES_WITH_STATE`)."""
TOKEN_COUNT = ("CASE WHEN s.token_count IS NULL THEN m.token_count ELSE s.token_count END,"
               " CASE WHEN s.token_count IS NULL THEN m.token_encoding ELSE s.token_encoding END")
"""A message's stored count and its encoding, two columns (from :data:`MESSAGES_WITH_STATE`)."""


FLAGS_ONLY_JSON = {(user, agent): dumps({"user_visible": user, "agent_visible": agent})
                    for user in (True, False) for agent in (True, False)}
"""The stored metadata of almost every message (the two visibility flags, nothing else), made
once."""


_PLAIN_ID = LazyPattern(r"[A-Za-z0-9_-]+")
"""An id JSON writes as it is, between quotes (a compaction's id: ``cmp_`` + hex)."""


def metadata_json(metadata: MessageMetadata) -> str:
    """``dumps(metadata.to_dict())``: a message's stored ``metadata_json``."""
    user, agent = metadata.user_visible, metadata.agent_visible
    if (type(user) is bool and type(agent) is bool and metadata.usage is None
            and not (metadata.is_summary or metadata.is_continuation or metadata.cancelled
                     or metadata.stopped_by_error or metadata.cut_at_output_limit
                     or metadata.exited or metadata.compaction_id or metadata.extra)):
        hidden = metadata.hidden_by  # what to_dict gives without these fields:
        if not hidden:
            return FLAGS_ONLY_JSON[user, agent]
        if type(hidden) is str and _PLAIN_ID.fullmatch(hidden):  # a message a compaction hid
            return f'{FLAGS_ONLY_JSON[user, agent][:-1]},"hidden_by":"{hidden}"}}'
    return dumps(metadata.to_dict())


def message_row(
    session_id: str, position: float, message: Message, count: TokenCount | None = None
) -> tuple[Any, ...]:
    """The values of :data:`INSERT_MESSAGE` for ``message``.

    The columns hold the fields of :meth:`Message.to_dict` (its parts and metadata as compact
    JSON), made without building that dict.
    """
    return (
        message.id, session_id, position, message.role, message.created.isoformat(),
        dumps([part_to_dict(p) for p in message.content]), metadata_json(message.metadata),
        count.count if count else None, count.encoding if count else None,
    )
