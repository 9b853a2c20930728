"""The facts scan's state kept between processes (migration 11, ``compaction/scan_state.py``).

A dry run keeps the state its scan of the agent view reached; the next compaction of a view
that starts with the same messages scans only the messages after them, with the same outcome.
What the tests observe: the messages the scan meets (``gather.with_pairs_positioned``), the
printed plan, the stored session after a real compaction, and the ``scan_state`` row.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest
from cli_support import cli

from goosectx.compaction import gather, scan_state
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.store import SessionStore

TURNS = 60


def _session(home: Path, work: Path) -> str:
    """A long session whose facts have every kind: files, errors, constraints, commands."""
    store = SessionStore(home)
    session = store.create_session(work, name="long")
    for i in range(TURNS):
        rule = " You must keep lines under 80 columns." if i % 7 == 0 else ""
        store.append_message(session.id, Message.user(f"step {i}: write part {i}.{rule}"))
        calls = (ToolRequest(f"w{i}", "shell", {"command": f"echo {i} > src/part{i % 9}.py"}),
                 ToolRequest(f"t{i}", "shell", {"command": "pytest -q tests"}))
        store.append_message(session.id, Message("assistant", (TextContent(f"Doing {i}."),
                                                                *calls)))
        failing = i % 5 == 2
        test_out = ("E   AssertionError: part broke\n[exit code: 1]" if failing
                    else "3 passed\n[exit code: 0]")
        store.append_message(session.id, Message("user", (
            ToolResponse(f"w{i}", "[exit code: 0]"),
            ToolResponse(f"t{i}", test_out, is_error=failing))))
        store.append_message(session.id, Message("assistant", (TextContent(
            f"Part {i} is written. Next I will write part {i + 1}."),)))
    store.close()
    return session.id


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many messages each facts scan (``gather_facts``) met, in order."""
    counts: list[int] = []
    real = gather.with_pairs_positioned

    def counting(messages: Sequence[Message], start: int = 0) -> Iterator[tuple[int, Message]]:
        counts.append(0)
        for item in real(messages, start):
            counts[-1] += 1
            yield item

    monkeypatch.setattr(gather, "with_pairs_positioned", counting)
    return counts


@pytest.fixture
def long_session(isolated_env: dict[str, Path], work: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session in a data dir, with a small context limit (a head and a tail); its home."""
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "4000")
    _session(isolated_env["home"], work)
    return isolated_env["home"]


def _rows(home: Path, sql: str, args: Iterable[object] = ()) -> list[tuple[object, ...]]:
    with sqlite3.connect(home / "sessions.db") as conn:
        return conn.execute(sql, tuple(args)).fetchall()


def _write(home: Path, sql: str, args: Iterable[object] = ()) -> None:
    conn = sqlite3.connect(home / "sessions.db")
    try:
        with conn:
            conn.execute(sql, tuple(args))
    finally:
        conn.close()


def _dry_run(capsys: pytest.CaptureFixture[str]) -> str:
    out, _ = cli(capsys, "compact", "long", "--dry-run", "--strategy", "extractive", "--json")
    return out


def _view_size(home: Path) -> int:
    store = SessionStore(home)
    try:
        return len(store.load(store.resolve("long")).conversation.agent_messages())
    finally:
        store.close()


def test_a_second_process_resumes_the_kept_state(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    view = _view_size(long_session)
    first = _dry_run(capsys)
    assert max(scanned) == view  # the first process scans the whole view
    assert _rows(long_session, "SELECT count(*) FROM scan_state") == [(1,)]
    scanned.clear()
    assert _dry_run(capsys) == first
    assert 0 < sum(scanned) < view // 2  # only the messages after the kept state


def test_a_session_that_grew_scans_only_what_came_since(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    _dry_run(capsys)
    store = SessionStore(long_session)
    sid = store.resolve("long")
    for i in range(6):
        store.append_message(sid, Message.user(f"one more thing {i}: never use tabs."))
        store.append_message(sid, Message("assistant", (TextContent(f"Noted {i}."),)))
    store.close()
    fresh = tmp_path / "fresh"  # the same session without the state: the outcome to match
    shutil.copytree(long_session, fresh)
    _write(fresh, "DELETE FROM scan_state")
    scanned.clear()
    grown = _dry_run(capsys)
    assert 0 < sum(scanned) < _view_size(long_session) // 2
    assert grown == _dry_run_in(fresh, capsys)


def _dry_run_in(home: Path, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOOSECTX_HOME", str(home))
        return _dry_run(capsys)


def _hide(home: Path, sid: str, at: int) -> None:
    store = SessionStore(home)
    session = store.load(sid)
    messages = list(session.conversation.messages)
    messages[at] = messages[at].with_metadata(agent_visible=False)
    session.conversation.messages[:] = messages
    store.replace_history(sid, session.conversation)
    store.close()


def _insert(home: Path, sid: str, at: int, *, hidden: bool) -> None:
    store = SessionStore(home)
    session = store.load(sid)
    note = Message.user("step 2b: never commit generated files.")
    if hidden:
        note = note.with_metadata(agent_visible=False)
    session.conversation.messages.insert(at, note)
    store.replace_history(sid, session.conversation)  # stored between its neighbours
    store.close()


def _change(home: Path, how: str) -> None:
    sid, first_id = _rows(home, "SELECT session_id, id FROM messages ORDER BY position"
                                " LIMIT 1 OFFSET 8")[0]
    if how == "edit":  # its content replaced in place
        content = json.dumps([{"type": "text", "text": "step 2: write it in tabs only."}])
        _write(home, "UPDATE messages SET content_json=? WHERE id=?", (content, first_id))
    elif how.startswith("insert"):
        _insert(home, str(sid), 8, hidden=how == "insert hidden")
    elif how == "delete":
        store = SessionStore(home)
        store.retract_message(str(sid), str(first_id))
        store.close()
    else:
        _hide(home, str(sid), 8)


@pytest.mark.parametrize("how", ["edit", "hide", "delete", "insert", "insert hidden"])
def test_a_changed_earlier_message_makes_it_scan_again(
        how: str, long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    _dry_run(capsys)
    _change(long_session, how)
    if not how.startswith("insert"):  # an insert (as an append) leaves it: its digest differs
        assert _rows(long_session, "SELECT count(*) FROM scan_state") == [(0,)]  # dropped
    fresh = tmp_path / "fresh"
    shutil.copytree(long_session, fresh)
    scanned.clear()
    again = _dry_run(capsys)
    assert max(scanned) > _view_size(long_session) - 5  # the whole (repaired) view again
    assert again == _dry_run_in(fresh, capsys)


def test_a_new_token_count_keeps_the_state(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    _dry_run(capsys)
    _write(long_session, "UPDATE message_state SET token_count = token_count + 1")
    assert _rows(long_session, "SELECT count(*) FROM scan_state") == [(1,)]


def test_a_corrupt_state_is_ignored_and_rewritten(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    first = _dry_run(capsys)
    for junk in (b"\x00\xff not zlib", b"x\x9c\x03\x00\x00\x00\x00\x01"):  # junk, empty text
        _write(long_session, "UPDATE scan_state SET state=?", (junk,))
        scanned.clear()
        assert _dry_run(capsys) == first  # no error, the same plan
        assert max(scanned) == _view_size(long_session)  # the whole view
        (state,) = _rows(long_session, "SELECT state FROM scan_state")[0]
        assert scan_state.decode(bytes(state)) is not None  # rewritten


def test_another_version_is_ignored_and_rewritten(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = _dry_run(capsys)
    monkeypatch.setattr(scan_state, "SCAN_STATE_VERSION", scan_state.SCAN_STATE_VERSION + 1)
    scanned.clear()
    assert _dry_run(capsys) == first
    assert max(scanned) == _view_size(long_session)  # the old version's state is not used
    scanned.clear()
    assert _dry_run(capsys) == first
    assert sum(scanned) < _view_size(long_session) // 2  # the new version's is


def test_the_real_compaction_resumes_it_with_the_same_outcome(
        long_session: Path, scanned: list[int], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"  # compacted with no state kept
    shutil.copytree(long_session, fresh)
    _dry_run(capsys)
    scanned.clear()
    out, _ = cli(capsys, "compact", "long", "--strategy", "extractive", "--json")
    assert 0 < sum(scanned) < _view_size(fresh) // 2
    assert _rows(long_session, "SELECT count(*) FROM scan_state") == [(0,)]  # the head hid
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOOSECTX_HOME", str(fresh))
        fresh_out, _ = cli(capsys, "compact", "long", "--strategy", "extractive", "--json")
    assert _summary(long_session) == _summary(fresh)
    assert json.loads(out)["tokens_after"] == json.loads(fresh_out)["tokens_after"]


def _summary(home: Path) -> list[str]:
    """The text the model sees after the compaction (summary, re-sent messages, tail)."""
    store = SessionStore(home)
    try:
        session = store.load(store.resolve("long"))
    finally:
        store.close()
    return [p.text for m in session.conversation.agent_messages() for p in m.content
            if isinstance(p, TextContent)]
