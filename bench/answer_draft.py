"""Per-chunk cost of saving an answer as it streams: constant, whatever the history (fresh19b #03).

``MessageDelta`` events of 8-character chunks go through a :class:`SessionRecorder` on a real
store, for a session of 20 stored messages and one of 20,000. The recorder's draft
(:mod:`goosectx.answer_draft`) is saved at the first chunk and then once a second; here the
clock moves 10 ms a chunk, so a save every 100 chunks (a fast model: 800 characters a second),
and the answer's ``MessageCompleted`` replaces the draft. The short history is the same-run
baseline: the ratio of the per-chunk times should stay near 1 (nothing that grows with the
history), and the answer 10 × longer shows what grows with the answer (each save writes it).

Usage: ``python bench/answer_draft.py [--quick]``
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from goosectx import answer_draft
from goosectx.events import MessageCompleted, MessageDelta
from goosectx.message import Message
from goosectx.recorder import SessionRecorder
from goosectx.store import SessionStore

CHUNK_CHARS = 8


def per_chunk_us(history: int, chunks: int) -> float:
    """Microseconds per chunk to record a ``chunks``-chunk answer after ``history`` messages."""
    with tempfile.TemporaryDirectory() as home:
        store = SessionStore(Path(home))
        try:
            session = store.create_session(Path(home), name="bench")
            for i in range(history):
                message = (Message.user(f"question {i}") if i % 2 == 0
                           else Message.assistant(f"answer {i} " * 20))
                store.append_message(session.id, message)
                session.conversation.append(message)
            recorder = SessionRecorder(store, session)
            ticks = [0.0]

            def clock() -> float:
                ticks[0] += 0.01
                return ticks[0]

            recorder._draft = answer_draft.AnswerDraft(clock)  # the bench's clock
            piece = "word " * (CHUNK_CHARS // 5) + "abc"[: CHUNK_CHARS % 5]
            start = time.perf_counter()
            for _ in range(chunks):
                recorder.record(MessageDelta(piece))
            recorder.record(MessageCompleted(Message.assistant(piece * chunks)))
            elapsed = time.perf_counter() - start
            assert store.message_count(session.id) == history + 1
        finally:
            store.close()
    return elapsed / chunks * 1e6


def main(argv: list[str]) -> int:
    chunks = 1_000 if "--quick" in argv else 5_000
    print(f"answer recorded per chunk ({CHUNK_CHARS} chars), a save every 100 chunks")
    print(f"{'answer chunks':>13} {'20 msgs µs':>11} {'20,000 msgs µs':>15} {'ratio':>6}")
    for n in (chunks, chunks * 10):
        base = per_chunk_us(20, n)
        long = per_chunk_us(20_000, n)
        print(f"{n:>13,} {base:>11.2f} {long:>15.2f} {long / base:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
