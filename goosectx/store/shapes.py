"""Message shapes: messages without their tool results' output (docs/architecture.md §8).

``goosectx compact --dry-run`` plans from every message's role, metadata, stored count and
parts, but reads the output of few tool results (those after the facts scan's kept state, the
summary request's when it fits). ``message_shapes`` (migration 12) holds each row's columns but
``content_json``, ``parts_json`` (the parts, each tool result's ``output`` and each text left
out) and ``texts``: a narrow table, so a long session's shapes are read without walking the big
rows' overflow pages, and its texts without parsing JSON.

Shapes never disagree with the messages: a row's shape is made from the row as stored, by
the first dry run that finds the row without one — it reads the session whole
(:func:`load_for_plan`) and makes the missing shapes in the same write transaction — and the
triggers of :data:`SHAPES_SCHEMA` drop it as soon as the row is updated or deleted. An insert
has no trigger (an import pays nothing for the shapes). A session is read from its shapes when
few rows have none (those are read whole); rows from before migration 12 get theirs at first
need too.

A tool result read from a shape holds a pending output, read from its row when first used
(:class:`~goosectx.store.shape_outputs.LazyOutput`): every value the plan sees is the stored one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from goosectx.conversation import (
    Conversation,
    Message,
    TextContent,
    ToolResponse,
    build_message,
    part_to_dict,
)
from goosectx.errors import StoreCorrupt, StoreError
from goosectx.parts import plain_part, slot_twin
from goosectx.session import Session, TokenCount
from goosectx.store import SessionStore
from goosectx.store.database import dumps, loads
from goosectx.store.message_read import (
    FLAGS_METADATA,
    ROLE_CODE,
    ROLES,
    hidden_metadata,
    parse_message,
    read_messages,
)
from goosectx.store.replacing import ReplacingConnection
from goosectx.store.rows import MESSAGES_WITH_STATE, METADATA_JSON, TOKEN_COUNT
from goosectx.store.shape_outputs import Outputs, Pending, install
from goosectx.store.shapes_lines import KeptLines, ShapedCounts
from goosectx.store.shapes_schema import COLUMNS
from goosectx.store.waiting import BUSY_TIMEOUT_MS

_SHAPE_ROWS = (
    f"SELECT m.rowid, sh.id, {ROLE_CODE.replace('m.', 'sh.')}, sh.created, sh.parts_json,"
    " sh.texts, coalesce(s.metadata_json, sh.metadata_json),"
    " CASE WHEN s.token_count IS NULL THEN sh.token_count ELSE s.token_count END,"
    " CASE WHEN s.token_count IS NULL THEN sh.token_encoding ELSE s.token_encoding END,"
    " sh.result_lines FROM messages m LEFT JOIN message_shapes sh ON sh.message_rowid = m.rowid"
    " LEFT JOIN message_state s ON s.message_rowid = m.rowid"
    " WHERE m.session_id=? ORDER BY m.position"
)
"""Each row's shape (NULLs: none yet), in the full load's order, ``messages`` read through its
index alone (the rowids of the session's rows by position)."""
_WHOLE_ROW = (f"SELECT m.id, {ROLE_CODE}, m.created, m.content_json, {METADATA_JSON},"
              f" {TOKEN_COUNT} FROM {MESSAGES_WITH_STATE} WHERE m.rowid=?")
MAX_UNSHAPED = 256
"""Rows without a shape read whole one by one up to this many (appended since the last dry
run); more, and the session is read whole (and its shapes made)."""


def load_for_plan(store: SessionStore, session_id: str) -> tuple[Session, Callable[[], None]]:
    """The session as :meth:`SessionStore.load` gives it, read from its shapes when it can be.

    Returns the session and what to call once its messages are no longer read (it closes
    the connection pending outputs are read through). Rows without a shape (appended since
    the last dry run) are read whole and their shapes made; with more than
    :data:`MAX_UNSHAPED` (or none at all) the session is loaded whole, and its shapes made in
    the same transaction; when that cannot be written (a read-only database), it is loaded
    as :meth:`SessionStore.load` does.

    Raises:
        SessionNotFound, StoreCorrupt: as :meth:`SessionStore.load`.
    """
    session = store.load_header(session_id)  # first: a damaged session is left unwritten
    try:
        conn = _connect(store)
    except sqlite3.Error:
        return store.load(session_id), _nothing
    try:
        shaped = _read_shaped(conn, store, session_id)
    except sqlite3.Error:  # the shapes cannot be read: the whole session then
        conn.close()
        return store.load(session_id), _nothing
    except BaseException:
        conn.close()
        raise
    if shaped is not None:
        messages, counts, unshaped = shaped
        if unshaped:
            _make_shapes(store, session_id, unshaped)
        return _with_messages(session, messages, counts), lambda: _done(conn, counts)
    conn.close()
    try:
        return _with_messages(session, *_load_and_fill(store, session_id)), _nothing
    except StoreError as exc:
        if isinstance(exc, StoreCorrupt):
            raise
        return store.load(session_id), _nothing  # shapes not written (a read-only database)


def _nothing() -> None:
    return None


def _done(conn: sqlite3.Connection, counts: ShapedCounts) -> None:
    """The messages are no longer read: keep the results' new figures, close ``conn``."""
    try:
        counts.result_lines.save(conn)
    finally:
        conn.close()


def _connect(store: SessionStore) -> sqlite3.Connection:
    conn = sqlite3.connect(store.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           factory=ReplacingConnection, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # As the store's own connections: in WAL mode a commit (the results' figures, a cache)
    # is not synced to disk, the checkpoint is — SQLite's default (FULL) synced each commit.
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def _with_messages(session: Session, messages: list[Message],
                   counts: dict[str, TokenCount]) -> Session:
    session.conversation = Conversation(messages)
    session.token_counts = counts
    return session


def _read_shaped(conn: sqlite3.Connection, store: SessionStore, session_id: str
                 ) -> tuple[list[Message], ShapedCounts, list[int]] | None:
    """The messages from their shapes, in one read transaction kept open for their outputs.

    Also the rowids of the rows without a shape, read whole; ``None`` (the transaction ended)
    when there are more than :data:`MAX_UNSHAPED` of them, or no row at all.
    """
    conn.execute("BEGIN")  # one snapshot: the shapes and the outputs read later
    try:
        outputs = Outputs(conn, store, session_id)
        install()
        messages: list[Message] = []
        kept = KeptLines()
        counts = ShapedCounts(kept)
        figures = kept.stored
        last_encoding = None
        templates: dict[str, Any] = {}
        flags, roles, parse_time = FLAGS_METADATA.get, ROLES.get, datetime.fromisoformat
        unshaped: list[int] = []
        for (rowid, mid, role, created, parts_json, texts, metadata_json, count, encoding,
             lines) in conn.execute(_SHAPE_ROWS, (session_id,)):
            if parts_json is None:  # no shape yet: the row read whole, as the full load does
                unshaped.append(rowid)
                if len(unshaped) > MAX_UNSHAPED:
                    conn.execute("COMMIT")
                    return None
                mid, role, created, content_json, metadata_json, count, encoding = (
                    conn.execute(_WHOLE_ROW, (rowid,)).fetchone())
                whole = parse_message(session_id, store.path, mid, ROLES.get(role, role),
                                      created, content_json, metadata_json)
                messages.append(whole)
                if type(count) is int and type(encoding) is str:
                    counts[mid] = TokenCount(count, encoding, len(whole.content))
                continue
            role = roles(role, role)
            metadata = flags(metadata_json)
            message: Message | None = None
            one = _ONE_PART.get(parts_json)
            if (one is not None and metadata is not None and type(texts) is str
                    and type(mid) is str and role in _TWO_ROLES):  # most rows: one text or
                try:                                       # one tool result without a diff
                    when = parse_time(created)
                except (ValueError, TypeError):
                    when = None
                part: Any = None
                if when is not None and one == "t":
                    part = _TextFields()
                    part.text = texts
                    part.type = "text"
                    part.__class__ = TextContent
                elif when is not None and TEXT_SEPARATOR not in texts:  # "r" / "e": its id
                    part = _pending_response(texts, one == "e", None, outputs, mid, 0)
                if part is not None and when is not None:
                    message = build_message(role, (part,), metadata, mid,
                                            when if when.tzinfo else when.replace(tzinfo=UTC))
            if message is None:
                message = _shaped_message(mid, role, created, parts_json, texts, metadata_json,
                                          outputs, templates)
            if message is None:  # not a plain row: read whole, as the full load reads it
                message = outputs.whole(mid, metadata_json)
            messages.append(message)
            if lines is not None:
                figures[mid] = lines
            if type(count) is int and type(encoding) is str:  # as read_messages keeps it
                known: Any = _CountFields()
                known.count = count
                if encoding == last_encoding:
                    encoding = last_encoding
                known.encoding = last_encoding = encoding
                known.parts = len(message.content)
                known.__class__ = TokenCount
                counts[mid] = known
        if not messages:
            conn.execute("COMMIT")
            return None
        return messages, counts, unshaped
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _shaped_message(mid: Any, role: Any, created: Any, parts_json: Any, texts: Any,
                    metadata_json: Any, outputs: Outputs,
                    templates: dict[str, Any]) -> Message | None:
    """The message of a plain row from its shape (outputs pending), else ``None``.

    Plain as :func:`~goosectx.store.message_read.parse_message` reads a row directly: the
    visibility flags (and ``hidden_by``) alone, plain parts. ``templates``: the parsed
    ``parts_json`` of short ones by their text (most are alike: ``["t"]``, ``["r"]``).
    """
    metadata = FLAGS_METADATA.get(metadata_json)
    if metadata is None and type(metadata_json) is str and metadata_json.endswith('"}'):
        metadata = hidden_metadata(metadata_json)
    if metadata is None or type(mid) is not str or role not in _TWO_ROLES:
        return None
    try:
        data = templates.get(parts_json)
        if data is None:
            data = loads(parts_json)
            if len(parts_json) <= _TEMPLATE_CHARS:
                templates[parts_json] = data
        when = datetime.fromisoformat(created)
    except (ValueError, TypeError):
        return None
    if type(data) is not list:
        return None
    part: Any
    if len(data) == 1 and type(texts) is str and data[0] == "t":  # most messages: one text
        part = _TextFields()
        part.text = texts
        part.type = "text"
        part.__class__ = TextContent
        content: tuple[Any, ...] = (part,)
    else:
        parts: list[Any] = []
        split = iter(() if texts is None else texts.split(TEXT_SEPARATOR))
        for at, item in enumerate(data):
            if item == "t":
                text = next(split, None)
                if text is None:
                    return None
                part = _TextFields()
                part.text = text
                part.type = "text"
                part.__class__ = TextContent
            elif item in ("r", "e"):
                part_id = next(split, None)
                if part_id is None:
                    return None
                part = _pending_response(part_id, item == "e", None, outputs, mid, at)
            elif type(item) is dict and item.get("type") == "tool_response":
                part_id, error, diff = item.get("id"), item.get("is_error", False), item.get(
                    "diff")
                if (type(part_id) is not str or type(error) is not bool or "output" in item
                        or (diff is not None and type(diff) is not str)):
                    return None
                part = _pending_response(part_id, error, diff, outputs, mid, at)
            else:
                part = plain_part(item)
                if part is None:
                    return None
            parts.append(part)
        if next(split, None) is not None:
            return None
        content = tuple(parts)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return build_message(role, content, metadata, mid, when)


def _pending_response(part_id: str, is_error: bool, diff: str | None, outputs: Outputs,
                      mid: str, at: int) -> Any:
    """A tool result whose output is read when first used (:mod:`.shape_outputs`)."""
    part: Any = _ResponseFields()  # ToolResponse(id, output, …), by its slots
    part.id = part_id
    part.output = Pending(outputs, mid, at)
    part.is_error = is_error
    part.diff = diff
    part.type = "tool_response"
    part.__class__ = ToolResponse
    outputs.register(mid, at, part)
    return part


TEXT_SEPARATOR = "\x00"
"""Between the strings of a shape's ``texts`` (one holding it stays in ``parts_json``)."""
_TEMPLATE_CHARS = 80
_TextFields = slot_twin(TextContent, "text", "type")
_TWO_ROLES = frozenset(("user", "assistant"))
_ONE_PART = {'["t"]': "t", '["r"]': "r", '["e"]': "e"}
"""The shapes of one part read without parsing ``parts_json``, by it."""
_ResponseFields = slot_twin(ToolResponse, "id", "output", "is_error", "diff", "type")
_CountFields = slot_twin(TokenCount, "count", "encoding", "parts")


def _make_shapes(store: SessionStore, session_id: str, rowids: list[int]) -> None:
    """Make the shapes of rows ``rowids`` from the rows as stored (a cache: best effort)."""
    try:
        with store.write_transaction() as conn:
            for rowid in rowids:
                row = conn.execute("SELECT id, role, created, content_json, metadata_json"
                                   " FROM messages WHERE rowid=? AND session_id=?",
                                   (rowid, session_id)).fetchone()
                if row is None:
                    continue
                try:
                    message = parse_message(session_id, store.path, *row)
                except StoreCorrupt:
                    continue
                conn.execute(f"INSERT OR REPLACE INTO message_shapes SELECT"
                             f" {COLUMNS.format(r='rowid', t='messages')}, ?, ?, NULL FROM messages"
                             " WHERE rowid=?", (*shape_parts(message), rowid))
    except StoreError:
        pass  # the next dry run reads those rows whole again


def _load_and_fill(store: SessionStore, session_id: str
                   ) -> tuple[list[Message], dict[str, TokenCount]]:
    """The session's messages read whole, its shapes made in the same write transaction.

    On the store's own connection: its commit is not another connection's, which would stop
    the scan state read before the load from being kept (:mod:`goosectx.store.scan_state`).
    """
    with store.write_transaction() as conn:
        messages, counts = read_messages(conn, session_id, store.path)
        conn.execute(  # the rows without a shape (since the last dry run, or migration 12)
            f"INSERT INTO message_shapes SELECT {COLUMNS.format(r='rowid', t='messages')},"
            " NULL, NULL, NULL FROM messages WHERE session_id=? AND rowid NOT IN"
            " (SELECT message_rowid FROM message_shapes WHERE session_id=?)",
            (session_id, session_id))
        missing = {mid for (mid,) in conn.execute(
            "SELECT id FROM message_shapes WHERE session_id=? AND parts_json IS NULL",
            (session_id,))}
        conn.executemany(
            "UPDATE message_shapes SET parts_json=?, texts=?"
            " WHERE message_rowid=(SELECT rowid FROM messages WHERE id=?)",
            ((*shape_parts(m), m.id) for m in messages if m.id in missing))
    return messages, counts


def shape_parts(message: Message) -> tuple[str, str | None]:
    """A shape's ``parts_json`` and ``texts``: the stored parts, their strings apart.

    Each part is ``"t"`` for a text (its text in ``texts``), ``"r"`` / ``"e"`` for a tool
    result without a diff (its id in ``texts``; ``"e"``: an error), else its stored object
    without a tool result's output (read from the row when used). ``texts`` joins those
    strings with :data:`TEXT_SEPARATOR` (``None`` when there are none); a string holding it
    stays in the part's object, read as it is.
    """
    out: list[Any] = []
    texts: list[str] = []
    for p in message.content:
        if type(p) is TextContent and type(p.text) is str and TEXT_SEPARATOR not in p.text:
            out.append("t")
            texts.append(p.text)
        elif (type(p) is ToolResponse and p.diff is None and type(p.is_error) is bool
              and type(p.id) is str and TEXT_SEPARATOR not in p.id):
            out.append("e" if p.is_error else "r")
            texts.append(p.id)
        else:
            data = part_to_dict(p)
            if type(p) is ToolResponse:
                data.pop("output", None)
            out.append(data)
    return dumps(out), TEXT_SEPARATOR.join(texts) if texts else None
