"""Leaving the REPL while an uncounted session's history is still being counted.

A resumed session whose token counts were never stored (an imported or old one) is counted
on the REPL's start-up thread, for the context meter. ``/exit`` at that moment must not wait
for the rest of the count: the counts already made are stored, and the next process counts
only the messages that were not counted yet (never history counted before).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from goosectx.conversation import Conversation, Message
from goosectx.session import Session, new_session_id
from goosectx.store import SessionStore
from goosectx.tokens import COUNT_SLICE_TEXTS, TokenCounter

pexpect = pytest.importorskip("pexpect")

TIMEOUT_S = 90
MESSAGES = 2 * COUNT_SLICE_TEXTS + 400  # three slices: the exit comes after the first


def _env(tmp_path: Path, pause_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GOOSE_", "GOOSECTX_TEST_"))
           and not k.endswith(("_API_KEY", "_API_BASE", "_BASE_URL"))}
    (tmp_path / "no-config.toml").touch()
    env.update(GOOSECTX_HOME=str(tmp_path / "home"),
               GOOSECTX_CONFIG=str(tmp_path / "no-config.toml"), GOOSE_MODEL="openai/gpt-4o-mini",
               OPENAI_API_BASE="http://127.0.0.1:9/v1", OPENAI_API_KEY="sk-test-dummy",
               PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="110", LINES="40",
               GOOSECTX_TEST_PAUSE_AT="count-slice", GOOSECTX_TEST_PAUSE_FILE=str(pause_file))
    env.pop("NO_COLOR", None)
    return env


def _uncounted_session(home: Path, work: Path) -> list[str]:
    messages = []
    for i in range(MESSAGES // 2):
        messages += [Message.user(f"old question {i}"), Message.assistant(f"old answer {i}")]
    store = SessionStore(home)
    try:
        now = messages[-1].created
        store.save_new_session(Session(new_session_id(now), "old", work.resolve(),
                                       "openai/gpt-4o-mini", now, now, Conversation(messages)))
    finally:
        store.close()
    return [m.id for m in messages]


def _stored(home: Path) -> Session:
    store = SessionStore(home)
    try:
        return store.load(store.resolve("old"))
    finally:
        store.close()


@pytest.mark.slow
def test_exit_while_the_history_is_counted_keeps_the_counts_made_and_does_not_wait(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted_texts: list[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    ids = _uncounted_session(tmp_path / "home", work)
    pause_file = tmp_path / "paused"
    child = pexpect.spawn("goosectx", ["--resume", "old"], cwd=str(work),
                          env=_env(tmp_path, pause_file), dimensions=(40, 110),
                          encoding="utf-8", timeout=TIMEOUT_S)
    try:
        child.expect("❯")
        deadline = time.monotonic() + TIMEOUT_S
        while not pause_file.exists():  # the counter has made its first slice of counts
            assert time.monotonic() < deadline, "the history was never counted"
            time.sleep(0.05)
        child.send("/exit\r")
        sent = time.monotonic()
        child.expect("resume with: goosectx --resume old")
        child.expect(pexpect.EOF, timeout=20)  # the counter stays paused (up to 60 s)
        gone_after = time.monotonic() - sent
    finally:
        child.close(force=True)
        pause_file.unlink(missing_ok=True)
    assert child.exitstatus == 0, child.before
    assert gone_after < 15, f"/exit waited {gone_after:.1f} s for the counter"

    session = _stored(tmp_path / "home")
    assert len(set(ids) & set(session.token_counts)) == COUNT_SLICE_TEXTS  # made before exit

    counted = counted_texts
    counted.clear()  # what this process counts from here on
    counter = TokenCounter("openai/gpt-4o-mini", session.token_counts)
    counter.message_counts(session.conversation.messages)
    assert len(counted) == MESSAGES - COUNT_SLICE_TEXTS  # the next process counts the rest only
    assert set(counter.take_fresh()) == set(ids) - set(_stored(tmp_path / "home").token_counts)
