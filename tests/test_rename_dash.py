"""``sessions rename ID -dash``: the naming rule, not click's "No such option: -d"."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.store import SessionStore


@pytest.mark.parametrize("args", [["-dash"], ["--", "-dash"], ["--dash"]])
def test_a_new_name_starting_with_a_dash_gets_the_naming_rule(
        args: list[str], capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        tmp_path: Path) -> None:
    store = SessionStore(isolated_env["home"])
    store.create_session(tmp_path, name="bugfix")
    store.close()
    code, _out, err = run_cli(capsys, "sessions", "rename", "bugfix", *args)
    assert code == 2, err
    assert "No such option" not in err and len(err.strip().splitlines()) == 1, err
    assert f"the session name '{args[-1]}' starts with '-'" in err
    assert "starts with a letter or digit" in err
    code, out, _err = run_cli(capsys, "sessions", "list")
    assert "bugfix" in out and args[-1] not in out
