"""``compact --dry-run`` read from the messages' shapes (migration 12, goosectx/store/shapes.py).

What a user would notice: the dry run's plan is the same whether the session is read whole or
from its shapes, after edits, deletions, a compaction and an import too, and on a database
made before the shapes existed; and the shapes always hold what the messages hold.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import cli
from compaction_support import chat, tool_pair, words
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer

import goosectx.store.shapes as shapes_module
from goosectx.config import load_settings
from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.store import SessionStore
from goosectx.store.shapes import load_for_plan

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:pydantic")

VARIANTS = ([], ["--json"], ["--strategy", "extractive"], ["--strategy", "extractive", "--json"])


@pytest.fixture
def model(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    monkeypatch.setenv("GOOSE_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    return fake_server


def _store() -> SessionStore:
    return SessionStore(load_settings().data_dir)


def _history(turns: int) -> list[Message]:
    out: list[Message] = []
    for turn in range(turns):
        out += chat(1)
        out += tool_pair(words(300 + 40 * turn, f"out{turn}"), args={"command": f"ls {turn}"})
        out.append(Message("user", Message.notification(f"note {turn}").content,
                           MessageMetadata.user_only()))  # hidden from the model
        out.append(Message.assistant(f"done with step {turn}"))
    out += [Message("assistant", (ToolRequest("d1", "text_editor", {"path": "a.py"}),
                                  ToolRequest("d2", "shell", {"command": "false"}))),
            Message("user", (ToolResponse("d1", "edited", diff="--- a.py\n+++ a.py\n"),
                             ToolResponse("d2", "exit 1", is_error=True))),
            Message.user("a NUL \x00 in the text"),  # kept in parts_json as it is
             Message("assistant", (TextContent("two"), TextContent(""), TextContent("texts"))),
             Message.user("now write the docs")]
    return out


def _session(name: str = "work", turns: int = 12) -> str:
    store = _store()
    try:
        session = store.create_session(Path.cwd(), name=name)
        for m in _history(turns):
            store.append_message(session.id, m)
        return session.id
    finally:
        store.close()


def _plans(capsys: pytest.CaptureFixture[str], name: str = "work") -> list[str]:
    return [cli(capsys, "compact", name, "--dry-run", *extra)[0] for extra in VARIANTS]


def _full_plans(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                name: str = "work") -> list[str]:
    """The plans with the session read whole (as before the shapes), nothing kept."""
    with monkeypatch.context() as m:
        m.setattr(shapes_module, "load_for_plan",
                  lambda store, sid: (store.load(sid), lambda: None))
        return _plans(capsys, name)


def _forbid_full_load(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the session was read whole")

    monkeypatch.setattr(shapes_module, "read_messages", refuse)
    monkeypatch.setattr(SessionStore, "load", refuse)


def _disagreements(sid: str) -> list[tuple[object, ...]]:
    """Shapes that differ from their row (column by column) or have none (a row may have
    no shape yet: the next dry run makes it)."""
    conn = sqlite3.connect(load_settings().data_dir / "sessions.db")
    try:
        return conn.execute(
            "SELECT m.id FROM messages m JOIN message_shapes s ON s.message_rowid = m.rowid"
            " WHERE m.session_id = ? AND (s.id IS NOT m.id OR s.session_id IS NOT m.session_id"
            " OR s.position IS NOT m.position OR s.role IS NOT m.role"
            " OR s.created IS NOT m.created OR s.metadata_json IS NOT m.metadata_json"
            " OR s.token_count IS NOT m.token_count OR s.token_encoding IS NOT m.token_encoding)"
            " UNION ALL SELECT s.id FROM message_shapes s LEFT JOIN messages m"
            " ON m.rowid = s.message_rowid WHERE s.session_id = ? AND m.id IS NULL",
            (sid, sid)).fetchall()
    finally:
        conn.close()


def _same_as_full_load(sid: str) -> bool:
    """The session read from its shapes equals the session read whole; True: shapes used."""
    store = _store()
    try:
        whole = store.load(sid)
        assert shapes_module._read_shaped(_conn(store), store, sid) is not None, "not shaped"
        shaped, done = load_for_plan(store, sid)
        try:
            assert shaped.conversation.messages == whole.conversation.messages
            assert shaped.token_counts == whole.token_counts
            return True
        finally:
            done()
    finally:
        store.close()


def _fill(sid: str) -> None:
    """The session's shapes made (as a dry run that reads it whole makes them)."""
    store = _store()
    try:
        load_for_plan(store, sid)[1]()
    finally:
        store.close()


def _conn(store: SessionStore) -> sqlite3.Connection:
    return sqlite3.connect(store.path, isolation_level=None)


def test_the_plan_from_shapes_is_the_plan_from_the_whole_session(
        model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    sid = _session(turns=60)
    cli(capsys, "compact", "work", "--strategy", "extractive")  # an earlier summary, hidden rows
    store = _store()
    try:
        for m in _history(6):
            store.append_message(sid, m)
    finally:
        store.close()
    expected = _full_plans(capsys, monkeypatch)
    assert "Dry run" in expected[0]
    assert _plans(capsys) == expected  # this one reads it whole and makes the shapes
    _forbid_full_load(monkeypatch)
    assert _plans(capsys) == expected  # from the shapes
    assert json.loads(expected[1])["replaced_messages"] > 0
    assert not model.requests


def test_shapes_hold_what_the_messages_hold_after_each_change(
        model: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    sid = _session(turns=60)  # the compaction keeps a tail: its block goes before it
    assert not _disagreements(sid)
    _plans(capsys)  # makes the parts
    assert _same_as_full_load(sid)
    store = _store()
    try:
        draft = Message.assistant("half an answer")
        store.save_draft(sid, draft, replacing=None)
        store.save_draft(sid, Message("assistant", draft.content[:1], draft.metadata, draft.id,
                                      draft.created), replacing=draft.id)  # an edit
        assert not _disagreements(sid)
        _fill(sid)
        assert _same_as_full_load(sid)
        store.retract_message(sid, draft.id)  # a deletion
        assert not _disagreements(sid)
        assert _same_as_full_load(sid)
    finally:
        store.close()
    cli(capsys, "compact", "work", "--strategy", "extractive")  # moves and hides rows
    assert not _disagreements(sid)
    _fill(sid)
    assert _same_as_full_load(sid)


@pytest.mark.parametrize("trigger", ["message_shapes_update", "message_shapes_delete"])
def test_a_missing_trigger_is_noticed(trigger: str) -> None:
    sid = _session(turns=2)
    _fill(sid)
    assert not _disagreements(sid)
    conn = sqlite3.connect(load_settings().data_dir / "sessions.db", isolation_level=None)
    conn.execute(f"DROP TRIGGER {trigger}")
    first, second = (row[0] for row in conn.execute(
        "SELECT id FROM messages WHERE session_id = ? ORDER BY position LIMIT 2", (sid,)))
    conn.execute("UPDATE messages SET position = position + 0.5 WHERE id = ?", (first,))
    conn.close()
    store = _store()
    try:
        store.retract_message(sid, second)  # a delete
    finally:
        store.close()
    assert _disagreements(sid)


def test_an_old_database_gets_its_shapes_and_the_same_plan(
        model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    sid = _session()
    expected = _full_plans(capsys, monkeypatch)
    conn = sqlite3.connect(load_settings().data_dir / "sessions.db", isolation_level=None)
    conn.executescript(  # as made before migration 12
        "DROP TRIGGER message_shapes_update;"
        " DROP TRIGGER message_shapes_delete; DROP TABLE message_shapes;"
        " DELETE FROM schema_migrations WHERE number IN (12, 14); PRAGMA user_version = 11;")
    conn.close()
    assert _plans(capsys) == expected  # migrated, read whole, shapes made
    assert not _disagreements(sid)
    _forbid_full_load(monkeypatch)
    assert _plans(capsys) == expected


def test_an_imported_session_is_planned_alike(
        model: FakeServer, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _session()
    export = tmp_path / "work.json"
    cli(capsys, "sessions", "export", "work", "--format", "json", "-o", str(export))
    cli(capsys, "sessions", "import", str(export), "--name", "copy")
    expected = _full_plans(capsys, monkeypatch, "copy")
    assert _plans(capsys, "copy") == expected
    _forbid_full_load(monkeypatch)
    assert _plans(capsys, "copy") == expected


def test_messages_appended_since_the_last_dry_run_are_read_alone(
        model: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The REPL appends between dry runs: the next reads the new rows whole, not the session."""
    sid = _session()
    _fill(sid)
    store = _store()
    try:
        for m in _history(2):
            store.append_message(sid, m)
    finally:
        store.close()
    assert _shapeless(sid) > 0
    expected = _full_plans(capsys, monkeypatch)
    with monkeypatch.context() as m:
        _forbid_full_load(m)
        assert _plans(capsys) == expected
    assert _shapeless(sid) == 0  # made on the way: the next dry run reads only shapes
    assert not _disagreements(sid)
    assert _same_as_full_load(sid)


def _shapeless(sid: str) -> int:
    conn = sqlite3.connect(load_settings().data_dir / "sessions.db")
    try:
        return int(conn.execute(
            "SELECT count(*) FROM messages m LEFT JOIN message_shapes s"
            " ON s.message_rowid = m.rowid WHERE m.session_id = ? AND s.parts_json IS NULL",
            (sid,)).fetchone()[0])
    finally:
        conn.close()


@pytest.mark.parametrize("batches", [16, 1])
def test_outputs_read_in_any_order_are_the_stored_ones(
        batches: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the first rows read one by one, a read takes the next pending rows in the
    # session's order with it (a dry run reads the summary request's results in order), and
    # after some such reads every pending row: a reader going backwards or skipping about
    # still gets every stored output.
    from goosectx.store import shape_outputs
    from goosectx.store.shape_outputs import SINGLE_READS

    monkeypatch.setattr(shape_outputs, "BATCH_READS", batches)
    sid = _session(turns=90)
    _fill(sid)
    store = _store()
    try:
        stored = {p.id: p.output for m in store.load(sid).conversation.messages
                  for p in m.content if isinstance(p, ToolResponse)}
        orders = [lambda xs: xs[::-1], lambda xs: xs[::3] + xs[1::3] + xs[2::3],
                  lambda xs: xs[:10] + xs[50:] + xs[10:50]]
        for order in orders:
            shaped, done = load_for_plan(store, sid)
            try:
                parts = [p for m in shaped.conversation.messages for p in m.content
                         if isinstance(p, ToolResponse)]
                assert len(parts) > 2 * SINGLE_READS
                assert {p.id: p.output for p in order(parts)} == stored
            finally:
                done()
    finally:
        store.close()


def test_a_reader_going_back_from_the_newest_reads_in_batches_not_the_whole_session(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The digest rung sizes the newest messages from the last one back: each batch is the
    # pending rows before the one read, so it never falls back to reading every row (a 10k
    # dry run read all 3,581 result rows for ~450 newest messages: 0.09 s).
    from goosectx.store import shape_outputs
    from goosectx.store.shape_outputs import BATCH_READS, SINGLE_READS, Outputs

    whole: list[str] = []
    real = Outputs._read_all

    def spy(self: Outputs) -> None:
        whole.append(self.session_id)
        real(self)

    monkeypatch.setattr(shape_outputs.Outputs, "_read_all", spy)
    sid = _session(turns=800)
    _fill(sid)
    store = _store()
    try:
        stored = {p.id: p.output for m in store.load(sid).conversation.messages
                  for p in m.content if isinstance(p, ToolResponse)}
        shaped, done = load_for_plan(store, sid)
        try:
            parts = [p for m in shaped.conversation.messages for p in m.content
                     if isinstance(p, ToolResponse)]
            newest = parts[::-1][:SINGLE_READS * (BATCH_READS - 1)]
            assert len(parts) > len(newest) > (SINGLE_READS + BATCH_READS)
            assert {p.id: p.output for p in newest} == {p.id: stored[p.id] for p in newest}
            assert whole == []
        finally:
            done()
    finally:
        store.close()
