"""The pending outputs of a session read from its shapes (docs/architecture.md §8).

:mod:`goosectx.store.shapes` builds each tool result of a shaped message with a
:class:`Pending` output; ``ToolResponse.output`` then reads through :class:`LazyOutput`
(installed when a session is first read from its shapes), which reads the output from the
message's row the first time it is used, in the read transaction the shapes were read in.
Every value a reader sees is the stored one.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import Any

from goosectx.conversation import Message, ToolResponse
from goosectx.errors import StoreError
from goosectx.store import SessionStore
from goosectx.store.message_read import parse_message

_ROW = "SELECT role, created, content_json, metadata_json FROM messages WHERE id=?"
_ROWS = ("SELECT id, role, created, content_json, metadata_json FROM messages"
         " WHERE id IN (SELECT value FROM json_each(?))")
SINGLE_READS = 32
"""Pending outputs read row by row up to this many rows; then this many rows a query."""
BATCH_READS = 16
"""Queries of :data:`SINGLE_READS` rows before every pending row is read in one pass (a reader
that needs every output: the rows by id cost ~15 % more than the session's in order)."""


class Pending:
    """The output of the ``at``-th part of message ``mid``, not read yet."""

    __slots__ = ("outputs", "mid", "at")

    def __init__(self, outputs: Outputs, mid: str, at: int) -> None:
        self.outputs = outputs
        self.mid = mid
        self.at = at


class LazyOutput:
    """``ToolResponse.output``: the slot's value, a pending one read from its row first."""

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = self.slot.__get__(obj, owner)
        if type(value) is Pending:
            value.outputs.read(value.mid)
            value = self.slot.__get__(obj, owner)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)

    def __delete__(self, obj: Any) -> None:
        self.slot.__delete__(obj)


def install() -> None:
    """Read ``ToolResponse.output`` through :class:`LazyOutput` (once per process)."""
    slot = ToolResponse.__dict__["output"]
    if not isinstance(slot, LazyOutput):
        setattr(ToolResponse, "output", LazyOutput(slot))  # noqa: B010 - a slot's descriptor


class Outputs:
    """The pending outputs of one session's shapes, read in the shapes' transaction."""

    def __init__(self, conn: sqlite3.Connection, store: SessionStore, session_id: str) -> None:
        self.conn = conn
        self.store = store
        self.session_id = session_id
        self.parts: dict[str, list[tuple[int, ToolResponse]]] = {}
        self.reads = 0
        self._order: list[str] | None = None  # the messages pending at the first batch
        self._place: dict[str, int] = {}
        self._last: int | None = None  # where the last batch read started
        self.lock = threading.Lock()  # an output read on another thread waits its turn

    def register(self, mid: str, at: int, part: ToolResponse) -> None:
        """Part ``at`` of message ``mid`` has a pending output."""
        waiting = self.parts.get(mid)
        if waiting is None:
            self.parts[mid] = [(at, part)]
        else:
            waiting.append((at, part))

    def whole(self, mid: str, metadata_json: str | None = None) -> Message:
        """Message ``mid`` read from its row, as the full load reads it.

        ``metadata_json``: its stored metadata (``message_state``'s when it has one).
        """
        row = self.conn.execute(_ROW, (mid,)).fetchone()
        if row is None:
            raise StoreError(f"message {mid} of session {self.session_id} is gone",
                             "run the command again")
        role, created, content_json, row_metadata = row
        return parse_message(self.session_id, self.store.path, mid, role, created, content_json,
                             row_metadata if metadata_json is None else metadata_json)

    def read(self, mid: str) -> None:
        """Set the outputs of ``mid``, and of the messages read with it.

        Row by row up to :data:`SINGLE_READS` rows; then ``mid`` and the pending messages
        after it in the session's order, :data:`SINGLE_READS` rows a query (a reader that goes
        on in order, the summary request's results, finds the next ones read) — or before it
        when the reads go back from the newest (the digest rung's newest messages,
        :mod:`goosectx.compaction.digest_rung`); after :data:`BATCH_READS` such queries,
        every pending message.
        """
        with self.lock:
            if mid not in self.parts:  # read meanwhile
                return
            self.reads += 1
            if self.reads > SINGLE_READS + BATCH_READS:
                self._read_all()
                return
            if self.reads > SINGLE_READS and self._order is None:
                self._order = list(self.parts)
                self._place = {m: at for at, m in enumerate(self._order)}
            start = self._place.get(mid)
            if start is None or self._order is None:  # (one of the first reads)
                self._fill(mid, self.whole(mid))
                return
            back = self._last is not None and start < self._last  # read from the newest back
            self._last = start
            batch = (self._order[max(0, start - SINGLE_READS + 1):start + 1] if back
                     else self._order[start:start + SINGLE_READS])
            wanted = [m for m in batch if m in self.parts]
            rows = self.conn.execute(_ROWS, (json.dumps(wanted),)).fetchall()
            for found, *row in rows:
                if found in self.parts:
                    self._fill(found, parse_message(self.session_id, self.store.path, found,
                                                    *row))
            if mid in self.parts:  # its row is gone
                self._fill(mid, self.whole(mid))  # (raises that error)

    def _read_all(self) -> None:
        rows = self.conn.execute(
            "SELECT id, role, created, content_json, metadata_json FROM messages"
            " WHERE session_id=? ORDER BY position", (self.session_id,))
        for mid, *row in rows:
            if mid in self.parts:
                self._fill(mid, parse_message(self.session_id, self.store.path, mid, *row))

    def _fill(self, mid: str, message: Message) -> None:
        for at, part in self.parts.pop(mid, []):
            real = message.content[at] if at < len(message.content) else None
            if not isinstance(real, ToolResponse) or real.id != part.id:
                raise StoreError(f"message {mid} of session {self.session_id} changed while "
                                 "it was read", "run the command again")
            ToolResponse.__dict__["output"].slot.__set__(part, real.output)
