"""A file of the data dir that is a symlink to a file not goosectx's is never changed.

``sessions.db`` linked to a text file (as root it could be ``/etc/passwd``) was refused as
unreadable "and left as it is" — after its target had been chmodded to 0600. ``goosectx.log``
linked to a foreign file had ``--debug`` append the log to it and chmod it too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.config import load_settings

FOREIGN = "root:x:0:0:root:/root:/bin/bash\n"


def _foreign_file(tmp_path: Path) -> Path:
    path = tmp_path / "passwd_standin"
    path.write_text(FOREIGN)
    path.chmod(0o644)
    return path


def _untouched(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == 0o644 and path.read_text() == FOREIGN


def test_a_database_linked_to_a_foreign_file_is_refused_and_its_target_left_as_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = _foreign_file(tmp_path)
    data_dir = load_settings().data_dir
    data_dir.mkdir(parents=True, mode=0o700, exist_ok=True)
    (data_dir / "sessions.db").symlink_to(foreign)
    code, _out, err = run_cli(capsys, "sessions", "list")
    assert code != 0 and "unreadable" in err and "left as it is" in err
    assert _untouched(foreign)


def test_a_debug_log_linked_to_a_foreign_file_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = _foreign_file(tmp_path)
    data_dir = load_settings().data_dir
    data_dir.mkdir(parents=True, mode=0o700, exist_ok=True)
    log = data_dir / "goosectx.log"
    log.symlink_to(foreign)
    code, _out, err = run_cli(capsys, "--debug", "sessions", "list")
    assert code != 0, err
    assert err.count("\n") == 1 and f"debug log {log} is a symbolic link" in err, err
    assert "move it aside" in err
    assert _untouched(foreign) and log.is_symlink() and os.readlink(log) == str(foreign)
