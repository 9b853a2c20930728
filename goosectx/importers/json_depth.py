"""How deep a JSON value nests, and a cheap upper bound from its text's brackets.

Part of the importers (docs/architecture.md §8; :mod:`goosectx.importers.builder` and
:mod:`goosectx.importers.json_stream` refuse a value nested deeper than :data:`MAX_NESTING`).
The walk goes level by level, so no depth reaches Python's recursion limit.
"""

from __future__ import annotations

from typing import Any

MAX_NESTING = 100
"""Deepest JSON nesting accepted (arrays and objects)."""


def nesting(value: Any) -> int:
    """How deep ``value`` nests lists and dicts (level by level: no recursion limit).

    Stops counting past :data:`MAX_NESTING`. Values are what ``json.loads`` makes (plain
    dicts and lists).
    """
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level and depth <= MAX_NESTING:
        depth += 1
        deeper: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            deeper += [c for c in children if type(c) is dict or type(c) is list]
        level = deeper
    return depth


COUNT_BRACKETS_CHARS = 4096
"""Longest JSON text whose brackets :func:`counted_brackets` counts."""


def counted_brackets(text: str | bytes, start: int = 0, end: int | None = None) -> int:
    """The opening brackets of a short ``text[start:end]``; more than :data:`MAX_NESTING` if long.

    A value nests no deeper than it has opening brackets: most JSON lines have a few, and
    counting them (in C) spares them the nesting walk. A long text is walked without counting:
    the walk's cost grows with the lists and objects, the count's with the characters (on a
    10k-message export, counting cost two thirds of the walk it could not spare).
    """
    end = len(text) if end is None else end
    if end - start > COUNT_BRACKETS_CHARS:
        return MAX_NESTING + 1
    if isinstance(text, bytes):
        return text.count(b"[", start, end) + text.count(b"{", start, end)
    return text.count("[", start, end) + text.count("{", start, end)
