"""Counting a history's uncounted messages together, a slice at a time.

Part of token counting (docs/architecture.md §5): :meth:`goosectx.tokens.TokenCounter.
count_uncounted` calls it for a history counted at first need (an imported or old session).
The texts are counted together (:meth:`~goosectx.tokens.TokenCounter.count_texts`: on the
encoder worker and this process at once when there is one, else on threads when long) and
kept where the counter's own count finds them, so the counts, and what is stored, are those
of the serial count. Each slice's counts are settled (made ready to store) while the next
slice is counted, so a process that ends mid-count keeps what it made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from goosectx.conversation import Message
from goosectx.message_text import message_text_for_count
from goosectx.testhooks import pause_point

if TYPE_CHECKING:
    from goosectx.tokens import TokenCounter


def count_uncounted(counter: TokenCounter, messages: Sequence[Message], *,
                    min_messages: int, slice_texts: int) -> None:
    """Count ``messages`` not counted yet together, ``slice_texts`` texts at a time.

    Nothing happens with fewer than ``min_messages`` of them (they are counted one by one as
    they are met). Messages with a stored or cached count are left alone.
    """
    seen, cached, stored = counter._by_identity, counter._cache, counter.stored
    same = counter._by_content
    todo: dict[int, tuple[tuple[object, ...], str]] = {}  # by content identity: once each
    owners: dict[int, list[Message]] = {}
    for m in messages:
        hit, known = seen.get(m.id), stored.get(m.id)
        if hit is None or hit[0] is not m.content:
            hit = same.get(id(m.content))
        if ((hit is not None and hit[0] is m.content)
                or (known is not None and known.encoding == counter.encoding)
                or count_key(m) in cached):
            continue
        if id(m.content) in todo:
            owners[id(m.content)].append(m)
            continue
        todo[id(m.content)] = (m.content, message_text_for_count(m))
        owners[id(m.content)] = [m]
    if len(todo) < min_messages or not any(text for _, text in todo.values()):
        return
    encoding = counter.encoding
    counter.preload()  # here, not on the threads: the first count loads the encoding
    if counter.encoding != encoding:  # another encoding than named: counted one by one
        return
    items = list(todo.items())
    left = sum(len(text) for _, (_, text) in items)
    settle: Callable[[], None] | None = None
    for start in range(0, len(items), slice_texts):
        part = items[start:start + slice_texts]
        texts = [text for _, (_, text) in part]
        left -= sum(map(len, texts))
        # the slice before is settled as this one is counted (by a worker, meanwhile)
        counts = counter.count_texts(texts, then_chars=left, meanwhile=settle)
        for (key, (content, _)), raw in zip(part, counts, strict=True):
            same[key] = (content, raw)
        settle = partial(_settle, counter, [m for key, _ in part for m in owners[key]])
    if settle is not None:
        settle()


def _settle(counter: TokenCounter, messages: list[Message]) -> None:
    """Each message's count, from the slice just counted: ready to store (take_fresh)."""
    for m in messages:
        counter.count_message(m)
    pause_point("count-slice")


def count_key(message: Message) -> tuple[str, int, int]:
    """The key a message's count is cached under: its id, part count and part types.

    A copy that repair merged or split under the same id is counted again.
    """
    return (message.id, len(message.content), hash(tuple(p.type for p in message.content)))
