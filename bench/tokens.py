"""Token counting: a cold count of a 1,000-message conversation against raw tiktoken on the
same text, and the recount after one appended message.

The cold count is what :class:`goosectx.tokens.TokenCounter` does on a fresh counter
(flatten every agent-visible message, encode, add per-message overhead); the baseline encodes
each message's counted text with ``encode_ordinary`` and nothing else. Throughput = tokens
per second; the ratio is ours ÷ raw. The recount is what the loop pays before each model
call once the cache is warm: ``agent_messages()`` plus the cached per-message sum.
"""

from __future__ import annotations

import statistics
import sys
import time

from figures import Figure, make_messages, median_time_s, quick_arg

MESSAGES = 1000
AVG_CHARS = 500
MIN_THROUGHPUT_RATIO = 0.7
RECOUNT_MAX_MS = 1.0


def run(quick: bool = False) -> list[Figure]:
    """Measure cold counting throughput and the warm recount."""
    from goosectx.conversation import Conversation, Message
    from goosectx.tokens import TokenCounter, get_encoder, message_text_for_count

    repeat = 3 if quick else 7
    messages = make_messages(MESSAGES, AVG_CHARS)
    encoder = get_encoder(None)
    texts = [message_text_for_count(m) for m in messages]
    raw_tokens = sum(len(encoder.encode_ordinary(t)) for t in texts)  # type: ignore[attr-defined]

    def raw() -> None:
        for t in texts:
            encoder.encode_ordinary(t)  # type: ignore[attr-defined]

    def cold() -> None:
        counter = TokenCounter(None)
        counter.count_messages(Conversation(list(messages)).agent_messages())

    # Interleave so both see the same machine state.
    raw_s, cold_s = [], []
    raw()
    cold()
    for _ in range(repeat):
        raw_s.append(median_time_s(raw, repeat=1, warmup=0))
        cold_s.append(median_time_s(cold, repeat=1, warmup=0))
    raw_tps = raw_tokens / statistics.median(raw_s)
    cold_tps = raw_tokens / statistics.median(cold_s)
    throughput = Figure(
        f"cold count, {MESSAGES:,} msgs (tokens/s)", cold_tps / 1e6, "Mtok/s",
        "raw tiktoken encode, same text", raw_tps / 1e6,
        f"≥ {MIN_THROUGHPUT_RATIO}× baseline", None,
        note=f"{raw_tokens:,} tokens; cold count median {statistics.median(cold_s) * 1e3:.1f} ms",
    )
    throughput.passed = (throughput.ratio or 0) >= MIN_THROUGHPUT_RATIO

    conversation = Conversation(list(messages))
    counter = TokenCounter(None)
    counter.count_messages(conversation.agent_messages())
    recounts = []
    for i in range(50 if quick else 200):
        conversation.append(Message.user(f"one more question, number {i}: why?"))
        start = time.perf_counter()
        counter.count_messages(conversation.agent_messages())
        recounts.append(time.perf_counter() - start)
    recount_ms = statistics.median(recounts) * 1e3
    recount = Figure(
        f"recount after 1 appended msg @ {MESSAGES:,}", recount_ms, "ms",
        f"cold count of {MESSAGES:,} msgs", statistics.median(cold_s) * 1e3,
        f"≤ {RECOUNT_MAX_MS:g} ms", recount_ms <= RECOUNT_MAX_MS,
    )
    return [throughput, recount]


if __name__ == "__main__":
    from run import print_table

    sys.exit(print_table(run(quick_arg())))
