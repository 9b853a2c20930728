"""``sessions search`` never cuts a session's id: it is what a user copies to resume.

The "session" column held the id and the name together, drawn at its natural width: a long
name made rich crop it with ``…`` at 60 and 80 columns, id included. The id is now a column of
its own that wraps rather than lose its end; the name is cut with ``…``, optional columns are
left out first and named under the table (docs/architecture.md §6).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from test_sessions_list_fit import ANSI, made

LONG_NAME = "a-session-name-that-goes-on-" + "n" * 40
SESSIONS = {LONG_NAME: "mention zebrafish in a title that is rather long and wordy",
            "日本語のセッション名前" * 3: "zebrafish タイトル" * 4, "short": "zebrafish"}


def searched(home: Path, columns: int, text: str = "zebrafish") -> list[str]:
    config = home / "none.toml"
    config.touch()
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": str(config),
           "COLUMNS": str(columns), "TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
    env.pop("GOOSE_MODEL", None)
    proc = subprocess.run([sys.executable, "-m", "goosectx", "sessions", "search", text],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [ANSI.sub("", line).rstrip() for line in proc.stdout.splitlines()]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_every_hit_shows_its_whole_id_within_the_width(tmp_path: Path, columns: int) -> None:
    home = tmp_path / "home"
    ids = made(home, SESSIONS)
    lines = searched(home, columns)
    assert all(cell_len(line) <= columns for line in lines), lines
    for session_id in ids:
        assert sum(line.startswith(session_id + " ") or line == session_id
                   for line in lines) == 1, lines
    assert not any(line.startswith("2") and "…" in line.split()[0] for line in lines), lines
    assert len(lines) <= 1 + 4 * len(ids) + 2, lines  # was: one character a line at 60


def test_a_long_name_is_cut_with_an_ellipsis_and_a_dropped_column_is_named(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    made(home, {LONG_NAME: SESSIONS[LONG_NAME]})
    lines = searched(home, 80)
    row = next(line for line in lines if line.startswith("2"))
    name = row.split()[1]
    assert name.endswith("…") and LONG_NAME.startswith(name[:-1]), lines
    notes = [line for line in lines if line.startswith("(not shown:")]
    assert notes and "goosectx sessions search --json" in " ".join(lines), lines


def test_a_short_name_is_shown_whole_at_120(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ids = made(home, {"short": "zebrafish"})
    lines = searched(home, 120)
    row = next(line for line in lines if line.startswith(ids[0]))
    assert row.split()[:3] == [ids[0], "short", "zebrafish"], lines
