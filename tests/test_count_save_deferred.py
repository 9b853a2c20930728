"""A large batch of token counts is stored once the REPL's prompt is back (#14's last chunk row).

The first turn after resuming an uncounted history counts all of it; storing those counts (a
row each: 0.4 s of CPU and the store's writer lock at 100k messages) ran on a thread started
between the answer's last chunk and the prompt, and competed with drawing them. The REPL now
holds the batch back until its prompt is drawn; every count is still stored by the time it
exits, and a ``/resume`` stores the old session's before switching.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.repl import Repl
from goosectx.conversation import Message
from goosectx.count_saver import BULK_COUNTS, CountSaver
from goosectx.providers.scripted import ScriptedProvider
from goosectx.session import TokenCount
from goosectx.store import SessionStore


@pytest.fixture
def world(tmp_path: Path) -> Any:
    w = World(tmp_path)
    yield w
    w.store.close()


def _old_history(world: World, pairs: int) -> list[str]:
    """``pairs`` question/answer pairs stored uncounted; their ids."""
    for i in range(pairs):
        world.store.append_message(world.session.id, Message.user(f"question number {i}"))
        world.store.append_message(world.session.id, Message.assistant(f"answer number {i}"))
    return [m.id for m in world.stored().conversation.messages]


def test_the_old_historys_counts_are_stored_once_the_prompt_is_back(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    old_ids = _old_history(world, BULK_COUNTS)  # 2 × BULK_COUNTS messages, none counted
    world.provider = ScriptedProvider(model="openai/gpt-4o-mini")  # counted with tiktoken
    world.provider.add("the answer")
    prompts: list[int] = []  # one per prompt the REPL shows
    started: list[tuple[int, int]] = []  # (counts, prompts shown by then) of each batch saved
    real_read, real_save = Repl._read, CountSaver._save_in_background

    def read(repl: Repl) -> str:
        prompts.append(1)
        return real_read(repl)

    def save(self: CountSaver, counts: dict[str, TokenCount], messages: list[Message]) -> None:
        started.append((len(counts), len(prompts)))
        real_save(self, counts, messages)

    monkeypatch.setattr(Repl, "_read", read)
    monkeypatch.setattr(CountSaver, "_save_in_background", save)
    world.session = world.stored()  # the agent's session too
    out = world.run("one more" + ENTER + CTRL_D, session=world.session, resumed=True)
    assert "the answer" in out
    assert started and started[0][0] >= 2 * BULK_COUNTS  # the old history, in one batch
    assert started[0][1] == 2, "the batch's save started before the turn's prompt"
    loaded = world.stored()
    assert set(old_ids) <= set(loaded.token_counts)  # all stored: the next resume counts none


def test_a_held_batch_is_stored_when_the_saver_waits(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data")
    try:
        session = store.create_session(tmp_path, name="s")
        for i in range(BULK_COUNTS + 1):
            store.append_message(session.id, Message.user(f"message {i}"))
        session = store.load(session.id)
        counts = {m.id: TokenCount(5, "o200k_base", 1) for m in session.conversation.messages}
        saver = CountSaver(store, session)
        saver.defer_bulk = True
        fresh = [counts]
        saver.fresh_token_counts = lambda: fresh.pop() if fresh else {}
        saver.save_counts()
        assert saver.has_deferred
        assert not store.load(session.id).token_counts  # held back: nothing stored yet
        saver.save_counts(wait=True)  # as the REPL's goodbye
        assert not saver.has_deferred
        assert set(store.load(session.id).token_counts) == set(counts)
    finally:
        store.close()
