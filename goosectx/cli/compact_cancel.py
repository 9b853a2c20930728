"""Ctrl-C during ``goosectx compact`` before its command module ran: one line, the exit code.

Kept apart from :mod:`goosectx.cli.compact_cmd` (whose import may be what was interrupted).
"""

from __future__ import annotations

import json
import sys

from goosectx.cli.exit_signals import exit_status, received_name
from goosectx.errors import CompactionCancelled


def cancelled_compaction(*, as_json: bool, dry_run: bool) -> None:
    """Re-raise the interrupt once a compaction was saved, else :class:`CompactionCancelled`."""
    cmd = sys.modules.get("goosectx.cli.compact_cmd")
    if cmd is not None and getattr(cmd, "_saved", None):
        raise KeyboardInterrupt
    error = CompactionCancelled(exit_status(130), received_name())
    if as_json:  # as compact_session's refusals (the session was not resolved yet)
        print(json.dumps({"session_id": None, "dry_run": dry_run,
                          "would_change" if dry_run else "changed": False,
                          "reason": error.message, "hint": None}))
    raise error from None
