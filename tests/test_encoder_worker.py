"""A real extractive compaction loads the encoding in a forked worker while it loads the session.

What a user would notice: the same counts (so the same summary, "tokens after" and stored
counts) with or without the worker, whatever happens to it (killed, stopped), no process
left behind, no hang, and the worker never holding the session database open.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from worker_support import gone, run_alone, skip_unless_alone, store_sessions

from goosectx import encoder_worker
from goosectx.compaction.extractive import extractive_summary
from goosectx.compaction.summary import render_markdown
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.tokens import TokenCounter

MODEL = "openai/gpt-4o-mini"
TEXTS = [
    "hello world",
    "Grüße aus Köln — 東京都の天気は晴れ 🌤️; emoji 👩‍👩‍👧‍👦 and RTL שלום",
    "def f(x):\n    return x * 2\n" * 400,
    "a" * 20_000,
    "<|endoftext|> special tokens count as text",
    "0123456789" * 1500,
]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the worker needs os.fork")


@pytest.fixture(autouse=True)
def _single_threaded(request: pytest.FixtureRequest) -> None:
    """Run in a process with no other thread, or by the test below (worker_support)."""
    skip_unless_alone(request)


def test_the_worker_tests_pass_in_a_process_of_their_own() -> None:
    run_alone(__file__)


@pytest.fixture
def worker() -> Iterator[int]:
    """A started worker's pid; stopped (and reaped) afterwards."""
    encoder_worker.start(MODEL)
    remote = encoder_worker.encoder_for(TokenCounter(MODEL).encoding)
    assert remote is not None, "the worker did not start"
    pid = remote._pid
    assert pid is not None
    yield pid
    encoder_worker.stop()
    assert encoder_worker.encoder_for(TokenCounter(MODEL).encoding) is None


def _figures(counter: TokenCounter) -> tuple[object, ...]:
    return (
        [counter.count_text(t) for t in TEXTS],
        [counter.count_text_within(t, 50) for t in TEXTS],
        counter.count_texts(TEXTS),
        counter.encoding,
    )


def _expected() -> tuple[object, ...]:
    assert encoder_worker.encoder_for(TokenCounter(MODEL).encoding) is None
    return _figures(TokenCounter(MODEL))


def test_the_worker_counts_what_this_process_counts(worker: int) -> None:
    counter = TokenCounter(MODEL)
    assert counter.batches
    got = _figures(counter)
    encoder_worker.stop()
    assert got == _expected()
    assert gone(worker)


def test_a_worker_killed_mid_run_changes_no_count_and_is_reaped(worker: int) -> None:
    counter = TokenCounter(MODEL)
    first = counter.count_text(TEXTS[2])  # the worker answered: it is up
    os.kill(worker, signal.SIGKILL)
    got = _figures(counter)  # counted in this process from here on
    assert not counter.batches or encoder_worker.encoder_for(counter.encoding) is None
    assert gone(worker)
    assert (first, got) == (_expected()[0][2], _expected())  # type: ignore[index]


def test_a_worker_that_stops_answering_is_given_up_without_a_hang(
        worker: int, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TokenCounter(MODEL)
    counter.count_text("warm up")
    monkeypatch.setattr(encoder_worker, "REPLY_TIMEOUT_S", 0.5)
    os.kill(worker, signal.SIGSTOP)
    started = time.monotonic()
    got = _figures(counter), counter.count_texts(["a long text, more than a pipe holds " * 9000])
    assert time.monotonic() - started < 20
    assert gone(worker)
    assert got == (_expected(), TokenCounter(MODEL).count_texts(
        ["a long text, more than a pipe holds " * 9000]))


def test_a_worker_stopped_before_a_long_request_is_given_up_without_a_hang(
        worker: int, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TokenCounter(MODEL)
    counter.count_text("warm up")
    monkeypatch.setattr(encoder_worker, "REPLY_TIMEOUT_S", 0.5)
    os.kill(worker, signal.SIGSTOP)
    text = "a long text, more than a pipe holds " * 9000  # the request fills the pipe
    got = counter.count_texts([text])
    assert gone(worker)
    encoder_worker.stop()
    assert got == TokenCounter(MODEL).count_texts([text])


def test_the_worker_holds_no_inherited_file_open(tmp_path: Path) -> None:
    database = tmp_path / "sessions.db"
    with database.open("wb") as held:  # open in this process when the worker forks
        encoder_worker.start(MODEL)
        remote = encoder_worker.encoder_for(TokenCounter(MODEL).encoding)
        assert remote is not None and remote._pid is not None
        try:
            TokenCounter(MODEL).count_text("ready")  # past its start-up
            targets = {os.readlink(f"/proc/{remote._pid}/fd/{fd}")
                       for fd in os.listdir(f"/proc/{remote._pid}/fd")}
        finally:
            encoder_worker.stop()
        assert held.fileno() >= 0
    assert str(database) not in targets
    assert os.devnull in targets  # its standard streams: it never prints
    assert not any(t.startswith(str(tmp_path)) for t in targets)


def _history() -> list[Message]:
    messages: list[Message] = []
    for i in range(60):
        ask = f"request {i}: please look at module_{i}.py and " + "fix the parser bug " * (i % 9 * 40)
        messages.append(Message.user(ask))
        call = ToolRequest(f"c{i}", "shell", {"command": f"pytest -k t{i}"})
        messages.append(Message("assistant", (
            TextContent("Running the tests. " * (i % 5 * 30)), call)))
        out = ("Traceback (most recent call last):\nValueError: bad token\n" * (i % 3 * 20)
               or "ok")
        messages.append(Message("user", (ToolResponse(f"c{i}", out),)))
    return messages


def test_an_extractive_summary_counted_by_the_worker_is_the_same(worker: int) -> None:
    history = _history()
    remote = TokenCounter(MODEL)
    assert remote.batches
    for budget in (3000, 600, 150):
        with_worker = render_markdown(extractive_summary(history, max_tokens=budget,
                                                         counter=remote))
        assert encoder_worker.encoder_for(remote.encoding) is not None
        local = TokenCounter(MODEL)
        local._loaded = encoder_worker.get_encoder(MODEL)  # in this process
        assert not local.batches
        assert with_worker == render_markdown(extractive_summary(
            history, max_tokens=budget, counter=local))


def test_a_count_after_the_worker_is_released_is_made_here(worker: int) -> None:
    counter = TokenCounter(MODEL)
    counter.count_text("ready")
    encoder_worker.release()  # killed, not waited for: the compaction's write comes next
    got = _figures(counter)
    encoder_worker.stop()
    assert gone(worker)
    assert got == _expected()


def test_a_batch_larger_than_one_round_trip_keeps_its_order(
        worker: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder_worker, "TRIP_CHARS", 5_000)  # several trips
    texts = TEXTS * 3
    got = TokenCounter(MODEL).count_texts(texts)
    encoder_worker.stop()
    assert got == TokenCounter(MODEL).count_texts(texts)


def test_compact_extractive_says_and_stores_the_same_with_and_without_the_worker(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from cli_support import cli

    from goosectx.config import load_settings
    from goosectx.store import SessionStore

    store_sessions(monkeypatch, ("with", "without"), _history, MODEL)
    started: list[int] = []
    real_start = encoder_worker.start

    def start(model: str | None) -> None:
        real_start(model)
        remote = encoder_worker.encoder_for(TokenCounter(model).encoding)
        started.append(remote._pid if remote is not None and remote._pid else 0)

    monkeypatch.setattr(encoder_worker, "start", start)
    with_worker, _ = cli(capsys, "compact", "with", "--strategy", "extractive", "--json")
    assert started and started[0] and gone(started[0])
    assert encoder_worker.encoder_for(TokenCounter(MODEL).encoding) is None
    monkeypatch.setattr(encoder_worker, "start", lambda model: None)
    without, _ = cli(capsys, "compact", "without", "--strategy", "extractive", "--json")
    figures = [{k: v for k, v in json.loads(out).items() if k != "session_id"}
               for out in (with_worker, without)]
    assert figures[0] == figures[1]
    store = SessionStore(load_settings().data_dir)
    try:
        views = [[(m.role, m.text) for m in store.load(store.resolve(name)).conversation
                  .agent_view()] for name in ("with", "without")]
    finally:
        store.close()
    assert any("Compacted" in text or "ummary" in text for _, text in views[0])
    assert views[0] == views[1]
