"""The rows of ``sessions list``: each session's summary, read without loading a message.

Part of the sessions table (:mod:`goosectx.store.sessions`, docs/architecture.md §8). One
query: the session columns, the number of messages (counted on the ``messages_by_session``
index) and the stored state, whose ``context_figure`` is the context figure the displays last
showed — so a long session is listed without reading, let alone tokenising, its messages. A
session without a figure that holds (one saved by an older goosectx) costs one more indexed
read: its last message, which tells whether its stored report covers every message.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime

from goosectx.session import SessionState
from goosectx.store.database import loads, stored_time
from goosectx.store.rows import MESSAGES_WITH_STATE, METADATA_JSON


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of ``sessions list``.

    ``created`` / ``updated`` are ``None`` when the stored time does not parse (a damaged row:
    the list still shows the session, see :attr:`damaged`).
    """

    id: str
    name: str | None
    working_dir: str
    model: str | None
    created: datetime | None
    updated: datetime | None
    message_count: int
    current_tokens: int
    title: str | None = None
    source: str | None = None
    """``None`` for a session made here, else the format it was imported from."""
    state: SessionState | None = None
    """The stored state (``None``: it does not parse)."""
    answered: bool = False
    """``current_tokens`` is a provider's report and the last stored message the answer it
    reported: the report covers every message the model sees."""

    @property
    def context_figure(self) -> tuple[int, bool] | None:
        """(tokens, is_estimate): what the displays showed for the messages stored now.

        The figure kept in the state while the session holds as many messages as it did
        then; else the stored report when it covers them all (:attr:`answered`: a session
        last used before the figure was kept, as ``/context`` would show it on resume);
        else ``None``: unknown without loading and counting the session.
        """
        figure = self.state.context_figure if self.state is not None else None
        if figure is not None and figure[2] == self.message_count:
            return figure[0], bool(figure[1])
        return (self.current_tokens, False) if self.answered else None

    @property
    def damaged(self) -> bool:
        """A stored time of this session does not parse (``sessions remove ID`` removes it)."""
        return self.created is None or self.updated is None


def list_sessions(conn: sqlite3.Connection) -> list[SessionSummary]:
    """Every session, most recently updated first.

    A session whose stored times do not parse is listed with ``None`` for them
    (:attr:`SessionSummary.damaged`), so one damaged row does not hide the others; so is one
    whose state does not parse (``state`` ``None``).
    """
    rows = conn.execute(
        "SELECT s.id, s.name, s.working_dir, s.model, s.created, s.updated,"
        " (SELECT count(*) FROM messages m WHERE m.session_id=s.id), s.current_tokens,"
        " s.title, s.source, s.state_json, s.current_is_estimate FROM sessions s"
        " ORDER BY s.updated DESC, s.id DESC"
    ).fetchall()
    out = []
    for r in rows:
        row = SessionSummary(r[0], r[1], r[2], r[3], stored_time(r[4]), stored_time(r[5]),
                             r[6], r[7], r[8], r[9], _state(r[10]))
        if row.context_figure is None and r[7] and not r[11] and _answered(conn, row.id):
            row = replace(row, answered=True)  # one more indexed row read, only here
        out.append(row)
    return out


def _answered(conn: sqlite3.Connection, session_id: str) -> bool:
    """Whether the session's last stored message is an answer the model sees, not cut off."""
    last = conn.execute(
        f"SELECT m.role, {METADATA_JSON} FROM {MESSAGES_WITH_STATE} WHERE m.session_id=?"
        " ORDER BY m.position DESC LIMIT 1", (session_id,)).fetchone()
    if last is None or last[0] != "assistant":
        return False
    try:
        meta = loads(last[1])
    except ValueError:
        return False
    return (isinstance(meta, dict) and meta.get("agent_visible", True) is True
            and not meta.get("cancelled") and not meta.get("is_continuation"))


def _state(state_json: str | None) -> SessionState | None:
    """A session's stored state, or ``None`` when it does not parse (listing goes on)."""
    try:
        data = loads(state_json or "{}")
    except ValueError:
        return None
    return SessionState.from_dict(data) if isinstance(data, dict) else None
