"""Reading stored JSON back (:func:`loads`): every reader of the database's JSON columns.

Importing nothing of the store, so each store module can use it (the database module
re-exports it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_scan_once: Callable[[str, int], tuple[Any, int]] = (
    json.JSONDecoder().scan_once)  # type: ignore[attr-defined]  # set in __init__, untyped
"""The C scanner ``json.loads`` runs, called directly."""


def loads(text: Any) -> Any:
    """``json.loads(text)``: the same value, or the same error.

    JSON nested too deeply to read raises ``ValueError``, not ``json.loads``' own
    ``RecursionError``: every reader of stored JSON takes it as a damaged value.

    Stored JSON is one value with nothing around it, so it is scanned directly, without
    ``json.loads``' wrapper calls and its two whitespace matches (a quarter of its time on a
    message row); text with anything around the value, bytes, or text that does not parse go
    through ``json.loads`` itself.
    """
    try:
        if type(text) is str:
            try:
                value, end = _scan_once(text, 0)
            except (StopIteration, ValueError):
                return json.loads(text)
            if end == len(text):
                return value
        return json.loads(text)
    except RecursionError:  # valid JSON nested deeper than Python reads: a damaged value
        raise ValueError("its JSON is nested too deeply to read") from None
