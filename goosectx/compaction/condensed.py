"""Putting back the tool pairs a tool-pair note stands for: a condensed pair still gives facts.

A note (:mod:`goosectx.compaction.toolpairs`) carries in ``metadata.extra[CONDENSED_PAIRS]``
each pair's call and the telling part of its result; the scans of the compaction pipeline
(:mod:`goosectx.compaction.gather`, :mod:`goosectx.compaction.facts`) read the pairs back as
messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from goosectx.conversation import CONDENSED_PAIRS, Message, ToolRequest, ToolResponse


def with_condensed_pairs(messages: Sequence[Message]) -> Sequence[Message]:
    """``messages`` with the pairs tool-pair notes stand for put back before each note.

    A note (:mod:`.toolpairs`) carries in ``metadata.extra[CONDENSED_PAIRS]`` each pair's call
    (``id``, ``name``, ``arguments``) and the telling part of its result (``output``,
    ``is_error``): the call and the result come back as two messages, so a condensed pair
    still gives its facts. ``messages`` itself when no message carries a pair.
    """
    if not any(CONDENSED_PAIRS in m.metadata.extra for m in messages):
        return messages
    return [m for _, m in with_pairs_positioned(messages)]


def with_pairs_positioned(messages: Sequence[Message],
                          start: int = 0) -> Iterable[tuple[int, Message]]:
    """(position in ``messages``, message) with the pairs of notes put back (see above).

    A note's first restored message takes the note's position, the rest of its pairs and the
    note itself -1: the facts before a position are those of ``messages[:position]``.
    ``start``: from ``messages[start]`` on (what the whole list gives from that position).
    """
    rest = messages[start:] if start else messages
    if not any(CONDENSED_PAIRS in m.metadata.extra for m in rest):
        return enumerate(rest, start)
    out: list[tuple[int, Message]] = []
    for at, m in enumerate(rest, start):
        pairs = m.metadata.extra.get(CONDENSED_PAIRS) if m.role == "assistant" else None
        for pair in pairs if isinstance(pairs, list) else ():
            if not isinstance(pair, dict):
                continue
            call_id = str(pair.get("id") or m.id)
            arguments = pair.get("arguments")
            out += [(at, Message("assistant", (ToolRequest(
                        call_id, str(pair.get("name") or "tool"),
                        arguments if isinstance(arguments, dict) else None),))),
                    (-1, Message("user", (ToolResponse(call_id, str(pair.get("output") or ""),
                                                       bool(pair.get("is_error"))),)))]
            at = -1
        out.append((at, m))
    return out
