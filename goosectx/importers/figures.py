"""The figures of an imported transcript: token counts and costs, checked as they are read.

Each is bounded as a goosectx export's are (:func:`goosectx.usage.read_tokens`,
:func:`goosectx.usage.read_cost_usd`), so a figure the store could not hold (``10**30``) or
that means nothing (a negative count, a NaN cost) is a one-line error naming the file, the
line or record and the field — never a traceback at save time. See docs/architecture.md §8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goosectx.importers.builder import format_error
from goosectx.usage import read_cost_usd, read_tokens


def tokens(path: Path, where: str, value: Any, name: str) -> int:
    """A token figure of the file (absent: 0), at most :data:`goosectx.usage.MAX_TOKENS`.

    Raises:
        ImportFormatError: not a whole number in range, naming the file, ``where`` and ``name``.
    """
    try:
        return read_tokens(value, name) or 0
    except ValueError as exc:
        raise format_error(path, where, str(exc)) from None


def optional_tokens(path: Path, where: str, value: Any, name: str) -> int | None:
    """:func:`tokens`, with an absent figure ``None`` (unknown) rather than 0."""
    return None if value is None else tokens(path, where, value, name)


def cost_usd(path: Path, where: str, value: Any, name: str) -> float | None:
    """A cost of the file in US dollars (absent: unknown), finite and not negative.

    Raises:
        ImportFormatError: naming the file, ``where`` and ``name``.
    """
    try:
        return read_cost_usd(value, name)
    except ValueError as exc:
        raise format_error(path, where, str(exc)) from None
