"""The messages table: appending, replacing the history, stored token counts.

Messages are ordered by a REAL ``position`` so a message can be inserted between two others
(tool-pair notes go where the pair stood). Appending writes one row; replacing the agent-visible
history is one transaction, so a crash leaves the old or the new history, never a mix.

Each row may carry the message's raw token count and the tiktoken encoding it was made with
(migration 2; NULL = not yet counted): write them with :meth:`MessageStore.save_token_counts`
or ``append_message(..., token_count=...)``; ``SessionStore.load`` returns them as
``Session.token_counts``. What changes after a row is written — its metadata (a compaction hides
it) and its count — goes to ``message_state`` (migration 8), keyed by the row's rowid, whose
columns win over the row's own where not NULL: SQLite rewrites a whole row, content included,
to change one column, and reads all of it first. See docs/architecture.md §8. Reading a row
back as a message: :mod:`goosectx.store.message_read`.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING

from goosectx.conversation import Conversation, Message, PlainMessage
from goosectx.errors import StoreCorrupt
from goosectx.session import SessionState, TokenCount, request_title
from goosectx.store.database import StoreDatabase, now, update_session_row
from goosectx.store.ledger import insert_ledger
from goosectx.store.message_read import parse_message, plain_row
from goosectx.store.rows import INSERT_MESSAGE, MESSAGES_WITH_STATE, METADATA_JSON, message_row
from goosectx.store.rows import metadata_json as metadata_json_of
from goosectx.testhooks import pause_point
from goosectx.usage import LedgerEntry

if TYPE_CHECKING:
    from goosectx.store.damaged_pairs import LostPairs


def plan_positions(
    messages: list[Message], stored: Mapping[str, tuple[str, float, str, int]]
) -> list[float] | None:
    """Positions keeping stored ones; new messages between neighbours. ``None`` = renumber.

    ``stored``: (id, position, metadata, rowid) of each stored message by id.
    """
    positions: list[float] = []
    last = 0.0
    for i, m in enumerate(messages):
        known = stored.get(m.id)
        if known is not None:
            pos = known[1]
            if pos <= last and positions:
                return None
            positions.append(pos)
            last = pos
            continue
        nxt = next((stored[n.id][1] for n in messages[i + 1:] if n.id in stored), None)
        if nxt is None:
            pos = float(math.floor(last)) + 1.0
        else:
            # Leave room for the run of new messages still to come before ``nxt``.
            run = next((k for k, n in enumerate(messages[i:]) if n.id in stored), 1)
            pos = last + (nxt - last) / (run + 1)
        if pos <= last or (nxt is not None and pos >= nxt):
            return None
        positions.append(pos)
        last = pos
    return positions


UPSERT_METADATA = (
    "INSERT INTO message_state (message_rowid, metadata_json) VALUES (?, ?)"
    " ON CONFLICT (message_rowid) DO UPDATE SET metadata_json=excluded.metadata_json")
UPSERT_METADATA_RUN = (
    "WITH RECURSIVE run(n) AS (SELECT ?1 UNION ALL SELECT n + 1 FROM run WHERE n < ?2)"
    " INSERT INTO message_state (message_rowid, metadata_json) SELECT n, ?3 FROM run WHERE 1"
    " ON CONFLICT (message_rowid) DO UPDATE SET metadata_json=excluded.metadata_json")
""":data:`UPSERT_METADATA` of every rowid from ``?1`` to ``?2``, each given ``?3``."""
STATE_ROWS_IN_RUN = "SELECT count(*) FROM message_state WHERE message_rowid BETWEEN ? AND ?"
UPDATE_METADATA_RUN = (
    "UPDATE message_state SET metadata_json=?3 WHERE message_rowid BETWEEN ?1 AND ?2")
""":data:`UPSERT_METADATA_RUN` where every rowid of the run has its ``message_state`` row (a
counted history: the counts are there): an update of the rows in place, ~15 % less CPU than
the upsert's conflict path (0.20 vs 0.23 s for a run of 100k rows)."""
MIN_RUN_ROWS = 16
"""Rows of consecutive rowids and one metadata from which they are written as one run."""


def upsert_metadata(conn: sqlite3.Connection, updates: list[tuple[int, str]]) -> None:
    """Store each (rowid, metadata JSON) of ``updates`` in ``message_state``.

    A compaction of a long history hides thousands of rows with one metadata text, most of
    them with consecutive rowids: each such run is one statement (its rowids counted out by
    SQLite, :data:`UPSERT_METADATA_RUN`) instead of one per row — the same rows written.
    """
    singles: list[tuple[int, str]] = []  # written in the order given, as one by one
    i = 0
    while i < len(updates):
        first, meta = updates[i]
        end = i + 1
        while (end < len(updates) and updates[end][0] == first + (end - i)
               and updates[end][1] == meta):
            end += 1
        if end - i < MIN_RUN_ROWS:
            singles.extend(updates[i:end])
        else:
            conn.executemany(UPSERT_METADATA, singles)
            singles = []
            run = (first, first + (end - i) - 1, meta)
            (have,) = conn.execute(STATE_ROWS_IN_RUN, run[:2]).fetchone()
            conn.execute(UPDATE_METADATA_RUN if have == end - i else UPSERT_METADATA_RUN, run)
        i = end
    conn.executemany(UPSERT_METADATA, singles)


class MessageStore(StoreDatabase):
    """Message methods of :class:`goosectx.store.SessionStore`."""

    def message_count(self, session_id: str) -> int:
        """Number of stored messages of a session (visible or not)."""
        with self._guard():
            row = self._conn.execute(
                "SELECT count(*) FROM messages WHERE session_id=?", (session_id,)
            ).fetchone()
        return int(row[0])

    def any_message_id_taken(self, ids: Iterable[str]) -> bool:
        """True when any of ``ids`` is the id of a stored message (of any session).

        Message ids are unique across the store: an import that brings ids already stored
        (a goosectx export or goose database imported again) needs fresh ones. A store without
        a message (a first import) answers at once, without looking the ids up.
        """
        with self._guard():
            if self._conn.execute("SELECT 1 FROM messages LIMIT 1").fetchone() is None:
                return False
        batch: list[str] = []
        for mid in ids:
            batch.append(mid)
            if len(batch) == 500:
                if self._any_stored(batch):
                    return True
                batch = []
        return bool(batch) and self._any_stored(batch)

    def _any_stored(self, ids: list[str]) -> bool:
        marks = ",".join("?" * len(ids))
        with self._guard():
            row = self._conn.execute(
                f"SELECT 1 FROM messages WHERE id IN ({marks}) LIMIT 1", ids).fetchone()
        return row is not None

    def iter_messages(self, session_id: str) -> Iterator[Message]:
        """The session's messages in position order, parsed a few rows at a time.

        Memory stays flat with the session's size (``sessions show`` / ``export``).

        Raises:
            StoreCorrupt: a stored message does not parse.
        """
        for row in self._iter_rows(session_id):
            yield parse_message(session_id, self.path, *row)

    def iter_messages_plain(self, session_id: str, damaged: list[str] | None = None,
                            unreadable: list[str] | None = None, lost: LostPairs | None = None
                            ) -> Iterator[Message | PlainMessage]:
        """:meth:`iter_messages`, with each plain row given as a :class:`PlainMessage`.

        Plain rows (text, tool calls and results, the two visibility flags: almost all) are not
        built into objects (``sessions show``); every other row is a :class:`Message`, and one
        that does not parse raises ``StoreCorrupt`` as in :meth:`iter_messages`. ``damaged``:
        a message time that does not parse is read as unknown (see :func:`parse_message`).
        ``unreadable``: when given, a row that does not parse is skipped and its id appended
        (``--skip-damaged``: what still reads is saved), and a tool call or result it leaves
        alone is marked (:func:`~goosectx.store.damaged_pairs.mend_pairs`, counted in
        ``lost``).
        """
        for row in self._rows(session_id, unreadable, lost):
            yield plain_row(*row) or parse_message(session_id, self.path, *row, damaged)

    def iter_messages_skipping(self, session_id: str, unreadable: list[str],
                               lost: LostPairs | None = None) -> Iterator[Message]:
        """:meth:`iter_messages` leaving out the rows that do not parse (``--skip-damaged``).

        As :meth:`iter_messages_plain` with ``unreadable``: each left-out row's id is appended
        to it and the tool pairs it broke are marked (counted in ``lost``); a message time
        that does not parse is read as unknown (``sessions show --agent``).
        """
        for row in self._rows(session_id, unreadable, lost):
            yield parse_message(session_id, self.path, *row, [])

    def iter_messages_json(self, session_id: str, damaged: list[str] | None = None,
                           unreadable: list[str] | None = None, lost: LostPairs | None = None
                           ) -> Iterator[str]:
        """Each message's JSON (the keys and values of :meth:`Message.to_dict`), in order.

        Every row is checked as :meth:`iter_messages` reads it (a plain row without building
        the message), so a row that does not parse raises ``StoreCorrupt`` the same way; the
        text given is the stored JSON spliced into the message object, not encoded a second
        time (``sessions export --format json``). ``damaged``: a message time that does not
        parse is ``null`` (see :func:`parse_message`). ``unreadable``, ``lost``: as in
        :meth:`iter_messages_plain`.
        """
        dumps = json.JSONEncoder(ensure_ascii=False).encode
        for row in self._rows(session_id, unreadable, lost):
            mid, role, created, content_json, metadata_json = row
            when = dumps(created)
            if plain_row(*row) is None:
                known = len(damaged) if damaged is not None else 0
                parse_message(session_id, self.path, *row, damaged)
                if damaged is not None and len(damaged) > known:
                    when = "null"
            yield (f'{{"id": {dumps(mid)}, "role": {dumps(role)}, "created": {when},'
                   f' "content": {content_json}, "metadata": {metadata_json}}}')

    def _rows(self, session_id: str, unreadable: list[str] | None, lost: LostPairs | None
              ) -> Iterator[tuple[str, str, str, str, str]]:
        """The session's rows; with ``unreadable``, those that read, pairs mended."""
        rows = self._iter_rows(session_id)
        if unreadable is None:
            return rows
        from goosectx.store.damaged_pairs import mend_pairs

        def readable(row: tuple[str, str, str, str, str]) -> bool:
            if plain_row(*row) is not None:
                return True
            try:
                parse_message(session_id, self.path, *row, [])  # a bad time alone reads
            except StoreCorrupt:
                return False
            return True

        return mend_pairs(rows, readable, unreadable, lost)

    def _iter_rows(self, session_id: str) -> Iterator[tuple[str, str, str, str, str]]:
        with self._guard():
            cursor = self._conn.execute(
                f"SELECT m.id, m.role, m.created, m.content_json, {METADATA_JSON}"
                f" FROM {MESSAGES_WITH_STATE} WHERE m.session_id=? ORDER BY m.position",
                (session_id,))
        while True:
            with self._guard():
                rows = cursor.fetchmany(64)
            if not rows:
                return
            yield from rows

    def append_message(
        self, session_id: str, message: Message, *, token_count: TokenCount | None = None,
        replacing: Sequence[str] = (),
    ) -> None:
        """Append one message: one row (and the session's ``updated`` stamp).

        ``token_count``, when given, is stored with it (see :meth:`save_token_counts`). The
        session's first user request gives it its title (:func:`~goosectx.session.request_title`).
        ``replacing``: ids of the rows the message takes the place of, deleted in the same
        transaction (the results of a reply's calls, each stored as it came, and the draft row
        of an answer saved as it streamed, :meth:`save_draft`: the recorder).
        """
        title = request_title(message)
        with self._transaction() as conn:
            if replacing:
                conn.executemany("DELETE FROM messages WHERE id=? AND session_id=?",
                                 [(mid, session_id) for mid in replacing])
            row = conn.execute(
                "SELECT max(position) FROM messages WHERE session_id=?", (session_id,)
            ).fetchone()
            position = (row[0] or 0.0) + 1.0
            conn.execute(INSERT_MESSAGE, message_row(session_id, position, message, token_count))
            conn.execute("UPDATE sessions SET updated=? WHERE id=?", (now(), session_id))
            if title is not None:
                conn.execute("UPDATE sessions SET title=? WHERE id=? AND title IS NULL",
                             (title, session_id))

    def save_draft(self, session_id: str, message: Message, *, replacing: str | None) -> None:
        """Store the answer streamed so far as the last row, in one transaction.

        ``replacing``: the id of its previous save, deleted first (``None`` at the first save).
        The finished answer replaces it (``append_message(replacing=)``); a process that dies
        before leaves it, marked as cut off (:mod:`goosectx.answer_draft`).
        """
        with self._transaction() as conn:
            if replacing is not None:
                conn.execute("DELETE FROM messages WHERE id=? AND session_id=?",
                             (replacing, session_id))
            row = conn.execute(
                "SELECT max(position) FROM messages WHERE session_id=?", (session_id,)
            ).fetchone()
            conn.execute(INSERT_MESSAGE, message_row(session_id, (row[0] or 0.0) + 1.0, message))

    def retract_message(self, session_id: str, message_id: str) -> None:
        """Delete one message, in one transaction (else only ``append_message(replacing=)``).

        Only for the message just appended: ``run --resume`` saves its task before the
        model's key is checked, and a failed check changes no data; and a streamed answer's
        draft row (:meth:`save_draft`) whose turn kept nothing of it.
        """
        with self._transaction() as conn:
            conn.execute("DELETE FROM messages WHERE id=? AND session_id=?",
                         (message_id, session_id))

    def save_token_counts(self, session_id: str, counts: Mapping[str, TokenCount]) -> int:
        """Store raw token counts by message id, in one transaction; returns rows updated.

        A count replaces any stored one (e.g. one made with another encoding). Ids that are not
        messages of ``session_id`` are skipped. Loading returns the counts as
        ``Session.token_counts``; the messages' text never changes, so a count stays valid.
        The counts go to ``message_state``: the message rows are not rewritten.
        """
        with self._transaction() as conn:
            cursor = conn.executemany(
                "INSERT INTO message_state (message_rowid, token_count, token_encoding)"
                " SELECT rowid, ?, ? FROM messages WHERE id=? AND session_id=?"
                " ON CONFLICT (message_rowid) DO UPDATE SET token_count=excluded.token_count,"
                " token_encoding=excluded.token_encoding",
                [(c.count, c.encoding, mid, session_id) for mid, c in counts.items()],
            )
            return max(cursor.rowcount, 0)

    def replace_history(
        self,
        session_id: str,
        conversation: Conversation,
        *,
        ledger_entry: LedgerEntry | None = None,
        current_tokens: int | None = None,
        current_is_estimate: bool | None = None,
        state: SessionState | None = None,
    ) -> None:
        """Make the stored history equal ``conversation`` in ONE transaction.

        Existing messages keep their position and get their metadata rewritten when it
        changed (in ``message_state``: the row itself is not rewritten); new messages are
        inserted between their neighbours. Stored messages missing
        from ``conversation`` are kept (nothing is ever deleted). Optionally records a ledger
        entry, the new ``current`` figure and the session state in the same transaction.
        """
        with self._transaction() as conn:
            rows: list[tuple[str, float, str, int]] = conn.execute(  # (id, position, metadata,
                f"SELECT m.id, m.position, {METADATA_JSON}, m.rowid"  # rowid) of every row
                f" FROM {MESSAGES_WITH_STATE} WHERE m.session_id=?", (session_id,)).fetchall()
            # Each row by its id, the dict built in C (a comprehension is a Python loop).
            stored = dict(zip(map(itemgetter(0), rows), rows, strict=True))
            positions = plan_positions(conversation.messages, stored)
            if positions is None:
                positions = [float(i + 1) for i in range(len(conversation.messages))]
                known = [m.id for m in conversation.messages]
                listed = set(known)  # (built once: it was built again for every stored row)
                leftovers = sorted(
                    (pos, mid) for mid, (_, pos, _, _) in stored.items() if mid not in listed
                )
                # Messages not in the new list go after it, in their old order.
                conn.executemany(
                    "UPDATE messages SET position=? WHERE id=?",
                    [(float(len(known) + 1 + i), mid) for i, (_, mid) in enumerate(leftovers)],
                )
                conn.executemany(
                    "UPDATE messages SET position=? WHERE id=?",
                    [(p, m.id) for p, m in zip(positions, conversation.messages, strict=True)
                     if m.id in stored],
                )
            inserts: list[tuple[object, ...]] = []
            updates: list[tuple[int, str]] = []
            made: dict[int, str] = {}  # JSON by metadata object: a compaction's hidden head
            for pos, m in zip(positions, conversation.messages, strict=True):  # shares one
                row = stored.get(m.id)
                if row is None:
                    inserts.append(message_row(session_id, pos, m))
                    continue
                meta = made.get(id(m.metadata))
                if meta is None:
                    meta = made[id(m.metadata)] = metadata_json_of(m.metadata)
                if meta != row[2]:
                    updates.append((row[3], meta))
            upsert_metadata(conn, updates)
            conn.executemany(INSERT_MESSAGE, inserts)
            if ledger_entry is not None:
                insert_ledger(conn, session_id, ledger_entry)
            update_session_row(conn, session_id, state=state, current_tokens=current_tokens,
                               current_is_estimate=current_is_estimate)
            pause_point("replace_history:before_commit")
        pause_point("replace_history:after_commit")
