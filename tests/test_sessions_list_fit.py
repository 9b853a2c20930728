"""``sessions list`` on a terminal: one line a session at 80 and 120 columns where it fits.

A long working dir made rich share the room by the wrapping columns' widths: the title got a
dozen cells and one session took six lines (tester, wave 24). The title now keeps its natural
width up to a fair share and the working dir is cut from the left (``…/project``).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from goosectx.cli.path_fit import left_cut
from goosectx.conversation import Message
from goosectx.store import SessionStore

LONG_DIR = Path("/tmp/a-very-long-directory-name/another-long-one/project-with-long-name")
TITLES = {"bugfix": "fix the flaky parser test", "plain": "refactor the store"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def listed(home: Path, columns: int) -> list[str]:
    config = home / "none.toml"
    config.touch()
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": str(config),
           "COLUMNS": str(columns), "TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
    env.pop("GOOSE_MODEL", None)
    proc = subprocess.run([sys.executable, "-m", "goosectx", "sessions", "list"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [ANSI.sub("", line).rstrip() for line in proc.stdout.splitlines()]


def made(home: Path, titles: dict[str, str], where: Path = LONG_DIR) -> list[str]:
    store = SessionStore(home)
    ids = []
    for name, title in titles.items():
        session = store.create_session(where, name=name)
        store.append_message(session.id, Message.user(title))
        ids.append(session.id)
    store.close()
    return ids


@pytest.mark.parametrize("columns", [80, 120])
def test_each_session_is_one_line_with_its_whole_title_and_the_end_of_its_dir(
        tmp_path: Path, columns: int) -> None:
    home = tmp_path / "home"
    ids = made(home, TITLES)
    lines = listed(home, columns)
    assert all(cell_len(line) <= columns for line in lines), lines
    rows = [line for line in lines[1:] if not line.startswith("(")]
    assert len(rows) == len(ids), lines  # no title or dir spilling onto a second line
    for name, title in TITLES.items():
        row = next(line for line in rows if f" {name} " in line)
        assert title in row, lines
        shown_dir = row.split()[-1]  # the dir's start is cut, and says so; its end is kept
        assert shown_dir.startswith("…") and str(LONG_DIR).endswith(shown_dir[1:]), lines
        assert len(shown_dir) >= 12, lines


def test_at_120_columns_a_41_cell_title_is_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    title = "fix the flaky parser test in the importer"
    made(home, {"long": title})
    rows = listed(home, 120)
    assert any(title in line for line in rows), rows
    assert len([line for line in rows[1:] if not line.startswith("(")]) == 1, rows


def test_a_title_too_long_for_80_columns_wraps_whole_and_nothing_is_cut_bare(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    title = ("rewrite the session store so that imports of very large transcripts "
             "stay fast")[:71] + "…"
    made(home, {"huge": title}, where=tmp_path)
    lines = listed(home, 80)
    assert all(cell_len(line) <= 80 for line in lines), lines
    assert lines[-2].startswith("(not shown:") and "working dir" in lines[-2]  # left out
    assert lines[-1] == "(every column: goosectx sessions list --json)"  # the command whole
    words = " ".join(line for line in lines[1:-2]).split()
    assert " ".join(w for w in words if w in title.split()) == title


def test_a_short_list_in_a_wide_terminal_drops_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    made(home, TITLES)
    lines = listed(home, 200)
    assert lines[0].split() == ["id", "name", "title", "source", "updated", "messages",
                                "context", "working", "dir"]
    assert not any(line.startswith("(not shown") for line in lines)
    assert sum(str(LONG_DIR) in line for line in lines) == 2  # whole when it fits


@pytest.mark.parametrize(("cells", "shown"), [
    (80, str(LONG_DIR)),
    (41, "…/another-long-one/project-with-long-name"),
    (30, "…/project-with-long-name"),
    (12, "…h-long-name"),
])
def test_left_cut_keeps_the_end_of_a_path(cells: int, shown: str) -> None:
    assert left_cut(str(LONG_DIR), cells) == shown
    assert cell_len(shown) <= cells
