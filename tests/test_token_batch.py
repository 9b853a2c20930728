"""A history counted at first need is counted on threads, with the counts of the serial count.

What a user would notice is the stored counts (and every figure made from them): they must be
the same whether the messages were counted one by one or together on a thread pool.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from goosectx import token_batch
from goosectx.conversation import (
    Attachment,
    Message,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.session import TokenCount
from goosectx.tokens import TokenCounter

VARIED_TEXTS = [
    "hello world",
    "",
    "Grüße aus Köln — 東京都の天気は晴れ 🌤️; emoji 👩‍👩‍👧‍👦 and RTL שלום",
    "def f(x):\n    return x * 2\n" * 400,          # long, cut in pieces where words start
    "a" * 20_000,                                      # a long run without a place to cut
    "Zażółć gęślą jaźń. " * 900,
    "<|endoftext|> special tokens count as text",
    "x",
    "\n\n\n",
    "0123456789" * 1500,
]


@pytest.fixture
def on_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Force the thread pool for any amount of text; the names of the threads that counted."""
    monkeypatch.setattr(token_batch, "THREAD_MIN_CHARS", 1)
    monkeypatch.setattr(token_batch, "BATCH_CHARS", 5_000)
    monkeypatch.setattr(token_batch, "thread_count", lambda: 3)
    names: list[str] = []
    real = TokenCounter.count_text

    def spy(self: TokenCounter, text: str) -> int:
        names.append(threading.current_thread().name)
        return real(self, text)

    monkeypatch.setattr(TokenCounter, "count_text", spy)
    return names


def test_texts_counted_on_threads_get_their_serial_counts_in_order(
        on_threads: list[str]) -> None:
    counter = TokenCounter("openai/gpt-4o-mini")
    texts = VARIED_TEXTS * 3
    serial = [counter.count_text(t) for t in texts]
    on_threads.clear()
    assert token_batch.count_each(counter.count_text, texts) == serial
    assert any(name.startswith("goosectx-count") for name in on_threads)  # the pool counted
    assert serial[:2] == [2, 0]  # "hello world" is 2 tokens in o200k_base; "" is none
    assert len(set(serial)) > 5  # the texts differ in count, so an order mix-up would show


def _history() -> list[Message]:
    """Messages of every kind a count reads, some of them sharing their parts."""
    messages: list[Message] = []
    for i, text in enumerate(VARIED_TEXTS * 4):
        call = ToolRequest(f"c{i}", "shell", {"command": f"cat ünïcode-{i}.txt", "n": i})
        messages.append(Message.user(f"{i}: {text}"))
        messages.append(Message("assistant", (ThinkingContent("signed " * i, "sig"),
                                              ThinkingContent("unsigned, never counted"), call)))
        messages.append(Message("user", (ToolResponse(f"c{i}", text + str(i)),)))
    attached = Attachment("file", "src/app.py", "text/x-python", text="print('hi')\n" * 50)
    messages.append(Message("user", (TextContent("see"), attached)))
    messages.append(replace(messages[0], id="same-parts-as-the-first"))
    messages.append(Message.user(""))
    return messages


def test_a_history_counted_together_on_threads_stores_the_counts_of_one_by_one(
        on_threads: list[str]) -> None:
    history = _history()
    other = {history[3].id: TokenCount(7, "cl100k_base", 1)}  # another encoding: recounted
    mine = {history[4].id: TokenCount(123, "o200k_base", len(history[4].content))}

    one_by_one = TokenCounter("openai/gpt-4o-mini", {**other, **mine})
    serial_totals = [one_by_one.count_message(m) for m in history]
    serial_fresh = one_by_one.take_fresh()
    assert not any(name.startswith("goosectx-count") for name in on_threads)

    together = TokenCounter("openai/gpt-4o-mini", {**other, **mine})
    figures = together.breakdown(system_prompt="", project_instructions="", tool_schemas=[],
                                 messages=history)
    assert any(name.startswith("goosectx-count") for name in on_threads)
    assert [together.count_message(m) for m in history] == serial_totals
    assert together.take_fresh() == serial_fresh  # what is stored: the same counts
    assert history[4].id not in serial_fresh and history[3].id in serial_fresh
    assert figures.messages + figures.attachments + figures.mentions == sum(serial_totals)


def test_a_view_whose_counts_are_stored_gets_the_figures_counted_one_by_one() -> None:
    image = Attachment("image", "cat.png", "image/png", data=b"\x89PNG", token_estimate=765)
    history = [*_history(), Message("user", (TextContent("this one"), image))]
    stored = TokenCounter("openai/gpt-4o-mini").take_fresh()
    first = TokenCounter("openai/gpt-4o-mini", stored)
    for m in history:
        first.count_message(m)
    stored.update(first.take_fresh())
    stored[history[4].id] = TokenCount(5, "o200k_base", 9)  # another number of parts: recounted
    del stored[history[7].id]  # not counted yet

    one_by_one = TokenCounter("openai/gpt-4o-mini", dict(stored))
    serial = [one_by_one.count_message(m) for m in history]
    in_one_pass = TokenCounter("openai/gpt-4o-mini", dict(stored))
    figures = in_one_pass.breakdown(system_prompt="", project_instructions="", tool_schemas=[],
                                    messages=history)
    assert in_one_pass.message_counts(history) == serial
    assert figures.messages + figures.attachments + figures.mentions == sum(serial)
    assert figures.attachments == 765  # the image, by its estimate; the file is a mention
    assert in_one_pass.take_fresh() == one_by_one.take_fresh()  # what is stored: the same


@pytest.mark.parametrize(("cpus", "load", "running", "threads"), [
    (8, 0.2, None, 8), (2, 1.0, None, 2), (2, 2.6, None, 1), (4, 3.0, None, 2),
    (16, 0.0, None, 8), (2, 9.0, None, 1),
    # the load average still up from a command that has ended: idle now, so both CPUs
    (2, 1.6, 1, 2), (4, 3.0, 2, 3),
    # busy now and over the last minute: the load average's figure stands
    (2, 2.6, 3, 1), (4, 1.0, 5, 4)])
def test_counting_takes_only_the_cpus_other_work_leaves_idle(
        cpus: int, load: float, running: int | None, threads: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_batch.os, "sched_getaffinity", lambda _pid: set(range(cpus)),
                        raising=False)
    monkeypatch.setattr(token_batch.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(token_batch, "runnable_now", lambda: running)
    assert token_batch.thread_count() == threads


def test_the_threads_runnable_now_are_read_from_the_kernel() -> None:
    if not Path("/proc/loadavg").exists():
        pytest.skip("no /proc/loadavg on this system")
    running = token_batch.runnable_now()
    assert running is not None and running >= 1  # this test's own thread is running as it reads it


def test_ctrl_c_during_a_count_on_threads_stops_the_counting(
        on_threads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_batch, "BATCH_CHARS", 1)  # a batch a text
    counted: list[str] = []

    def count(text: str) -> int:
        if text == "0":
            raise KeyboardInterrupt
        counted.append(text)
        threading.Event().wait(0.01)  # a slow text, so the pool still has batches queued
        return 1

    texts = [str(i) for i in range(200)]
    with pytest.raises(KeyboardInterrupt):
        token_batch.count_each(count, texts)
    assert len(counted) < 50  # the batches not yet started were dropped


def test_a_view_counted_again_gets_the_counts_of_the_messages_it_holds_now() -> None:
    """The breakdown and the compaction's split count the same view: the second count is the
    first's, but only while the list holds the very same messages."""
    history = _history()
    counter = TokenCounter("openai/gpt-4o-mini")
    first = counter.message_counts(history)
    again = counter.message_counts(list(history))  # another list, the same messages
    assert again == first and counter.count_messages(list(history)) == sum(first)
    again.clear()  # a caller's list is its own
    assert counter.message_counts(history) == first
    changed = [*history[:-1], Message.user("a last message other than the empty one " * 3)]
    counts = counter.message_counts(changed)
    assert counts[-1] == TokenCounter("openai/gpt-4o-mini").count_message(changed[-1])
    assert counts[-1] != first[-1] and counts[:-1] == first[:-1]
    assert counter.count_messages(history) == sum(first)
