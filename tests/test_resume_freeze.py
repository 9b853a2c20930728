"""A long resumed session is kept out of the cycle collector's walks (cli/common.load_to_resume).

The first full collection after loading 100k messages walked them all (0.17 s) at a random
moment of the REPL — the bench's "last chunk → prompt" at 100k; a short session is left as is.
After such a load no full collection runs by itself: each walked what the REPL made and kept
since (litellm, counts, the next request) — a dozen 0.2-0.7 s stalls at 100k messages.
"""

from __future__ import annotations

import gc
import io
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from goosectx.cli.common import load_to_resume
from goosectx.cli.driver import EventSource, TurnDriver
from goosectx.cli.render import TranscriptRenderer
from goosectx.collector import FREEZE_FROM
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


class _Cycle:
    """A turn's leftover in a reference cycle (litellm's logging object and its chunks)."""

    def __init__(self) -> None:
        self.me = self


def _turn_leaving_a_cycle(left: list[weakref.ref[_Cycle]]) -> EventSource:
    def turn(cancel: threading.Event) -> Iterator[Any]:
        cycle = _Cycle()
        left.append(weakref.ref(cycle))
        for _ in range(3):  # old enough to sit in the oldest generation, as after a turn
            gc.collect(1)
        return iter(())
    return turn


def test_a_long_resumed_session_frees_what_each_turn_left_in_cycles(tmp_path: Path,
                                                                     work: Path) -> None:
    """A REPL on a long session grew ~0.3 MB a turn: no full collection ever freed the turn's
    cycles. Each turn's are freed when it ends (a turn that imported modules only freezes)."""
    store = SessionStore(tmp_path / "d")
    try:
        load_to_resume(store, _saved(store, work, FREEZE_FROM))
    finally:
        store.close()
    driver = TurnDriver(TranscriptRenderer(Console(file=io.StringIO())), on_event=print,
                        ask=lambda *a: "deny", on_failure=lambda e: None, quiet_terminal=False)
    left: list[weakref.ref[_Cycle]] = []
    for _ in range(4):
        driver.run(_turn_leaving_a_cycle(left))
    # the first turn's end froze what it left (no walk of what its imports made); every
    # later turn's cycle is gone once that turn ended
    assert [ref() is None for ref in left] == [False, True, True, True]
