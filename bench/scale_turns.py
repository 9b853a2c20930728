"""The scale table's memory-over-turns row: a REPL's RSS growth over many turns.

A resumed long session turns Python's full cycle collections off (``collector.py``); what
each turn leaves in cycles must still be freed, or the REPL grows with every turn. The row
runs ``WARM`` turns, reads the process's RSS, runs ``TURNS`` more and reads it again: the
growth over those turns, next to the same in a new session (where the collector runs as
usual).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from scale_data import ANSWER_MARK

WARM = 5
TURNS = 25
PROMPT = "❯"


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def rss_growth_mb(spawn: Callable[[], Any]) -> float:
    """MB the REPL ``spawn()`` starts (a pexpect child) grew over :data:`TURNS` turns."""
    import pexpect

    child = spawn()
    try:
        child.expect(PROMPT)
        time.sleep(0.5)  # the start-up work (litellm import) first
        start = 0.0
        for turn in range(WARM + TURNS):
            if turn == WARM:
                start = _rss_mb(child.pid)
            child.send(f"say something {turn}\r")
            child.expect_exact(ANSWER_MARK)
            child.expect(PROMPT)
        grown = _rss_mb(child.pid) - start
        child.send("/exit\r")
        child.expect_exact(pexpect.EOF)
    finally:
        child.close(force=True)
    return grown
