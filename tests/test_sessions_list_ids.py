"""``sessions list`` never cuts the session id: it is the column a user copies to resume.

At 60 and 80 columns the id was cut to ``20261204…`` — the same for every session of a day —
and a 60-character name squeezed the title to 15 cells at 120 (tester, wave 24). Optional
columns are left out first, the name is cut from the right with ``…`` to a fair share, then
the title wraps and the working dir is cut (docs/architecture.md §6).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from test_sessions_list_fit import listed, made

from goosectx.cli.table_fit import CUT_FAIR_CELLS, fit_columns

DEEP = Path("/tmp/" + "/".join(["a-very-long-directory-name-segment"] * 4))
LONG_NAME = "n" * 60 + "1"
SESSIONS = {LONG_NAME: "A title that is rather long and says what the session did",
            "日本語のセッション名前" * 3: "タイトル" * 10, "short": "x"}


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_every_row_shows_its_whole_id(tmp_path: Path, columns: int) -> None:
    home = tmp_path / "home"
    ids = made(home, SESSIONS, where=DEEP)
    lines = listed(home, columns)
    assert all(cell_len(line) <= columns for line in lines), lines
    for session_id in ids:
        assert sum(line.startswith(session_id + " ") for line in lines) == 1, lines
    assert not any(line.startswith("2") and "…" in line.split()[0] for line in lines), lines


def test_a_long_name_is_cut_and_leaves_the_title_its_width_at_120(tmp_path: Path) -> None:
    home = tmp_path / "home"
    title = SESSIONS[LONG_NAME]
    made(home, {LONG_NAME: title}, where=DEEP)
    lines = listed(home, 120)
    row = next(line for line in lines if line.startswith("2"))
    name = row.split()[1]
    assert name.endswith("…") and LONG_NAME.startswith(name[:-1]), lines
    assert cell_len(name) <= CUT_FAIR_CELLS
    assert "A title that is rather long and says" in row, lines  # 36+ cells of title


def test_a_name_that_fits_is_whole() -> None:
    header = ("id", "name", "title")
    rows = [("20261204_145651_51fc", LONG_NAME, "short title")]
    fit = fit_columns(120, header, rows, wrap=("title",), cut=("name",))
    assert fit.widths == (20, 61, 11)
