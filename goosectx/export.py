"""Session exports: the JSON form (``schema_version``, snake_case).

``sessions import`` reads it back unchanged (see ``goosectx.importers``). The Markdown
transcript is :mod:`goosectx.export_markdown`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from goosectx.conversation import (
    SCHEMA_VERSION,
    Conversation,
    Message,
)
from goosectx.parts import json_kind
from goosectx.session import Session, SessionState
from goosectx.usage import LedgerEntry, UsageLedger

EXPORT_FORMAT = "goosectx-session"


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


def _field(data: dict[str, Any], name: str, kind: type, what: str) -> Any:
    """``data[name]`` (empty when absent or null), or a ValueError naming it and its type."""
    value = data.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f'"{name}" must be {what}, not {json_kind(value)}')
    return value


def check_export_header(data: dict[str, Any]) -> None:
    """Raise ValueError unless ``data`` says it is an export of a schema this goosectx reads.

    Only ``format`` and ``schema_version`` are read (a streamed import checks them before
    it reads the messages).
    """
    if data.get("format") != EXPORT_FORMAT:
        raise ValueError("not a goosectx session export (no \"format\": \"goosectx-session\")")
    version = data.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ValueError(f"unsupported schema_version {version!r} (this goosectx reads up to "
                         f"{SCHEMA_VERSION})")


def message_from_json(number: int, item: Any) -> Message:
    """Message number ``number`` (from 1) of an export's ``messages``.

    A ``created`` of ``null`` (the exported message's stored time did not parse) becomes the
    time of the import, as the session's own times do.

    Raises:
        ValueError: not a message; the text starts with ``message #NUMBER:``.
    """
    if not isinstance(item, dict):
        raise ValueError(f"message #{number}: must be an object, not {json_kind(item)}")
    if "created" in item and item["created"] is None:  # its stored time did not parse
        item = {**item, "created": datetime.now(UTC).isoformat()}  # as a session's null time
    try:
        return Message.from_dict(item)
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"message #{number}: {exc}") from None


def session_from_json(data: dict[str, Any]) -> Session:
    """Inverse of :func:`session_to_json`; reads every schema up to :data:`SCHEMA_VERSION`.

    Schema 1 (no attachment parts) has the same shape and reads unchanged.

    Raises:
        ValueError: not a goosectx export, a newer schema, or a broken message (named).
    """
    check_export_header(data)
    meta = _field(data, "session", dict, "an object")
    messages = [message_from_json(i + 1, item)
                for i, item in enumerate(_field(data, "messages", list, "a list of messages"))]
    entries = []
    for i, item in enumerate(_field(data, "usage_ledger", list, "a list of usage entries")):
        if not isinstance(item, dict):
            raise ValueError(f"usage_ledger entry #{i + 1}: must be an object, "
                             f"not {json_kind(item)}")
        entries.append(LedgerEntry.from_dict(item))
    try:  # null: the exported session's stored time did not parse (import time instead)
        created, updated = (datetime.now(UTC) if meta[name] is None
                            else datetime.fromisoformat(meta[name])
                            for name in ("created", "updated"))
    except (KeyError, TypeError, ValueError):
        raise ValueError('"session" needs "created" and "updated" as ISO 8601 times '
                         "(or null)") from None
    ledger = UsageLedger(
        entries,
        current_tokens=int(meta.get("current_tokens") or 0),
        current_is_estimate=bool(meta.get("current_is_estimate", True)),
    )
    return Session(
        id=str(meta.get("id") or ""),
        name=meta.get("name"),
        working_dir=Path(meta.get("working_dir") or "."),
        model=meta.get("model"),
        created=created,
        updated=updated,
        conversation=Conversation(messages),
        ledger=ledger,
        state=SessionState.from_dict(meta.get("state") or {}),
        metadata=dict(meta.get("metadata") or {}),
    )


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
