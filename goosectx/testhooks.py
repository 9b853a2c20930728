"""A test-only hook that pauses the product at named points (for crash and race tests).

Set ``GOOSECTX_TEST_PAUSE_AT=<point>`` and ``GOOSECTX_TEST_PAUSE_FILE=<path>``: when the
process reaches ``<point>`` it writes its PID to ``<path>`` and sleeps (up to 60 s) so the
test can kill or race it at exactly that moment; deleting ``<path>`` lets it go on (it
pauses again each time it reaches the point). Unset, it costs one dict lookup.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def pause_point(name: str) -> None:
    """Pause here if the test hook names this point; otherwise return at once."""
    if os.environ.get("GOOSECTX_TEST_PAUSE_AT") != name:
        return
    marker = os.environ.get("GOOSECTX_TEST_PAUSE_FILE")
    if marker:
        Path(marker).write_text(str(os.getpid()))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not marker or os.path.exists(marker)):
        time.sleep(0.05)
