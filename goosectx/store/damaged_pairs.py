"""``--skip-damaged``: the rows that still read, with no tool call or result left alone.

``sessions show`` / ``export --skip-damaged`` leave out a row that does not parse. When that
row held one side of a tool pair, the other side would be left alone: a call with no result
(drawn without a word, dropped from the model's view after an import) or a result with no call
(dropped silently). :func:`mend_pairs` marks the place instead, as an imported transcript
ending during a call is answered (``turn.UNRECORDED_TEXT``):

* the calls of the row before a left-out row that no later row answers get a result, in a row
  of their own where the left-out one was: :data:`LOST_RESULT_TEXT` (an error);
* a result after a left-out row whose call is not in the row before it becomes text:
  :data:`LOST_CALL_TEXT`, then its output — the model still reads it, and no result without a
  call is ever sent.

Each such call's name, and the number of such results, are counted in :class:`LostPairs` for
the warning on stderr. Rows are the store's ``(id, role, created, content_json,
metadata_json)``; a row given is always one that reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from goosectx.message import new_message_id
from goosectx.store.json_read import loads

Row = tuple[str, str, str, str, str]

LOST_RESULT_TEXT = (
    "[no result: this call's result was lost with a damaged row (left out by --skip-damaged); "
    "it may have run — check before running it again]"
)
"""The result given to a call whose result row did not parse and was left out."""
LOST_CALL_TEXT = (
    "[a tool result whose call was lost with a damaged row (left out by --skip-damaged); its "
    "output:]"
)
"""Starts the text a result whose call row did not parse and was left out becomes."""


@dataclass(slots=True)
class LostPairs:
    """What the left-out rows took with them: calls' names (results lost), results (calls)."""

    results: list[str] = field(default_factory=list)
    """The names of the calls whose results were lost."""
    calls: int = 0
    """How many results lost their calls."""


def _parts(row: Row) -> list[Any]:
    content = loads(row[3])
    return content if isinstance(content, list) else []


def _calls(row: Row) -> dict[str, str]:
    """The row's tool calls: id → name (an assistant row's)."""
    if row[1] != "assistant":
        return {}
    return {str(p["id"]): str(p.get("name", "")) for p in _parts(row)
            if isinstance(p, dict) and p.get("type") == "tool_request"}


def _answered(row: Row) -> set[str]:
    if row[1] != "user":
        return set()
    return {str(p.get("id")) for p in _parts(row)
            if isinstance(p, dict) and p.get("type") == "tool_response"}


def _lost_results_row(call_row: Row, ids: dict[str, str]) -> Row:
    """A row answering ``ids`` with :data:`LOST_RESULT_TEXT`, as visible as the call row."""
    content = [{"type": "tool_response", "id": i, "output": LOST_RESULT_TEXT, "is_error": True}
               for i in ids]
    return (new_message_id(), "user", call_row[2], json.dumps(content, ensure_ascii=False),
            call_row[4])


def _as_text(row: Row, orphans: set[str]) -> Row:
    """``row`` with each result of ``orphans`` turned into :data:`LOST_CALL_TEXT` text."""
    content = []
    for p in _parts(row):
        if isinstance(p, dict) and p.get("type") == "tool_response" and p.get("id") in orphans:
            error = " (it was an error)" if p.get("is_error") is True else ""
            p = {"type": "text", "text": f"{LOST_CALL_TEXT}{error}\n\n{p.get('output', '')}"}
        content.append(p)
    return (row[0], row[1], row[2], json.dumps(content, ensure_ascii=False), row[4])


def mend_pairs(rows: Iterator[Row], readable: Callable[[Row], bool], unreadable: list[str],
               lost: LostPairs | None = None) -> Iterator[Row]:
    """The rows that read, with the tool pairs a left-out row broke marked (module doc).

    ``readable``: whether a row parses; the id of each that does not is appended to
    ``unreadable``. ``lost``: filled with what the left-out rows took with them.
    """
    lost = LostPairs() if lost is None else lost
    last: Row | None = None  # the last row given
    open_calls: dict[str, str] = {}  # its calls not answered yet
    skipped = False  # a row was left out since ``last``
    for row in rows:
        if not readable(row):
            unreadable.append(row[0])
            skipped = True
            continue
        if skipped:
            answered = _answered(row)
            left = {i: n for i, n in open_calls.items() if i not in answered}
            if left and last is not None:
                lost.results += left.values()
                yield _lost_results_row(last, left)
            orphans = answered - set(open_calls)
            if orphans:
                lost.calls += len(orphans)
                row = _as_text(row, orphans)
            skipped = False
        calls = _calls(row)
        if calls or row[1] == "assistant":
            open_calls = calls
        else:
            answered = _answered(row)
            open_calls = {i: n for i, n in open_calls.items() if i not in answered}
        last = row
        yield row
    if skipped and open_calls and last is not None:
        lost.results += open_calls.values()
        yield _lost_results_row(last, open_calls)
