"""Counting things in the CLI's messages: :func:`plural`.

Apart from :mod:`goosectx.cli.folding` (which re-exports it) so that a command printing a
count imports nothing of the transcript's drawing.
"""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 message``, ``12 messages``, ``1,200 tool calls`` (``nouns``: an irregular plural)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"
