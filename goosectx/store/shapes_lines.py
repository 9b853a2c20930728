"""What measuring a message of tool results found, kept with its shape (migration 14).

The summary ladder of ``compact --dry-run`` reads a tool result's output only to learn its line's
length (docs/architecture.md §5, §8): :class:`KeptLines` is the place the compaction's
:class:`~goosectx.compaction.results.KeptResultLines` finds to keep those figures, offered as
the ``result_lines`` attribute of the counts (:class:`ShapedCounts`) a session read from its
shapes carries. The figures are read with the shapes (``message_shapes.result_lines``: the key
and the figures, JSON) and the new ones written when the session's messages are no longer
read, in the shapes' own read transaction: when another connection committed since the shapes
were read, none is written (a figure is only ever written of the output the shapes' snapshot
holds). A row updated or deleted loses its shape, figures with it (migration 12's triggers).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from goosectx.session import TokenCount
from goosectx.store.database import dumps, loads


class KeptLines:
    """Figures by message id: those read with the shapes, and those measured since."""

    __slots__ = ("stored", "fresh")

    def __init__(self) -> None:
        self.stored: dict[str, str] = {}
        self.fresh: dict[str, str] = {}

    def get(self, message_id: str, key: str) -> list[int] | None:
        """The figures stored for ``message_id`` under ``key`` (``None``: none, or unusable)."""
        text = self.stored.get(message_id)
        if text is None:
            return None
        try:
            data: Any = loads(text)
        except ValueError:
            return None
        if (type(data) is not list or len(data) != 2 or data[0] != key
                or type(data[1]) is not list
                or not all(type(n) is int and n >= 0 for n in data[1])):
            return None
        figures: list[int] = data[1]
        return figures

    def put(self, message_id: str, key: str, figures: list[int]) -> None:
        """Keep ``figures`` of ``message_id`` (written by :meth:`save`)."""
        text = dumps([key, figures])
        if self.stored.get(message_id) != text:
            self.fresh[message_id] = text

    def save(self, conn: sqlite3.Connection) -> None:
        """Write the fresh figures in ``conn``'s open read transaction, then end it.

        Best effort: a snapshot another connection wrote past (``SQLITE_BUSY_SNAPSHOT``), a
        busy or read-only database write nothing.
        """
        if not conn.in_transaction:
            return
        try:
            conn.execute("PRAGMA busy_timeout=0")  # a cache: never waits for a writer
            if self.fresh:
                conn.executemany(
                    "UPDATE message_shapes SET result_lines=?"
                    " WHERE message_rowid=(SELECT rowid FROM messages WHERE id=?)",
                    ((text, mid) for mid, text in self.fresh.items()))
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        self.fresh = {}


class ShapedCounts(dict[str, TokenCount]):
    """``Session.token_counts`` of a session read from its shapes, with :class:`KeptLines`."""

    __slots__ = ("result_lines",)

    def __init__(self, result_lines: KeptLines) -> None:
        super().__init__()
        self.result_lines = result_lines
