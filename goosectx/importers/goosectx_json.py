"""Our own JSON export (``goosectx sessions export --format json``), read back unchanged."""

from __future__ import annotations

from pathlib import Path

from goosectx.export import session_from_json
from goosectx.importers.builder import format_error, read_json
from goosectx.session import Session, new_session_id


def load(path: Path) -> list[Session]:
    """The exported session with its messages, ledger, state and metadata as they were.

    Message ids and times are kept; the store draws a new session id only if it is taken.

    Raises:
        ImportFormatError: not a goosectx export, a newer schema, or a broken message (named).
    """
    data = read_json(path)
    if not isinstance(data, dict):
        raise format_error(path, "", "not a goosectx session export")
    try:
        session = session_from_json(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise format_error(path, "", str(exc)) from None
    if not session.id:
        session.id = new_session_id(session.created)
    return [session]
