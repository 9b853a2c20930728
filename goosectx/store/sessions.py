"""The sessions table and :class:`SessionStore`, the whole session database.

The store is written only by :class:`goosectx.recorder.SessionRecorder` (and by importers and
CLI maintenance commands); the agent loop and compaction never touch it. The concepts live in
sibling modules: migrations, the connection (database), messages, the usage ledger, locks,
finding a session (session_lookup).
See docs/architecture.md §8.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.blank_chars import quoted
from goosectx.conversation import Conversation, Message
from goosectx.errors import SessionNameTaken, SessionNotFound, StoreCorrupt, StoreError
from goosectx.session import (
    UNKNOWN_TIME,
    Session,
    SessionState,
    TokenCount,
    first_request_title,
    new_session_id,
    valid_session_id,
)
from goosectx.store.database import (
    dumps,
    full_disk_error,
    loads,
    stored_time,
    update_session_row,
)
from goosectx.store.extensions import ExtensionRecordStore
from goosectx.store.ledger import LedgerStore, insert_ledger, read_ledger
from goosectx.store.message_read import read_messages
from goosectx.store.messages import MessageStore
from goosectx.store.rows import INSERT_MESSAGE, message_row, metadata_json
from goosectx.store.scan_state import ScanStateStore
from goosectx.store.search import SearchStore
from goosectx.store.session_lookup import SessionLookup
from goosectx.testhooks import pause_point
from goosectx.usage import UsageLedger

if TYPE_CHECKING:  # the listing loads with ``sessions list``, the locks with a lock
    from goosectx.store.listing import SessionSummary
    from goosectx.store.locks import LockHolder, SessionLock
    from goosectx.stored_message import StoredMessage  # (an import's: ``sessions import``)

IMPORT_PAGE_CACHE_KIB = 16 * 1024
"""SQLite's page cache while an import is saved (KiB; its default is 2 MB). The index of
message ids takes them in random order: at 100k messages it is ~6 MB, and in 2 MB its pages
were written to the WAL and read back again and again (100k, rows alone: insert + commit CPU
~2.9 -> ~2.3 s). Up to this much more memory during the import, freed after it."""


def stored_message_row(session_id: str, position: float, message: StoredMessage,
                       count: TokenCount | None = None) -> tuple[Any, ...]:
    """The values of ``INSERT_MESSAGE`` for a message read in its stored form.

    The same row :func:`~goosectx.store.messages.message_row` makes of the message it stands
    for.
    """
    return (message.id, session_id, position, message.role, message.created,
            message.content_json(), metadata_json(message.metadata),
            count.count if count else None, count.encoding if count else None)


class SessionStore(MessageStore, LedgerStore, ExtensionRecordStore, SearchStore,
                   ScanStateStore, SessionLookup):
    """The SQLite session database in ``data_dir`` (sessions; messages and usage inherited).

    Raises (from any method):
        StoreCorrupt: the file is not a usable goosectx database (it is never overwritten).
        StoreError: the data dir or file cannot be created or written.
    """

    # -- sessions ---------------------------------------------------------------------------
    def create_session(
        self,
        working_dir: Path,
        *,
        name: str | None = None,
        model: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Session:
        """Create an empty session.

        Raises:
            SessionNameTaken: ``name`` belongs to another session.
        """
        now = datetime.now(UTC)
        session = Session(
            new_session_id(now), name, working_dir.resolve(), model, now, now,
            metadata=dict(metadata or {}),
        )
        with self._transaction() as conn:
            self._insert_session(conn, session)
        return session

    def _insert_session(self, conn: sqlite3.Connection, session: Session) -> None:
        if session.name is not None:
            row = conn.execute("SELECT id FROM sessions WHERE name=?", (session.name,)).fetchone()
            if row:
                raise SessionNameTaken(
                    f"a session named {quoted(session.name)} already exists ({row[0]})",
                    f"continue it with --resume {shlex.quote(session.name)}, "
                    "or pick another --name",
                )
            _refuse_an_id(conn, session.name, None)  # not yet stored: every id is another's
        if not valid_session_id(session.id):
            session.id = new_session_id(session.created)
        while conn.execute("SELECT 1 FROM sessions WHERE id=?", (session.id,)).fetchone():
            session.id = new_session_id(session.created)
        conn.execute(
            "INSERT INTO sessions (id, name, working_dir, model, created, updated, current_tokens,"
            " current_is_estimate, state_json, metadata_json, title, source, import_hash,"
            " approval_mode) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                session.id, session.name, str(session.working_dir), session.model,
                session.created.isoformat(), session.updated.isoformat(),
                session.ledger.current_tokens, int(session.ledger.current_is_estimate),
                dumps(session.state.to_dict()), dumps(session.metadata),
                session.title, session.source, session.import_hash, session.approval_mode,
            ),
        )

    def save_new_session(self, session: Session) -> Session:
        """Insert a complete session (an import) in one transaction: all or nothing.

        A new id is drawn if ``session.id`` is taken or not a valid id
        (:data:`goosectx.session.SESSION_ID`). ``session.token_counts`` are stored. A session
        without a title gets the one of its first user request. The messages saved are
        ``session.stored_messages`` when set (a message in its stored form is written as it
        is), else the conversation's.

        Raises:
            SessionNameTaken: ``session.name`` belongs to another session.
        """
        messages: Sequence[Message | StoredMessage] = (
            session.stored_messages if session.stored_messages is not None
            else session.conversation.messages)
        if session.title is None:
            session.title = first_request_title(messages)
        counts = session.token_counts
        from goosectx.store.search_index import indexed_later  # here: a new session's save only

        with self._page_cache(IMPORT_PAGE_CACHE_KIB), self._transaction() as conn:
            self._insert_session(conn, session)
            with indexed_later(conn, session.id):
                conn.executemany(  # rows made one at a time: memory stays flat
                    INSERT_MESSAGE,
                    (message_row(session.id, float(i + 1), m, counts.get(m.id))
                     if isinstance(m, Message) else
                     stored_message_row(session.id, float(i + 1), m, counts.get(m.id))
                     for i, m in enumerate(messages)),
                )
            for entry in session.ledger.entries:
                insert_ledger(conn, session.id, entry)
            pause_point("save_new_session:before_commit")
        return session

    def list_sessions(self) -> list[SessionSummary]:
        """Every session, most recently updated first (:func:`~.listing.list_sessions`)."""
        from goosectx.store.listing import list_sessions

        with self._guard():
            return list_sessions(self._conn)

    def load(self, session_id: str, *, lenient_times: bool = False) -> Session:
        """Load a whole session (messages in position order, ledger oldest first).

        ``token_counts`` holds the stored counts of the messages already counted.
        ``lenient_times``: a session time that does not parse is read as
        :data:`~goosectx.session.UNKNOWN_TIME` and named in ``damaged_times`` (export, show);
        so is a message's (its ``created``), unnamed.

        Raises:
            SessionNotFound: no session has this id.
            StoreCorrupt: a stored message (or, unless ``lenient_times``, time) does not parse.
        """
        return self._load(session_id, with_messages=True, lenient_times=lenient_times)

    def load_header(self, session_id: str, *, lenient_times: bool = False) -> Session:
        """The session without its messages (ledger, state, metadata), for streamed output.

        Read the messages with :meth:`iter_messages`. ``lenient_times``: as :meth:`load`.

        Raises:
            SessionNotFound: no session has this id.
        """
        return self._load(session_id, with_messages=False, lenient_times=lenient_times)

    def _load(self, session_id: str, *, with_messages: bool,
              lenient_times: bool = False) -> Session:
        with self._guard():
            row = self._conn.execute(
                "SELECT id, name, working_dir, model, created, updated, current_tokens,"
                " current_is_estimate, state_json, metadata_json, title, source, import_hash,"
                " approval_mode FROM sessions WHERE id=?",
                (session_id,),
            ).fetchone()
            if row is None:
                raise SessionNotFound(
                    f"no session with id {session_id!r}", "list them with: goosectx sessions list"
                )
            messages, counts = (read_messages(self._conn, session_id, self.path,
                                              [] if lenient_times else None)
                                if with_messages else ([], {}))
            ledger = UsageLedger(read_ledger(self._conn, session_id),
                                 current_tokens=row[6], current_is_estimate=bool(row[7]))
        times = {"created": stored_time(row[4]), "updated": stored_time(row[5])}
        damaged = tuple(name for name, value in times.items() if value is None)
        try:
            if damaged and not lenient_times:
                datetime.fromisoformat(row[4 if "created" in damaged else 5])  # says why
            created, updated = (times[name] or UNKNOWN_TIME for name in ("created", "updated"))
            state, metadata = loads(row[8] or "{}"), loads(row[9] or "{}")
            if not isinstance(state, dict) or not isinstance(metadata, dict):
                raise ValueError("its state or metadata is not a JSON object")
        except (ValueError, TypeError) as exc:
            raise self._unreadable_session(session_id, exc) from None
        return Session(
            id=row[0], name=row[1], working_dir=Path(row[2]), model=row[3],
            created=created, updated=updated,
            conversation=Conversation(messages), ledger=ledger,
            state=SessionState.from_dict(state),
            metadata=metadata, token_counts=counts,
            title=row[10], source=row[11], import_hash=row[12], approval_mode=row[13],
            damaged_times=damaged,
        )

    def _unreadable_session(self, session_id: str, exc: Exception) -> StoreCorrupt:
        return StoreCorrupt(
            f"session {session_id} in {self.path} is unreadable: {str(exc)[:200]}",
            "the database was left as it is; export the other sessions, remove this one with "
            "goosectx sessions remove, or restore a backup")

    def remove(self, session_id: str) -> None:
        """Delete a session with its messages and ledger (one transaction).

        Then the file contents its ``/undo`` journal kept (``goosectx.file_journal``) and
        its tool-output overflow files (``goosectx.tools.overflow_files``). A full disk refuses
        it with nothing removed: :func:`~goosectx.store.database.full_disk_error` names the way
        out.
        """
        try:
            with self._transaction() as conn:
                conn.execute("DELETE FROM messages WHERE session_id=?", (session_id,))
                conn.execute("DELETE FROM usage_ledger WHERE session_id=?", (session_id,))
                conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))
        except StoreError as exc:  # the way out of a full disk is not "remove a session"
            if not exc.message.startswith("disk full"):
                raise
            raise full_disk_error(self.data_dir, f"remove session {session_id}") from None
        from goosectx.file_journal import remove_journal
        from goosectx.tools.overflow_files import remove_session_outputs

        remove_journal(self.data_dir, session_id)
        remove_session_outputs(self.data_dir, session_id)

    def rename(self, session_id: str, name: str) -> None:
        """Give a session a new name (checked by the caller: ``session.name_problem``).

        Raises:
            SessionNameTaken: another session has ``name`` (nothing changed).
        """
        with self._transaction() as conn:
            row = conn.execute("SELECT id FROM sessions WHERE name=? AND id<>?",
                               (name, session_id)).fetchone()
            if row:
                raise SessionNameTaken(f"a session named {quoted(name)} already exists ({row[0]})",
                                       "pick another name")
            _refuse_an_id(conn, name, session_id)
            conn.execute("UPDATE sessions SET name=? WHERE id=?", (name, session_id))

    def update_session(
        self, session_id: str, *, model: str | None = None, state: SessionState | None = None,
        current_tokens: int | None = None, current_is_estimate: bool | None = None,
        title: str | None = None, approval_mode: str | None = None,
    ) -> None:
        """Update the session row's model, state, ``current`` figure, title or approval mode.

        ``None`` leaves a column as it is.
        """
        with self._transaction() as conn:
            update_session_row(conn, session_id, model=model, state=state,
                               current_tokens=current_tokens,
                               current_is_estimate=current_is_estimate, title=title,
                               approval_mode=approval_mode)

    def save_state(self, session_id: str, state: SessionState) -> None:
        """Store the session's state alone; ``updated`` is left as it is (nothing was said)."""
        with self._transaction() as conn:
            conn.execute("UPDATE sessions SET state_json=? WHERE id=?",
                         (dumps(state.to_dict()), session_id))

    # -- locking ----------------------------------------------------------------------------
    def lock(self, session_id: str) -> SessionLock:
        """Take the driver lock on a session (see :class:`SessionLock`).

        Raises:
            SessionInUse: another live process holds it.
            StoreError: the lock file cannot be created (e.g. ``locks`` is a file), or the
                id is not a valid id (it would not stay inside ``locks``).
        """
        from goosectx.store.locks import SessionLock

        return SessionLock.for_session(self.data_dir / "locks", session_id)

    def lock_holder(self, session_id: str) -> LockHolder | None:
        """The live process driving ``session_id`` (its PID, since when), else ``None``.

        :meth:`SessionLock.holder`: read-only, it takes and creates nothing.
        """
        from goosectx.store.locks import SessionLock

        return SessionLock.holder(self.data_dir / "locks", session_id)


def _refuse_an_id(conn: sqlite3.Connection, name: str, session_id: str | None) -> None:
    """Refuse ``name`` for ``session_id`` when it is another session's id or begins one.

    A name is looked up before an id prefix: ``rename x 20261204_21`` would make that prefix,
    which named another session, name this one (``sessions remove 20261204_21``).

    ``session_id`` ``None``: a session not stored yet, so every stored id is another's.

    Raises:
        SessionNameTaken: it is (``sessions show``, ``remove`` … would mean either).
    """
    if conn.execute("SELECT 1 FROM sessions WHERE id=? AND id IS NOT ?",
                    (name, session_id)).fetchone():
        raise SessionNameTaken(f"{quoted(name)} is the id of another session", "pick another name")
    pattern = re.sub(r"([\\%_])", r"\\\1", name) + "%"
    if conn.execute("SELECT 1 FROM sessions WHERE id LIKE ? ESCAPE '\\' AND id IS NOT ?",
                    (pattern, session_id)).fetchone():
        raise SessionNameTaken(f"{quoted(name)} begins the id of another session (a name would "
                               "hide that id's prefix)", "pick another name")
