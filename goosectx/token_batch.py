"""Counting many texts at once: on a small thread pool when there is enough text.

Part of token counting (docs/architecture.md §5; :mod:`goosectx.tokens` calls it for the
messages of a history counted at first need). tiktoken's encoder runs without the GIL, so
threads count side by side; each text is counted by the one function the serial count calls
(:meth:`goosectx.tokens.TokenCounter.count_text`), so the figures are the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

MAX_THREADS = 8
"""Cap on the counting threads (the GIL-held share of each count limits the gain past it)."""
THREAD_MIN_CHARS = 1 << 18
"""Characters of text per thread below which a thread costs more than it saves."""
BATCH_CHARS = 1 << 17
"""About how many characters one task of the pool counts (tasks are whole texts, in order)."""


def thread_count() -> int:
    """The CPUs this process may run on (its affinity) that other work leaves idle, 1 to 8.

    Busy CPUs are read from the load average (``make -l``'s rule), less this process's own
    one: on a machine other processes keep busy, threads would only take turns, each count
    slower than alone, so counting stays on the calling thread. The load average trails by a
    minute (a command that has just ended, an import before its first compaction, keeps it
    up), so when the threads runnable at this instant say fewer CPUs are busy, they are
    believed: a wrong guess that way costs the threads some turn-taking, one the other way
    half the speed.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        busy = max(0, round(os.getloadavg()[0] - 1))
    except (AttributeError, OSError):  # no load average on this system
        busy = 0
    running = runnable_now()
    if running is not None:
        busy = min(busy, max(0, running - 1))  # less the thread asking (it is running)
    return max(1, min(MAX_THREADS, cpus - busy))


def runnable_now() -> int | None:
    """Threads runnable on the machine at this instant, the caller's included (Linux), else None.

    The fourth field of ``/proc/loadavg`` ("running/total"), what the load average averages.
    """
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return int(fh.read().split()[3].partition("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def count_each(count: Callable[[str], int], texts: Sequence[str]) -> list[int]:
    """``count(text)`` of each text, in order (``count`` must be safe to call from threads).

    With enough text (:data:`THREAD_MIN_CHARS` per thread) the texts are counted in batches
    of consecutive texts (:data:`BATCH_CHARS`) on :func:`thread_count` threads, else
    one after the other on the calling thread; the counts are the same either way. An
    exception (Ctrl-C included) stops the counting as it does on one thread.
    """
    total_chars = sum(map(len, texts))
    threads = min(thread_count(), total_chars // THREAD_MIN_CHARS, len(texts))
    if threads < 2:
        return [count(text) for text in texts]
    batches: list[Sequence[str]] = []
    start = size = 0
    for end, text in enumerate(texts, 1):
        size += len(text)
        if size >= BATCH_CHARS:
            batches.append(texts[start:end])
            start, size = end, 0
    if start < len(texts):
        batches.append(texts[start:])

    def count_batch(batch: Sequence[str]) -> list[int]:
        return [count(text) for text in batch]

    from concurrent.futures import ThreadPoolExecutor  # (here: only a batch to count needs it)

    with ThreadPoolExecutor(threads, thread_name_prefix="goosectx-count") as pool:
        # map drops the batches not started when the wait ends in an error (Ctrl-C)
        return [n for counts in pool.map(count_batch, batches) for n in counts]
