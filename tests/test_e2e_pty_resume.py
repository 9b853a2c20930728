"""End to end: resuming a long session in a pseudo-terminal (the prompt before the load).

A session of more than ``BACKGROUND_FROM`` messages opens with its prompt, then draws its
tail above it once the messages are loaded. What a user notices: the tail and the
"earlier messages" line appear, a prompt typed at once is answered with the whole history
sent to the model, and the session keeps every message.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest
from fakeserver import FakeServer

from goosectx.cli.resume_load import BACKGROUND_FROM
from goosectx.conversation import Conversation, Message
from goosectx.session import Session, new_session_id
from goosectx.store import SessionStore

pexpect = pytest.importorskip("pexpect")

TIMEOUT_S = 90
TURNS = BACKGROUND_FROM // 2 + 50  # two messages a turn: past the threshold


def _env(tmp_path: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOOSE_") and not k.endswith(("_API_KEY", "_API_BASE", "_BASE_URL"))}
    (tmp_path / "no-config.toml").touch()
    env.update(GOOSECTX_HOME=str(tmp_path / "home"),
               GOOSECTX_CONFIG=str(tmp_path / "no-config.toml"), GOOSE_MODEL="openai/gpt-4o-mini",
               OPENAI_API_BASE=base_url, OPENAI_API_KEY="sk-test-dummy",
               PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="110", LINES="40")
    env.pop("NO_COLOR", None)
    return env


def _long_session(home: Path, work: Path) -> int:
    messages = []
    for i in range(TURNS):
        messages += [Message.user(f"old question {i}"), Message.assistant(f"old answer {i}")]
    store = SessionStore(home)
    try:
        now = messages[-1].created
        store.save_new_session(Session(new_session_id(now), "long", work.resolve(),
                                       "openai/gpt-4o-mini", now, now, Conversation(messages)))
    finally:
        store.close()
    return len(messages)


@pytest.mark.slow
def test_a_long_session_resumes_with_its_tail_and_its_whole_history(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    stored = _long_session(tmp_path / "home", work)
    with FakeServer([{"text": "fresh answer"}]) as server:
        env = _env(tmp_path, server.base_url)
        child = pexpect.spawn("goosectx", ["session", "--resume", "long"], cwd=str(work),
                              env=env, dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
        try:
            child.expect("❯")
            child.send("a new question")  # typed at once, sent after the tail is drawn
            child.expect(f"old answer {TURNS - 1}")  # the tail, drawn once loaded
            child.expect(f"{stored - 4:,} earlier messages · /history user to see them")
            child.expect("a new question")  # the prompt drawn again, the typed text kept
            child.send("\r")
            child.expect("fresh answer")
            child.expect("❯")
            child.send("/exit\r")
            child.expect("resume with: goosectx --resume long")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0, child.before
        sent = server.requests[0]["messages"]
    texts = [m.get("content") for m in sent]
    assert "old question 0" in str(texts[:3])  # the whole history went to the model
    assert sum(1 for m in sent if m["role"] in ("user", "assistant")) == stored + 1

    store = SessionStore(tmp_path / "home")
    try:
        session = store.load(store.resolve("long"))
    finally:
        store.close()
    texts = [m.text for m in session.conversation.messages]
    assert len(texts) == stored + 2 and texts[-2:] == ["a new question", "fresh answer"]


@pytest.mark.slow
def test_keys_typed_while_the_tail_is_drawn_are_not_lost(tmp_path: Path) -> None:
    # Drawing the tail must not switch the terminal out of raw mode: there, Ctrl-D was
    # swallowed and Enter arrived as a newline that does not send (seen on a busy machine).
    work = tmp_path / "work"
    work.mkdir()
    _long_session(tmp_path / "home", work)
    for _ in range(3):
        child = pexpect.spawn("goosectx", ["session", "--resume", "long"], cwd=str(work),
                              env=_env(tmp_path, "http://127.0.0.1:9/v1"), dimensions=(40, 110),
                              encoding="utf-8", timeout=TIMEOUT_S)
        try:
            seen: set[int] = set()
            while len(seen) < 2:
                seen.add(child.expect(["❯", "earlier messages"]))
            child.sendcontrol("d")  # at once, maybe while the tail is still being drawn
            child.expect("resume with: goosectx --resume long", timeout=30)
            child.expect(pexpect.EOF, timeout=30)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0


@pytest.mark.slow
def test_a_long_session_that_cannot_be_loaded_ends_with_one_line(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "home"
    _long_session(home, work)
    import sqlite3

    conn = sqlite3.connect(home / "sessions.db")
    conn.execute("UPDATE messages SET content_json='not json' WHERE rowid = (SELECT max(rowid)"
                 " FROM messages)")
    conn.commit()
    conn.close()
    child = pexpect.spawn("goosectx", ["session", "--resume", "long"], cwd=str(work),
                          env=_env(tmp_path, "http://127.0.0.1:9/v1"), dimensions=(40, 110),
                          encoding="utf-8", timeout=TIMEOUT_S)
    try:
        child.expect(r"goosectx: error: [^\r\n]*")
        line = child.after
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus != 0
    assert "Traceback" not in child.before
    assert "message" in line.lower() or "session" in line.lower(), line


@pytest.mark.slow
def test_exit_while_the_session_still_loads_leaves_at_once(tmp_path: Path) -> None:
    # /exit waited for the whole load (1.2-1.7 s at 100k messages; Ctrl-D took 14 ms): the
    # load is held here (test hook) until the marker goes, so only an /exit that does not wait
    # for it ends the REPL
    work = tmp_path / "work"
    work.mkdir()
    _long_session(tmp_path / "home", work)
    marker = tmp_path / "load-paused"
    env = {**_env(tmp_path, "http://127.0.0.1:9/v1"),
           "GOOSECTX_TEST_PAUSE_AT": "resume:loading", "GOOSECTX_TEST_PAUSE_FILE": str(marker)}
    child = pexpect.spawn("goosectx", ["session", "--resume", "long"], cwd=str(work), env=env,
                          dimensions=(40, 110), encoding="utf-8", timeout=TIMEOUT_S)
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect("❯")
        deadline = time.monotonic() + TIMEOUT_S
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists()  # the load started and is held
        child.send("/exit\r")
        child.expect("resume with: goosectx --resume long", timeout=30)
        child.expect(pexpect.EOF, timeout=30)
        assert marker.exists()  # still held: /exit did not wait for it
        assert "loading the session's" not in seen.getvalue()
    finally:
        marker.unlink(missing_ok=True)
        child.close(force=True)
    assert child.exitstatus == 0
    store = SessionStore(tmp_path / "home")
    try:  # every message still there
        assert len(store.load(store.resolve("long")).conversation.messages) == 2 * TURNS
    finally:
        store.close()
