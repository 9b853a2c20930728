"""A long batch of counts is shared: the worker counts part of it while this process counts the rest.

What a user would notice: the stored token counts of a compaction (and every figure made from
them) are those of an in-process count, whatever happens to the worker mid-batch (killed, gone,
a reply that is not one) and after a Ctrl-C in the middle of a count; no process is left
behind.
"""

from __future__ import annotations

import marshal
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import tiktoken
from worker_support import gone, run_alone, skip_unless_alone, store_sessions

from goosectx import encoder_pipe, encoder_worker, token_batch
from goosectx.conversation import Message, TextContent, ToolRequest, ToolResponse
from goosectx.encoding import _CharEstimate
from goosectx.message_text import message_text_for_count
from goosectx.tokens import TokenCounter

MODEL = "openai/gpt-4o-mini"
TEXTS = [
    "hello world",
    "Grüße aus Köln — 東京都の天気は晴れ 🌤️; emoji 👩‍👩‍👧‍👦 and RTL שלום",
    "def f(x):\n    return x * 2\n" * 400,
    "a" * 20_000,
    "<|endoftext|> special tokens count as text",
    "0123456789" * 1500,
    "Zażółć gęślą jaźń. " * 900,
    "",
] * 4

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the worker needs os.fork")


@pytest.fixture(autouse=True)
def _single_threaded(request: pytest.FixtureRequest) -> None:
    """Run in a process with no other thread, or by the test below (worker_support)."""
    skip_unless_alone(request)


def test_the_worker_tests_pass_in_a_process_of_their_own() -> None:
    run_alone(__file__)


Hook = dict[str, Any]


@pytest.fixture
def encoded_by(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Hook]:
    """Every batch shared, a few texts a trip; the pid of each encode call, in the log file.

    ``hook["here"]`` / ``hook["there"]``: called at each encode in this process / the worker
    (the worker's is the one set when it forked).
    """
    monkeypatch.setattr(encoder_worker, "SPLIT_CHARS", 1)
    monkeypatch.setattr(encoder_worker, "LOAD_HERE_CHARS", 1)
    monkeypatch.setattr(encoder_worker, "TRIP_CHARS", 40_000)
    monkeypatch.setattr(token_batch, "thread_count", lambda: 2)  # a CPU idle, whatever the load
    log = tmp_path / "encoded-by"
    hook: Hook = {"log": log, "here": None, "there": None, "parent": os.getpid()}
    real = tiktoken.Encoding.encode

    def spy(self: tiktoken.Encoding, text: str, **kwargs: Any) -> list[int]:
        with log.open("a") as fh:
            fh.write(f"{os.getpid()}\n")
        call = hook["here"] if os.getpid() == hook["parent"] else hook["there"]
        if call is not None:
            call()
        return real(self, text, **kwargs)

    monkeypatch.setattr(tiktoken.Encoding, "encode", spy)  # the worker forks with it
    yield hook
    encoder_worker.stop()


def _start() -> int:
    encoder_worker.start(MODEL)
    remote = encoder_worker.encoder_for(TokenCounter(MODEL).encoding)
    assert remote is not None and remote._pid is not None, "the worker did not start"
    return remote._pid


def _pids(hook: Hook) -> set[int]:
    log: Path = hook["log"]
    pids = {int(line) for line in log.read_text().split()} if log.exists() else set()
    log.unlink(missing_ok=True)
    return pids


def _in_process(texts: list[str]) -> list[int]:
    encoder_worker.stop()
    counter = TokenCounter(MODEL)
    assert not counter.batches
    return [counter.count_text(t) for t in texts]


def test_a_batch_shared_by_both_processes_gets_the_counts_of_one_process(
        encoded_by: Hook) -> None:
    worker = _start()
    got = TokenCounter(MODEL).count_texts(TEXTS)
    assert _pids(encoded_by) == {worker, os.getpid()}  # both counted part of it
    assert got == _in_process(TEXTS)
    assert len(set(got)) > 5  # the texts differ in count, so an order mix-up would show
    assert gone(worker)


def test_on_a_busy_machine_the_worker_counts_each_batch_whole(
        encoded_by: Hook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_batch, "thread_count", lambda: 1)  # no CPU left idle by others
    worker = _start()
    got = TokenCounter(MODEL).count_texts(TEXTS)
    assert _pids(encoded_by) == {worker}  # this process waited: no turns taken with it
    assert got == _in_process(TEXTS)


@pytest.mark.parametrize("history_chars", ["under", "over"])
def test_this_process_loads_an_encoder_only_for_a_history_long_enough_to_pay_for_it(
        encoded_by: Hook, monkeypatch: pytest.MonkeyPatch, history_chars: str) -> None:
    from goosectx import tokens

    history = _history()
    chars = sum(len(message_text_for_count(m)) for m in history)
    monkeypatch.setattr(tokens, "COUNT_SLICE_TEXTS", 20)  # each slice alone is under the mark
    monkeypatch.setattr(encoder_worker, "LOAD_HERE_CHARS",
                        chars + 1 if history_chars == "under" else chars - 1)
    worker = _start()
    counter = TokenCounter(MODEL)
    counter.count_uncounted(history)
    fresh = counter.take_fresh()
    # over: both counted (the slices after the first, announced with it, were shared)
    assert _pids(encoded_by) == ({worker} if history_chars == "under" else {worker, os.getpid()})
    encoder_worker.stop()
    here = TokenCounter(MODEL)
    here.count_uncounted(history)
    assert fresh == here.take_fresh()


def test_a_batch_is_not_shared_when_this_process_could_not_load_the_encoding(
        encoded_by: Hook, monkeypatch: pytest.MonkeyPatch) -> None:
    real = encoder_worker.get_encoder

    def get_encoder(model: str | None = None) -> Any:
        if os.getpid() == encoded_by["parent"]:  # here: no tiktoken, the chars ÷ 4 estimate
            return _CharEstimate()
        return real(model)

    monkeypatch.setattr(encoder_worker, "get_encoder", get_encoder)
    worker = _start()
    got = TokenCounter(MODEL).count_texts(TEXTS)
    assert _pids(encoded_by) == {worker}
    assert got == _in_process(TEXTS)


@pytest.mark.parametrize("how", ["killed as this process counts its part",
                                 "exits in the middle of its part"])
def test_a_worker_that_dies_mid_batch_changes_no_count(encoded_by: Hook, how: str) -> None:
    worker_encodes: list[None] = []

    def exit_at_its_third_encode() -> None:  # its first two: the two texts before the batch
        worker_encodes.append(None)
        if len(worker_encodes) == 3:
            os._exit(3)

    if how.startswith("exits"):
        encoded_by["there"] = exit_at_its_third_encode
    worker = _start()
    counter = TokenCounter(MODEL)
    counter.count_texts(TEXTS[:2])  # the worker is up, and this process has its encoder
    assert _pids(encoded_by) == {worker}

    def kill_once() -> None:
        encoded_by["here"] = None
        os.kill(worker, signal.SIGKILL)

    if how.startswith("killed"):
        encoded_by["here"] = kill_once
    got = counter.count_texts(TEXTS), counter.count_text(TEXTS[2])
    assert encoded_by["here"] is None  # this process counted part of the batch
    assert gone(worker)
    assert got == (_in_process(TEXTS), _in_process(TEXTS[2:3])[0])


@pytest.mark.parametrize("reply", [
    marshal.dumps(["1", "2"]),                    # not counts
    marshal.dumps(([1, 2], 0.1)),                 # counts of another batch
    marshal.dumps((list(range(100)), "fast")),    # no seconds
    b"\x00 not marshal at all",
], ids=["strings", "another length", "no seconds", "not marshal"])
def test_a_worker_that_replies_garbage_changes_no_count(
        encoded_by: Hook, monkeypatch: pytest.MonkeyPatch, reply: bytes) -> None:
    real_write = encoder_pipe.write_frame
    written: list[bytes] = []

    def write(fd: int, data: bytes, timeout: float | None = None) -> None:
        if os.getpid() != encoded_by["parent"]:  # the worker: its first frame says it is ready
            written.append(data)
            data = data if len(written) == 1 else reply
        real_write(fd, data, timeout)

    monkeypatch.setattr(encoder_pipe, "write_frame", write)
    worker = _start()
    got = TokenCounter(MODEL).count_texts(TEXTS)
    assert gone(worker)
    assert got == _in_process(TEXTS)


def test_ctrl_c_mid_batch_then_another_count_gets_right_figures(encoded_by: Hook) -> None:
    worker = _start()
    counter = TokenCounter(MODEL)
    counter.count_texts(TEXTS[:2])

    def interrupt() -> None:
        encoded_by["here"] = None
        raise KeyboardInterrupt

    encoded_by["here"] = interrupt  # as this process counts its part, the worker's out
    with pytest.raises(KeyboardInterrupt):
        counter.count_texts(TEXTS)
    assert gone(worker)  # its reply, still to come, can never be read as another's
    again = list(reversed(TEXTS))
    assert (counter.count_texts(again), counter.count_text(TEXTS[3])) == (
        _in_process(again), _in_process(TEXTS[3:4])[0])


def test_ctrl_c_as_a_slice_is_settled_while_the_next_is_counted_then_right_figures(
        encoded_by: Hook, monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx import token_first_need, tokens

    monkeypatch.setattr(tokens, "COUNT_SLICE_TEXTS", 20)
    settled: list[str] = []

    def interrupt_the_first(where: str) -> None:  # the end of settling the first slice
        settled.append(where)
        if len(settled) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(token_first_need, "pause_point", interrupt_the_first)
    worker = _start()
    counter = TokenCounter(MODEL)
    history = _history()
    with pytest.raises(KeyboardInterrupt):
        counter.count_uncounted(history)
    assert _pids(encoded_by) == {worker, os.getpid()}  # the second slice was out, shared
    assert gone(worker)  # its reply, still to come, can never be read as another's
    made = counter.take_fresh()
    assert made and len(made) < len(history)
    again = list(reversed(TEXTS))
    got = counter.count_texts(again)
    counter.count_uncounted(history)  # the rest, in-process now
    made.update(counter.take_fresh())
    here = TokenCounter(MODEL)
    here._loaded = encoder_worker.get_encoder(MODEL)
    here.count_uncounted(history)
    assert got == _in_process(again) and made == here.take_fresh()


def test_ctrl_c_while_a_reply_is_awaited_then_another_count_gets_right_figures() -> None:
    worker = _start()
    counter = TokenCounter(MODEL)
    counter.count_text("ready")
    os.kill(worker, signal.SIGSTOP)  # the request stays out until the interrupt

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            counter.count_text(TEXTS[2])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        try:
            os.kill(worker, signal.SIGCONT)  # were it alive, it would answer now
        except ProcessLookupError:
            pass
    got = counter.count_text(TEXTS[3]), counter.count_texts(TEXTS[:3])
    encoder_worker.stop()
    assert gone(worker)
    assert got == (_in_process(TEXTS[3:4])[0], _in_process(TEXTS[:3]))


def _history() -> list[Message]:
    messages: list[Message] = []
    for i in range(40):
        text = TEXTS[i % len(TEXTS)]
        messages.append(Message.user(f"request {i}: {text[: 200 * (i % 7)]}"))
        call = ToolRequest(f"c{i}", "shell", {"command": f"cat file_{i}.txt"})
        messages.append(Message("assistant", (TextContent(f"Looking. {text[:300]}"), call)))
        messages.append(Message("user", (ToolResponse(f"c{i}", text + f" {i}"),)))
    return messages


def test_compact_stores_the_counts_of_an_in_process_count_when_batches_are_shared(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        encoded_by: Hook) -> None:
    from cli_support import cli

    from goosectx.config import load_settings
    from goosectx.store import SessionStore

    store_sessions(monkeypatch, ("shared", "here"), _history, MODEL)
    pids: list[int] = []
    real_start = encoder_worker.start

    def start(model: str | None) -> None:
        real_start(model)
        remote = encoder_worker.encoder_for(TokenCounter(model).encoding)
        assert remote is not None and remote._pid is not None, "the worker did not start"
        pids.append(remote._pid)

    monkeypatch.setattr(encoder_worker, "start", start)
    cli(capsys, "compact", "shared", "--strategy", "extractive")
    assert gone(pids[0])
    assert _pids(encoded_by) >= {pids[0], os.getpid()}  # both processes counted
    monkeypatch.setattr(encoder_worker, "start", lambda model: None)
    cli(capsys, "compact", "here", "--strategy", "extractive")
    store = SessionStore(load_settings().data_dir)
    try:
        stored = []
        for name in ("shared", "here"):
            session = store.load(store.resolve(name))
            stored.append([session.token_counts.get(m.id) for m in session.conversation.messages])
    finally:
        store.close()
    assert stored[0] == stored[1]
    assert sum(c is not None for c in stored[0]) >= len(_history())  # every message counted
