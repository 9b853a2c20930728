"""Session exports: the JSON form (``schema_version``, snake_case).

``sessions import`` reads the JSON form back unchanged (:mod:`goosectx.export_read`, whose
names are also importable from here). The Markdown transcript is :mod:`goosectx.export_markdown`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from goosectx.conversation import (
    SCHEMA_VERSION,
    Conversation,
    Message,
)
from goosectx.export_read import EXPORT_FORMAT as EXPORT_FORMAT
from goosectx.export_read import check_export_header as check_export_header
from goosectx.export_read import message_from_json as message_from_json
from goosectx.export_read import session_from_json as session_from_json
from goosectx.session import Session


def _time(session: Session, name: str) -> str | None:
    """``created`` / ``updated`` as ISO 8601, or ``None`` for a stored time that did not parse."""
    return None if name in session.damaged_times else getattr(session, name).isoformat()


def session_to_json(session: Session) -> dict[str, Any]:
    """The JSON export: every message with its metadata, the usage ledger and state.

    Shape: ``{"format", "schema_version", "session": {...}, "messages": [...],
    "usage_ledger": [...]}``. Contains no API key (none is ever stored).
    """
    return {
        "format": EXPORT_FORMAT,
        "schema_version": SCHEMA_VERSION,
        "session": {
            "id": session.id,
            "name": session.name,
            "working_dir": str(session.working_dir),
            "model": session.model,
            "created": _time(session, "created"),
            "updated": _time(session, "updated"),
            "current_tokens": session.ledger.current_tokens,
            "current_is_estimate": session.ledger.current_is_estimate,
            "state": session.state.to_dict(),
            "metadata": session.metadata,
        },
        "messages": session.conversation.to_list(),
        "usage_ledger": [e.to_dict() for e in session.ledger.entries],
    }


def session_to_json_text(session: Session) -> str:
    """:func:`session_to_json` as indented JSON text with a final newline."""
    return "".join(iter_session_json(session, session.conversation))


def iter_session_json(session: Session, messages: Iterable[Message | str]) -> Iterator[str]:
    """:func:`session_to_json_text` in pieces, one per message, for writing as they come.

    ``session`` gives everything but the messages (its conversation is not read);
    ``messages`` are read one at a time, so memory stays flat with the session's size; one
    given as text is already the JSON of its ``to_dict()`` (the store's
    ``iter_messages_json``). Each message is one line (json's C encoder: an indented dump
    runs its pure-Python encoder, several times slower on a long session).
    """
    marker = f"goosectx-messages-{uuid.uuid4().hex}"
    doc = session_to_json(replace(session, conversation=Conversation([])))
    doc["messages"] = marker
    head, tail = json.dumps(doc, ensure_ascii=False, indent=2).split(f'"{marker}"', 1)
    yield head + "["
    first = True
    for m in messages:
        item = m if isinstance(m, str) else json.dumps(m.to_dict(), ensure_ascii=False)
        yield ("\n    " if first else ",\n    ") + item
        first = False
    yield ("]" if first else "\n  ]") + tail + "\n"
