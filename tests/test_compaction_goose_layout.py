"""``keep_recent_ratio = 0`` (goose's layout: no tail) keeps to the budget.

In that branch of :func:`goosectx.compaction.tail.split` the earlier requests re-sent were
given the whole room although the newest request's copy already took part of it: the kept
messages came to ~2,950 tokens in a 2,500-token room (and 2,300 over a 2,000-token ceiling).
"""

from __future__ import annotations

from compaction_support import chat, words

from goosectx.compaction.tail import split
from goosectx.conversation import Message


def test_goose_layout_keeps_the_request_and_the_resent_ones_within_the_room() -> None:
    messages = [*chat(6, 300), Message.user("newest: " + words(1500))]

    def measure(m: Message) -> int:
        return len(m.text) // 4 or 1

    for room in (2_500, 1_000):  # the request fits the room; it needs the ceiling
        ceiling = 2 * room
        out = split(messages, measure=measure, trigger="auto", tail_tokens=0,
                    user_tokens=8_000, room_tokens=room, ceiling_room_tokens=ceiling)
        assert out.request is not None and out.request.text == messages[-1].text
        assert len(out.resent) > 1  # some earlier requests still re-sent, under a heading
        kept = measure(out.request) + sum(measure(m) for m in out.resent)
        assert kept <= (room if measure(out.request) <= room else ceiling), room
