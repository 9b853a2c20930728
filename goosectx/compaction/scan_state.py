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
digest, :data:`SCAN_STATE_VERSION` and the build's digest (:mod:`.scan_build`: the source of
every module the scan runs) guard the rest. An unreadable, corrupt, other-version or
other-build state reads as none: the view is scanned whole and a new one is kept.
"""

from __future__ import annotations

import json
import zlib
from array import array
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, Protocol

from goosectx.compaction.scan_build import build_digest
from goosectx.conversation import Message
from goosectx.digests import sha256
from goosectx.plain_record import mutable_record

SCAN_STATE_VERSION = 3
"""The kept state's format, combined with :func:`~.scan_build.build_digest` (which changes
with the source of any module the scan runs): a state of another version or build is ignored
and rewritten. The state depends on no setting nor token encoding (the facts are rendered and
counted after it)."""
MAX_STATE_BYTES = 8 << 20
"""Largest state kept (compressed): a view whose facts take more is scanned whole each time."""


class ScanCache(Protocol):
    """Where a compaction finds and keeps the scan state of its session (an adapter's)."""

    def load(self) -> bytes | None:
        """The kept state, if the store still holds it (no message before its boundary changed)."""

    def save(self, boundary_id: str, data: bytes) -> None:
        """Keep ``data``, the state before the message ``boundary_id`` (failures are ignored)."""


@mutable_record  # compared, printed nowhere (a test)
class Checkpoint:
    """The scan of a view's first ``at`` messages, as a later scan resumes it.

    Attributes:
        at: The view position the state stops before (``view[at]`` is the first not scanned).
        digest: :func:`view_digest` of ``view[:at + 1]`` (with the content of any message
            there the repair made: :mod:`.facts_scan`).
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
    digest = sha256("\n".join(map(attrgetter("id"), head)).encode("utf-8",
                                                                           "surrogatepass"))
    digest.update(array("q", map(len, map(attrgetter("content"), head))).tobytes())
    ids = list(map(attrgetter("id"), conversation))
    last = head[-1].id if head else None
    rows = ids[:ids.index(last) + 1] if last in ids else ids
    digest.update("\0".join(rows).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _version() -> str:
    """What a state of this build and format is marked with (``""``: none is kept)."""
    build = build_digest()
    return f"{SCAN_STATE_VERSION}-{build}" if build else ""


def encode(checkpoint: Checkpoint) -> bytes | None:
    """The bytes the store keeps (``None`` past :data:`MAX_STATE_BYTES` or with no build)."""
    version = _version()
    if not version:
        return None
    text = json.dumps([version, checkpoint.at, checkpoint.digest, checkpoint.gather,
                       checkpoint.constraints, checkpoint.commands],
                      ensure_ascii=False, separators=(",", ":"))
    data = zlib.compress(text.encode("utf-8", "surrogatepass"), 1)
    return data if len(data) <= MAX_STATE_BYTES else None


def decode(data: bytes | None) -> Checkpoint | None:
    """The checkpoint ``data`` holds; ``None`` for none, a corrupt one, another version or build.

    Every value is checked for the type :func:`encode` wrote (the scan's own record is
    checked when it is restored, :func:`~.gather_state.restore`).
    """
    if not data:
        return None
    try:
        version, at, digest, gather, constraints, commands = json.loads(
            zlib.decompress(data).decode("utf-8", "surrogatepass"))
        if (not version or version != _version() or type(at) is not int
                or not isinstance(digest, str) or not isinstance(gather, dict)
                or not _strings(commands)):
            return None
        kept = []
        for p, lines in constraints:
            if type(p) is not int or not _strings(lines):
                return None
            kept.append((p, tuple(lines)))
        return Checkpoint(at, digest, gather, kept, commands)
    except (ValueError, TypeError, zlib.error, RecursionError):
        return None


def _strings(value: object) -> bool:
    """Whether ``value`` is a list of strings."""
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
