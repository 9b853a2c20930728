import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from goosectx.conversation import Conversation, Message, MessageMetadata
from goosectx.errors import (
    SessionAmbiguous,
    SessionInUse,
    SessionNameTaken,
    SessionNotFound,
    StoreCorrupt,
    StoreError,
)
from goosectx.events import HistoryReplaced, MessageCompleted, UsageUpdated
from goosectx.recorder import SessionRecorder
from goosectx.session import TokenCount
from goosectx.store import SessionStore
from goosectx.usage import LedgerEntry, Usage


@pytest.fixture
def store(tmp_path):
    s = SessionStore(tmp_path / "data")
    yield s
    s.close()


def test_files_are_private(store):
    session = store.create_session(Path("."))
    store.append_message(session.id, Message.user("hi"))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    for extra in store.path.parent.glob("sessions.db-*"):
        assert stat.S_IMODE(extra.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.data_dir.stat().st_mode) == 0o700


def test_files_made_readable_by_others_are_made_private_again_on_open(tmp_path):
    data = tmp_path / "data"
    first = SessionStore(data)
    session = first.create_session(Path("."))
    first.append_message(session.id, Message.user("hi"))
    extras = sorted(first.path.parent.glob("sessions.db-*"))
    assert extras  # the -wal and -shm files of the open database
    for path in [first.path, *extras]:
        os.chmod(path, 0o644)
    os.chmod(data, 0o755)
    second = SessionStore(data)
    try:
        for path in [second.path, *extras]:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        assert [m.text for m in second.load(session.id).conversation.messages] == ["hi"]
    finally:
        second.close()
        first.close()


def test_append_load_and_ledger(store):
    session = store.create_session(Path("."), name="work", model="m")
    msgs = [Message.user("one"), Message.assistant("two"), Message.user("three")]
    for m in msgs:
        store.append_message(session.id, m)
    store.add_usage(session.id, LedgerEntry(Usage.of(100, 20, 0.01), "m"), current_tokens=120,
                    is_estimate=False)
    store.add_usage(session.id, LedgerEntry(Usage.of(50, 10, None), "m", "compaction"),
                    current_tokens=30, is_estimate=True)
    loaded = store.load(session.id)
    assert [m.text for m in loaded.conversation] == ["one", "two", "three"]
    assert loaded.conversation.messages == msgs
    assert loaded.ledger.current_tokens == 30 and loaded.ledger.current_is_estimate
    assert [e.is_compaction for e in loaded.ledger.entries] == [False, True]
    assert loaded.ledger.accumulated().input_tokens == 150
    assert loaded.ledger.accumulated().cost_usd == pytest.approx(0.01)
    assert loaded.ledger.entries[1].usage.cost_usd is None


def test_names_are_unique_and_resolution(store):
    a = store.create_session(Path("."), name="alpha")
    with pytest.raises(SessionNameTaken) as exc:
        store.create_session(Path("."), name="alpha")
    assert "--resume alpha" in exc.value.hint
    b = store.create_session(Path("."))
    assert store.resolve("alpha") == a.id
    assert store.resolve(b.id) == b.id
    with pytest.raises(SessionNotFound):
        store.resolve("nope")
    with pytest.raises(SessionAmbiguous):
        store.resolve(a.id[:4])


def test_ids_are_sortable_by_creation(store):
    ids = [store.create_session(Path(".")).id for _ in range(5)]
    assert len(set(ids)) == 5
    assert [i[:15] for i in ids] == sorted(i[:15] for i in ids)


def test_replace_history_inserts_between_and_keeps_everything(store):
    session = store.create_session(Path("."))
    msgs = [Message.user(f"m{i}") for i in range(4)]
    for m in msgs:
        store.append_message(session.id, m)
    note = Message.assistant("note", MessageMetadata.agent_only())
    new = Conversation([msgs[0], msgs[1].with_metadata(agent_visible=False), note,
                        msgs[2].with_metadata(agent_visible=False), msgs[3]])
    store.replace_history(session.id, new)
    loaded = store.load(session.id)
    assert [m.text for m in loaded.conversation] == ["m0", "m1", "note", "m2", "m3"]
    assert [m.metadata.agent_visible for m in loaded.conversation] == [True, False, True, False, True]
    # Repeated inserts in the same gap keep the order.
    for k in range(60):
        conv = store.load(session.id).conversation
        conv.messages.insert(2, Message.assistant(f"n{k}", MessageMetadata.agent_only()))
        store.replace_history(session.id, conv)
    texts = [m.text for m in store.load(session.id).conversation]
    assert texts[:2] == ["m0", "m1"] and texts[-3:] == ["note", "m2", "m3"]
    assert texts[2:62] == [f"n{k}" for k in reversed(range(60))]


def test_messages_a_compaction_hid_load_as_they_were_stored(store):
    """Rows a compaction hid (flags + ``hidden_by``) load equal to the messages stored, of two
    compactions and of both visibilities, beside a row whose hidden metadata says more."""
    session = store.create_session(Path("."))
    msgs = [Message.user(f"m{i}") for i in range(6)]
    for m in msgs:
        store.append_message(session.id, m)
    hidden = [msgs[0].with_metadata(agent_visible=False, hidden_by="cmp_a"),
              msgs[1].with_metadata(agent_visible=False, hidden_by="cmp_b"),
              msgs[2].with_metadata(user_visible=False, agent_visible=False, hidden_by="cmp_b"),
              msgs[3].with_metadata(agent_visible=False, hidden_by="cmp_b", cancelled=True),
              msgs[4].with_metadata(agent_visible=False, hidden_by="cmp_b",
                                    extra={"note": "x"}),
              msgs[5]]
    store.replace_history(session.id, Conversation(hidden))
    for _ in range(2):  # a second load reads the same texts again
        loaded = list(store.load(session.id).conversation)
        assert [m.metadata for m in loaded] == [m.metadata for m in hidden]
        assert [m.text for m in loaded] == [f"m{i}" for i in range(6)]


def test_a_removed_sessions_hidden_messages_leave_nothing_behind(store):
    """What a compaction changed is stored apart from the rows; removing the session takes it
    too, so a message stored later (SQLite may give it a removed row's rowid) is seen."""
    old = store.create_session(Path("."))
    msgs = [Message.user(f"old {i}") for i in range(3)]
    for m in msgs:
        store.append_message(old.id, m)
    store.replace_history(old.id, Conversation([m.with_metadata(agent_visible=False)
                                                for m in msgs]))
    store.save_token_counts(old.id, {m.id: TokenCount(7, "o200k_base") for m in msgs})
    assert [m.metadata.agent_visible for m in store.load(old.id).conversation] == [False] * 3
    store.remove(old.id)
    new = store.create_session(Path("."))
    fresh = [Message.user(f"new {i}") for i in range(3)]
    for m in fresh:
        store.append_message(new.id, m)
    loaded = store.load(new.id)
    assert [m.metadata.agent_visible for m in loaded.conversation] == [True] * 3
    assert loaded.token_counts == {}


def test_second_driver_gets_in_use_error(store):
    session = store.create_session(Path("."))
    with store.lock(session.id):
        with pytest.raises(SessionInUse) as exc:
            SessionStore(store.data_dir).lock(session.id)
        assert f"PID {os.getpid()}" in str(exc.value)
    store.lock(session.id).release()  # free again after release


def test_recorder_persists_events(store):
    session = store.create_session(Path("."))
    rec = SessionRecorder(store, session)
    m1 = Message.user("hi")
    rec.record(MessageCompleted(m1))
    entry = LedgerEntry(Usage.of(10, 2), "m")
    rec.record(UsageUpdated(entry, 12, entry.usage, 1000, False))
    summary = Message.user("summary", MessageMetadata.agent_only())
    conv = Conversation([m1.with_metadata(agent_visible=False), summary])
    rec.record(HistoryReplaced(conv, "manual", 12, 5, None, "llm",
                               LedgerEntry(Usage.of(8, 3), "m", "compaction"), True))
    loaded = store.load(session.id)
    assert [m.metadata.agent_visible for m in loaded.conversation] == [False, True]
    assert loaded.conversation.messages[0].metadata.user_visible
    assert loaded.ledger.current_tokens == 5
    assert [e.purpose for e in loaded.ledger.entries] == ["reply", "compaction"]
    assert loaded.state.auto_compaction_paused


def test_corrupt_database_is_reported_and_left_alone(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    db = data / "sessions.db"
    db.write_bytes(b"this is not sqlite" * 100)
    before = db.read_bytes()
    with pytest.raises(StoreCorrupt) as exc:
        SessionStore(data)
    assert "move it aside" in exc.value.one_line() or "left as it is" in exc.value.one_line()
    assert db.read_bytes() == before


def test_truncated_database_is_reported_and_left_alone(tmp_path):
    s = SessionStore(tmp_path / "d")
    session = s.create_session(Path("."))
    for _ in range(200):
        s.append_message(session.id, Message.user("x" * 500))
    s._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    s.close()
    db = tmp_path / "d" / "sessions.db"
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 3])
    before = db.read_bytes()
    with pytest.raises(StoreError):
        SessionStore(tmp_path / "d").load(session.id)
    assert db.read_bytes() == before


def test_data_dir_that_is_a_file(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(StoreError) as exc:
        SessionStore(target)
    assert "not a directory" in str(exc.value)


def test_foreign_sqlite_file_is_not_touched(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    conn = sqlite3.connect(data / "sessions.db")
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreCorrupt):
        SessionStore(data)
    conn = sqlite3.connect(data / "sessions.db")
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("other",)]


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from goosectx.store import SessionStore
    store = SessionStore(Path(sys.argv[1]))
    session = store.load(sys.argv[2])
    conv = session.conversation
    conv.messages = [m.with_metadata(agent_visible=False) for m in conv.messages]
    from goosectx.conversation import Message, MessageMetadata
    conv.append(Message.user("SUMMARY", MessageMetadata.agent_only()))
    store.replace_history(session.id, conv, current_tokens=7)
    print("committed", flush=True)
""")


@pytest.mark.parametrize("kill_before_commit", [True, False])
def test_sigkill_mid_transaction_leaves_old_or_new_state(tmp_path, kill_before_commit):
    data = tmp_path / "data"
    store = SessionStore(data)
    session = store.create_session(Path("."))
    for i in range(50):
        store.append_message(session.id, Message.user(f"m{i}"))
    store.close()
    marker = tmp_path / "paused"
    env = dict(os.environ)
    if kill_before_commit:
        env.update(GOOSECTX_TEST_PAUSE_AT="replace_history:before_commit",
                   GOOSECTX_TEST_PAUSE_FILE=str(marker))
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(data), session.id], env=env,
                            stdout=subprocess.PIPE, text=True)
    if kill_before_commit:
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    else:
        assert proc.stdout.readline().strip() == "committed"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    proc.stdout.close()
    reopened = SessionStore(data)
    loaded = reopened.load(session.id)
    reopened.close()
    flags = {m.metadata.agent_visible for m in loaded.conversation if m.text != "SUMMARY"}
    has_summary = any(m.text == "SUMMARY" for m in loaded.conversation)
    if kill_before_commit:
        assert flags == {True} and not has_summary and len(loaded.conversation) == 50
    else:
        assert flags == {False} and has_summary and len(loaded.conversation) == 51
        assert loaded.ledger.current_tokens == 7


def test_a_compaction_its_undo_and_an_unchanged_history_are_stored_as_they_are(store):
    """Each replacement is stored as it is, whether a message's metadata was changed before
    (a state row) or never (the row's own)."""
    session = store.create_session(Path("."))
    msgs = [Message.user(f"m{i}") for i in range(6)]
    for m in msgs:
        store.append_message(session.id, m)

    def stored_metadata() -> list[dict]:
        return [m.metadata.to_dict() for m in store.load(session.id).conversation]

    summary = Message.user("summary", MessageMetadata.agent_only()).with_metadata(
        is_summary=True, compaction_id="cmp_1")
    hidden = [m.with_metadata(agent_visible=False, hidden_by="cmp_1") for m in msgs[:4]]
    compacted = [*hidden, summary, *msgs[4:]]
    store.replace_history(session.id, Conversation(compacted))
    assert stored_metadata() == [m.metadata.to_dict() for m in compacted]
    # /clear-like: hidden without a compaction id; the rest compared with their rows.
    cleared = [*hidden, summary.with_metadata(agent_visible=False),
               msgs[4].with_metadata(agent_visible=False), msgs[5]]
    store.replace_history(session.id, Conversation(cleared))
    assert stored_metadata() == [m.metadata.to_dict() for m in cleared]
    # Undo-like: the compaction's messages shown again as they were stored first.
    store.replace_history(session.id, Conversation([*msgs[:4], summary, *msgs[4:]]))
    assert stored_metadata() == [m.metadata.to_dict() for m in [*msgs[:4], summary, *msgs[4:]]]
    store.replace_history(session.id, store.load(session.id).conversation)  # no change
    assert stored_metadata() == [m.metadata.to_dict() for m in [*msgs[:4], summary, *msgs[4:]]]


def test_a_long_head_hidden_beside_another_sessions_rows_is_stored_row_by_row(store):
    """A compaction hiding runs of rows (written a run at a time) changes exactly its rows:
    the other session's rows between them, a row with other metadata inside a run and the
    rows kept stay as they were; an undo shows them all again."""
    mine, other = store.create_session(Path(".")), store.create_session(Path("."))
    msgs: list[Message] = []
    theirs: list[Message] = []
    for block in range(3):  # runs of 40 consecutive rows, the other session's rows between
        for i in range(40):
            msgs.append(Message.user(f"m{block}.{i}"))
            store.append_message(mine.id, msgs[-1])
        theirs.append(Message.user(f"theirs {block}"))
        store.append_message(other.id, theirs[-1])
    hidden = [m.with_metadata(agent_visible=False, hidden_by="cmp_1") for m in msgs[:100]]
    hidden[50] = msgs[50].with_metadata(agent_visible=False, hidden_by="cmp_1", cancelled=True)
    hidden[70] = msgs[70]  # kept inside the run
    summary = Message.user("summary", MessageMetadata.agent_only()).with_metadata(
        is_summary=True, compaction_id="cmp_1")
    compacted = [*hidden, summary, *msgs[100:]]
    store.replace_history(mine.id, Conversation(compacted))

    def metadata(session_id: str) -> list[dict]:
        return [m.metadata.to_dict() for m in store.load(session_id).conversation]

    assert metadata(mine.id) == [m.metadata.to_dict() for m in compacted]
    assert metadata(other.id) == [m.metadata.to_dict() for m in theirs]
    store.replace_history(mine.id, Conversation([*msgs[:100], summary, *msgs[100:]]))
    assert metadata(mine.id) == [m.metadata.to_dict() for m in [*msgs[:100], summary,
                                                                 *msgs[100:]]]
    assert metadata(other.id) == [m.metadata.to_dict() for m in theirs]


@pytest.mark.parametrize("counted", ["none", "some", "all"])
def test_a_long_head_hidden_keeps_the_stored_counts_whichever_rows_were_counted(store, counted):
    """A run of hidden rows is stored whether its rows' counts were saved (each has a state
    row then: changed in place) or not, or for some only; the counts stay as saved."""
    session = store.create_session(Path("."))
    msgs = [Message.user(f"m{i}") for i in range(60)]
    for m in msgs:
        store.append_message(session.id, m)
    saved = {"none": [], "some": msgs[10:30], "all": msgs}[counted]
    store.save_token_counts(session.id, {m.id: TokenCount(i + 3, "o200k_base")
                                         for i, m in enumerate(saved)})
    hidden = [m.with_metadata(agent_visible=False, hidden_by="cmp_1") for m in msgs[:50]]
    summary = Message.user("summary", MessageMetadata.agent_only()).with_metadata(
        is_summary=True, compaction_id="cmp_1")
    compacted = [*hidden, summary, *msgs[50:]]
    store.replace_history(session.id, Conversation(compacted))
    loaded = store.load(session.id)
    assert [m.metadata.to_dict() for m in loaded.conversation] == [
        m.metadata.to_dict() for m in compacted]
    assert loaded.token_counts == {m.id: TokenCount(i + 3, "o200k_base")
                                   for i, m in enumerate(saved)}


def test_a_new_session_named_with_a_stored_id_is_refused_even_when_it_came_with_that_id(store,
                                                                                      tmp_path):
    """An imported session whose id and name are both another session's id: its id is drawn
    again on saving, so its name would have shadowed the other session."""
    from dataclasses import replace

    first = store.create_session(tmp_path, name="first")
    copy = replace(store.load(first.id), name=first.id)
    with pytest.raises(SessionNameTaken, match="is the id of another session"):
        store.save_new_session(copy)
    assert [s.id for s in store.list_sessions()] == [first.id]


def test_an_answer_an_error_cut_off_keeps_that_mark_however_it_is_stored(store):
    """``stopped_by_error`` (the label "stopped by an error", not "cancelled") survives the
    store's shortcut for plain rows, also on a message that is not marked cancelled."""
    s = store.create_session(Path("."))
    cut = Message.assistant("0, 0, 0", MessageMetadata(cancelled=True, stopped_by_error=True))
    odd = Message.assistant("imported", MessageMetadata(stopped_by_error=True))
    for m in (cut, odd):
        store.append_message(s.id, m)
    loaded = store.load(s.id).conversation.messages
    assert [m.metadata.stopped_by_error for m in loaded] == [True, True]
    assert loaded[0].metadata.cut_short == "stopped by an error"


def test_an_answer_cut_at_the_output_limit_keeps_that_mark_however_it_is_stored(store):
    """``cut_at_output_limit`` survives the store's shortcut for plain rows (no usage)."""
    s = store.create_session(Path("."))
    store.append_message(s.id, Message.assistant("1. rename 2. upd",
                                                 MessageMetadata(cut_at_output_limit=True)))
    (loaded,) = store.load(s.id).conversation.messages
    assert loaded.metadata.cut_short == "cut off at the output limit"
    assert loaded.metadata.cut_at_output_limit and not loaded.metadata.cancelled


def test_a_name_that_begins_another_sessions_id_is_refused(store, tmp_path):
    """A name is looked up before an id prefix: renaming one session to the start of another's
    id made that prefix mean the renamed one (``sessions remove PREFIX`` removed it)."""
    first = store.create_session(tmp_path, name="first")
    second = store.create_session(tmp_path, name="second")
    prefix = second.id[:len(second.id) - 2]
    if first.id.startswith(prefix):  # (same second: both ids share it; use what is second's)
        prefix = second.id
    with pytest.raises(SessionNameTaken, match="(begins|is) the id of another session"):
        store.rename(first.id, prefix)  # (the whole id when both were made in one second)
    store.rename(second.id, "notes-" + first.id)  # (an id inside a name hides no prefix)
    store.rename(first.id, "50%_done")  # (LIKE's wildcards are matched as themselves)
    assert store.load(first.id).name == "50%_done"
