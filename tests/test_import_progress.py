"""A long ``sessions import`` shows a transient progress line on a terminal's stderr.

A 45 MB import said nothing for seconds. Now, from a second on, stderr (a terminal only)
holds one line redrawn in place — how much of the file was read, then what is being saved —
erased before the ``imported …`` line. The import is held at a pause point
(goosectx.testhooks) while its session is saved, so it runs "long" on any machine.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from reliability_support import clean_env, paused_env, start, wait_for
from test_import_interrupt import large_claude_code

from goosectx.cli.import_progress import DELAY_S

pexpect = pytest.importorskip("pexpect")

POINT = "save_new_session:before_commit"


@pytest.mark.slow
def test_a_long_import_on_a_terminal_shows_what_it_does_then_erases_the_line(
        tmp_path: Path) -> None:
    source = large_claude_code(tmp_path / "big.jsonl", 3_000)
    marker = tmp_path / "paused"
    env = clean_env(tmp_path / "home", **paused_env(marker, POINT), COLUMNS="100")
    child = pexpect.spawn(sys.executable, ["-m", "goosectx", "sessions", "import", str(source)],
                          cwd=str(tmp_path), env=env, dimensions=(24, 100), encoding="utf-8",
                          timeout=60)
    try:
        child.expect(r"\rimporting big\.jsonl \(\d+\.\d MB\): saving 3,000 messages")
        # the line is drawn while the rows are written; the pause comes at the commit after
        wait_for(POINT, lambda: marker.exists() and marker.read_text() != "")
        os.remove(marker)  # let it commit
        child.expect(r"\r +\rimported \w+: 3,000 messages")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


@pytest.mark.slow
def test_no_progress_line_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    source = large_claude_code(tmp_path / "big.jsonl", 3_000)
    marker = tmp_path / "paused"
    proc = start(clean_env(tmp_path / "home", **paused_env(marker, POINT)), "sessions",
                 "import", str(source), cwd=tmp_path)
    wait_for(POINT, lambda: marker.exists() and marker.read_text() != "", proc)
    # held past the moment a terminal would get the line (a negative check: a busier
    # machine only makes the hold longer than the product's delay, never shorter)
    held_until = time.monotonic() + DELAY_S + 1.0
    while time.monotonic() < held_until:
        time.sleep(0.05)
    os.remove(marker)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert b"imported " in out
    assert err == b"", err
