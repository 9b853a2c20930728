"""Ctrl-C during ``goosectx compact``: one line, the exit code, and ``--json``'s refusal object.

Kept apart from :mod:`goosectx.cli.compact_cmd` (whose import may be what was interrupted):
the command marks :data:`progress` once it saved its change, so an interrupt after that is
not called a cancel.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from goosectx.cli.exit_signals import exit_status, received_name
from goosectx.errors import CompactionCancelled, GoosectxError


@dataclass
class Progress:
    """What ``goosectx compact`` did so far in this process."""

    saved: bool = False
    """True once the compaction was saved (an interrupt then is not a cancel)."""


progress = Progress()
"""The command's progress: :mod:`goosectx.cli.compact_cmd` sets ``saved``."""


def print_refusal(session_id: str | None, exc: GoosectxError, dry_run: bool) -> None:
    """``--json``: a refusal or failure as an object (the one-line error goes to stderr).

    ``session_id`` is ``None`` when the session could not be resolved (no such session, a
    broken database); the session is unchanged either way.
    """
    reason = exc.message.removeprefix("would change nothing: ").removesuffix("; nothing changed")
    outcome = {"would_change": False} if dry_run else {"changed": False}
    print(json.dumps({"session_id": session_id, "dry_run": dry_run, **outcome,
                      "reason": reason, "hint": exc.hint}))


def cancelled_compaction(*, as_json: bool, dry_run: bool) -> None:
    """Re-raise the interrupt once a compaction was saved, else :class:`CompactionCancelled`."""
    if progress.saved:
        raise KeyboardInterrupt
    error = CompactionCancelled(exit_status(130), received_name())
    if as_json:  # as compact_session's refusals (the session was not resolved yet)
        print_refusal(None, error, dry_run)
    raise error from None
