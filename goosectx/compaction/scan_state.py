"""The facts scan's state kept between processes: where a later scan of the same view resumes.

Part of the compaction pipeline (docs/architecture.md §5). Every compaction — a dry run too —
scans the whole agent view for the facts a summary carries (:mod:`.facts_scan`). A
:class:`Checkpoint` is what that scan had folded up just before one message of the view —
:func:`goosectx.compaction.gather.gather_facts`' state (:mod:`.gather_state`), the constraint
lines found (:meth:`~goosectx.compaction.memo.ScanMemo.constraint_scan`) and the newest commands
run — with the message it stops before and a digest of the messages up to it. A later process
whose view starts with the very same messages (a dry run then the real run, a session that grew)
takes the state and scans only what follows. The store keeps one per session (migration 11) and
drops it as soon as a message before its boundary changes (:mod:`goosectx.store.scan_state`); the
digest and :data:`SCAN_STATE_VERSION` guard the rest. An unreadable, corrupt or other-version
state reads as none: the view is scanned whole and a new one is kept.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Protocol

from goosectx.conversation import Message

SCAN_STATE_VERSION = 2
"""The meaning of a kept state. BUMP IT whenever the scan's code changes what it records or
how (gather.py, gather_state.py, the constraint scan in memo.py and facts.py, the commands
list, the encoding here): a state of another version is ignored and rewritten. The state
depends on no setting nor token encoding (the facts are rendered and counted after it)."""
MAX_STATE_BYTES = 8 << 20
"""Largest state kept (compressed): a view whose facts take more is scanned whole each time."""


class ScanCache(Protocol):
    """Where a compaction finds and keeps the scan state of its session (an adapter's)."""

    def load(self) -> bytes | None:
        """The kept state, if the store still holds it (no message before its boundary changed)."""

    def save(self, boundary_id: str, data: bytes) -> None:
        """Keep ``data``, the state before the message ``boundary_id`` (failures are ignored)."""


@dataclass(slots=True)
class Checkpoint:
    """The scan of a view's first ``at`` messages, as a later scan resumes it.

    Attributes:
        at: The view position the state stops before (``view[at]`` is the first not scanned).
        digest: :func:`view_digest` of ``view[:at + 1]``.
        gather: :mod:`.gather_state`'s record of the facts scan's state.
        constraints: The constraint scan's entries before ``at``: ``[position, [lines]]``, a
            line left out where an earlier entry had it and it cannot come out otherwise.
        commands: The newest distinct commands of ``view[:at]``, newest first (at most
            :data:`~goosectx.compaction.facts.MAX_COMMANDS`).
    """

    at: int
    digest: str
    gather: dict[str, Any]
    constraints: list[tuple[int, tuple[str, ...]]]
    commands: list[str]


def view_digest(view: Sequence[Message], end: int, conversation: Sequence[Message]) -> str:
    """A digest of ``view[:end]`` and of the stored messages up to ``view[end - 1]``'s.

    Each view message's id and number of parts, in order; the ids of ``conversation`` (every
    message, hidden ones too) up to the one with ``view[end - 1]``'s id: a message inserted
    before it, shown or hidden, changes the digest (the store's triggers see the other
    changes, not an insert, which every append is).
    """
    head = view[:end]
    digest = hashlib.sha256("\n".join(map(attrgetter("id"), head)).encode("utf-8",
                                                                           "surrogatepass"))
    digest.update(array("q", map(len, map(attrgetter("content"), head))).tobytes())
    ids = list(map(attrgetter("id"), conversation))
    last = head[-1].id if head else None
    rows = ids[:ids.index(last) + 1] if last in ids else ids
    digest.update("\0".join(rows).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def encode(checkpoint: Checkpoint) -> bytes | None:
    """The bytes the store keeps (``None`` past :data:`MAX_STATE_BYTES`)."""
    text = json.dumps([SCAN_STATE_VERSION, checkpoint.at, checkpoint.digest, checkpoint.gather,
                       checkpoint.constraints, checkpoint.commands],
                      ensure_ascii=False, separators=(",", ":"))
    data = zlib.compress(text.encode("utf-8", "surrogatepass"), 1)
    return data if len(data) <= MAX_STATE_BYTES else None


def decode(data: bytes | None) -> Checkpoint | None:
    """The checkpoint ``data`` holds; ``None`` for none, a corrupt one or another version."""
    if not data:
        return None
    try:
        version, at, digest, gather, constraints, commands = json.loads(
            zlib.decompress(data).decode("utf-8", "surrogatepass"))
        if version != SCAN_STATE_VERSION or not isinstance(gather, dict):
            return None
        return Checkpoint(int(at), str(digest), gather,
                          [(int(p), tuple(map(str, lines))) for p, lines in constraints],
                          [str(c) for c in commands])
    except (ValueError, TypeError, zlib.error, RecursionError):
        return None
