"""A long resumed session is kept out of the cycle collector's walks (cli/common.load_to_resume).

The first full collection after loading 100k messages walked them all (0.17 s) at a random
moment of the REPL — the bench's "last chunk → prompt" at 100k; a short session is left as is.
After such a load no full collection runs by itself: each walked what the REPL made and kept
since (litellm, counts, the next request) — a dozen 0.2-0.7 s stalls at 100k messages.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from goosectx.cli.collector import FREEZE_FROM
from goosectx.cli.common import load_to_resume
from goosectx.conversation import Conversation, Message
from goosectx.store import SessionStore


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def _saved(store: SessionStore, work: Path, n: int) -> str:
    session = store.create_session(work, name=f"s{n}")
    store.remove(session.id)
    session.conversation = Conversation(
        [Message.user(f"request {i}") if i % 2 == 0 else Message.assistant(f"answer {i}")
         for i in range(n)])
    return store.save_new_session(session).id


def test_a_long_resumed_session_is_not_walked_by_the_collector(tmp_path: Path, work: Path) -> None:
    store = SessionStore(tmp_path / "d")
    try:
        sid = _saved(store, work, FREEZE_FROM)
        session = load_to_resume(store, sid)
        frozen = gc.get_freeze_count()
        assert frozen >= 2 * FREEZE_FROM  # each message and its parts
        assert len(session.conversation.messages) == FREEZE_FROM
        assert gc.get_threshold()[2] >= 10**9  # no full collection comes by itself
    finally:
        store.close()


def test_a_short_resumed_session_is_left_to_the_collector(tmp_path: Path, work: Path) -> None:
    store = SessionStore(tmp_path / "d")
    thresholds = gc.get_threshold()
    try:
        load_to_resume(store, _saved(store, work, 40))
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == thresholds
    finally:
        store.close()
