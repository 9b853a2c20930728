"""Session names have a length limit (fresh17a finding 15).

One 200-character name (``--name``, ``sessions rename``, an import) widened the name column of
every ``sessions list`` row to 200 columns. A new name is now at most 64 characters (as an
id), refused with one line otherwise; a longer name made before is cut with ``…`` in the list.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli
from test_import_corpus import raw_file

from goosectx.store import SessionStore

LONG = "n" * 200


def test_rename_refuses_a_name_over_64_characters_in_one_line(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        tmp_path: Path) -> None:
    store = SessionStore(isolated_env["home"])
    store.create_session(tmp_path, name="bugfix")
    store.close()
    code, _out, err = run_cli(capsys, "sessions", "rename", "bugfix", LONG)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "is 200 characters long" in err and "at most 64 characters" in err
    assert LONG not in err  # the error line is not as wide as the name
    code, _out, err = run_cli(capsys, "sessions", "rename", "bugfix", "m" * 64)
    assert code == 0, err
    code, out, _err = run_cli(capsys, "sessions", "list", "--json")
    assert [row["name"] for row in json.loads(out)] == ["m" * 64]


def test_import_with_a_long_name_is_refused_before_anything_is_saved(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        tmp_path: Path) -> None:
    transcript = tmp_path / "t.json"
    transcript.write_text('[{"role":"user","content":"short task"},'
                          '{"role":"assistant","content":"y"}]')
    code, _out, err = run_cli(capsys, "sessions", "import", str(transcript), "--name", LONG)
    assert code == 2 and "at most 64 characters" in err and "--name" in err, err
    code, out, _err = run_cli(capsys, "sessions", "list", "--json")
    assert json.loads(out) == []


def test_sessions_list_cuts_a_long_name_made_before_the_limit(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        tmp_path: Path) -> None:
    store = SessionStore(isolated_env["home"])
    old = store.create_session(tmp_path, name=LONG)  # the store itself does not check
    store.create_session(tmp_path, name="normal")
    store.close()
    code, out, _err = run_cli(capsys, "sessions", "list")
    assert code == 0
    rows = out.splitlines()
    assert rows[0].index("title") <= len(old.id) + 2 + 64 + 2, rows[0]  # not 200 columns on
    row = next(r for r in rows if r.startswith(old.id))
    assert "n" * 63 + "…" in row and "n" * 64 not in row
    code, out, _err = run_cli(capsys, "sessions", "list", "--json")
    assert LONG in [r["name"] for r in json.loads(out)]  # JSON keeps the whole name


def test_a_64_character_name_numbered_for_several_imported_sessions_still_fits(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path]) -> None:
    path = raw_file("goose/lantern-goose-1.45-sessions.db")  # four sessions: NAME-1 .. NAME-4
    code, _out, err = run_cli(capsys, "sessions", "import", str(path), "--name", "L" * 64)
    assert code == 0 and "imported without a name" not in err, err
    code, out, _err = run_cli(capsys, "sessions", "list", "--json")
    assert sorted(r["name"] for r in json.loads(out)) == [f"{'L' * 62}-{i}" for i in range(1, 5)]
