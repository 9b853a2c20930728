"""The facts scan of the whole agent view, resumed from and kept for other processes.

Part of step 2 of the compaction pipeline (docs/architecture.md §5). The room the facts merged
into a summary may take is found by merging the facts of the whole view into an empty summary
(:func:`facts_reserve_tokens`, for :func:`goosectx.compaction.layout.plan_split`): a scan of
every message. With a :class:`~goosectx.compaction.scan_state.ScanCache` (the session's store),
:func:`resume_scan` takes the state a scan in an earlier process kept of the view's first
messages when they are the very same ones (:mod:`.scan_state`), so the scan reads only the
messages after them, and :func:`keep_scan` keeps this scan's state before the earliest place a
head may end (:attr:`~goosectx.compaction.memo.ScanMemo.keep_facts_at`): later views, which
grow at their end, start with those messages, and a head ends after them, so its facts are
kept on the way too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from goosectx.compaction.facts import (
    constraint_lines,
    kept_constraint_entries,
    merge_facts,
    newest_commands,
)
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.scan_state import Checkpoint, ScanCache, decode, encode, view_digest
from goosectx.conversation import Message
from goosectx.digests import sha256
from goosectx.tokens import TokenCounter

if TYPE_CHECKING:
    from goosectx.compaction.budget import Budget

_decoded: list[tuple[bytes, Checkpoint | None]] = []
"""The last state decoded, by its bytes (a compaction may plan more than once)."""


def facts_reserve_tokens(messages: Sequence[Message], budget: Budget,
                         counter: TokenCounter, memo: ScanMemo | None = None) -> int:
    """Calibrated tokens the facts of ``messages`` take when merged into an empty summary.

    At most ``facts_tokens``, except grouped paths, which are never dropped. Taken over the
    whole agent view it bounds what any head's facts can add to a summary.
    """
    text = merge_facts("", messages, max_tokens=budget.facts_tokens, counter=counter,
                       memo=memo)
    return budget.scaled(counter.count_kept_text(text)) if text else 0


def resume_scan(memo: ScanMemo, view: Sequence[Message], cache: ScanCache,
                stored: Sequence[Message], checked: int) -> None:
    """Before the scan of ``view``: the kept state it resumes, and where it keeps its own.

    The state applies when it stops before a message of ``view`` no later than the first
    place a head may end (``memo.keep_facts_at``, set before) and ``view`` up to that
    message has the digest it was kept with (:func:`_digest`). ``view`` is ``stored`` (the
    agent view) repaired, ``checked`` what
    :func:`~goosectx.conversation_repair.repair_scanned` returned with it.
    """
    ends = memo.keep_facts_at
    memo.checkpoint_view = view
    memo.checkpoint_at = min(ends) if ends else -1
    data = cache.load()
    if not data:
        return
    if not _decoded or _decoded[0][0] is not data:
        _decoded[:] = [(data, decode(data))]
    kept = _decoded[0][1]
    if (kept is None or not 0 < kept.at < len(view) or kept.at > memo.checkpoint_at
            or _digest(memo, view, kept.at + 1, stored, checked) != kept.digest):
        return
    memo.checkpoint = kept
    if kept.at == memo.checkpoint_at:  # the state to keep is the one kept: none is made
        memo.checkpoint_at = -1


def keep_scan(memo: ScanMemo, view: Sequence[Message], cache: ScanCache,
              stored: Sequence[Message], checked: int) -> None:
    """After the scan of ``view``: keep its state (unless it is the one it resumed)."""
    at = memo.checkpoint_at
    if memo.gathered is None or not 0 < at < len(view):
        return
    found = memo.constraint_scan(view, constraint_lines)  # made by the scan: looked up
    data = encode(Checkpoint(at, _digest(memo, view, at + 1, stored, checked), memo.gathered,
                             kept_constraint_entries(found, at),
                             list(newest_commands(view[:at], memo))))
    if data is not None:
        cache.save(view[at].id, data)


def _digest(memo: ScanMemo, view: Sequence[Message], end: int, stored: Sequence[Message],
            checked: int) -> str:
    """:func:`~.scan_state.view_digest` of ``view[:end]``, and the content the repair made.

    The store's triggers watch the rows up to the boundary, and the digest their ids; but a
    message of ``view[:end]`` the repair made (not one of ``stored``: the passes keep every
    message they leave as it is) may hold parts of a row stored after the boundary — a tool
    result moved up to its call — so such messages' roles and parts are digested whole
    (none when the view needed no repair: ``checked`` is all of it).
    """
    digest = view_digest(view, end, memo.conversation)
    if checked >= len(stored):
        return digest
    own = set(map(id, stored))
    made = [[m.role, m.to_dict()["content"]] for m in view[:end] if id(m) not in own]
    if not made:
        return digest
    text = json.dumps(made, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return f"{digest}-{sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}"
