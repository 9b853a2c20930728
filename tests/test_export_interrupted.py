"""``sessions export -o FILE`` stopped part way leaves no half-written temp file behind.

SIGTERM ended the export at once (exit 143, no message) and left the hidden
``.FILE.XXXX.tmp`` it was writing — the session's text — beside FILE; a kill -9 likewise,
and nothing ever removed them. The export is paused at a test hook while it writes, then
stopped.
"""

from __future__ import annotations

import signal
from pathlib import Path

from reliability_support import (
    assert_one_line_error,
    clean_env,
    cli,
    paused_env,
    start,
    wait_for,
)
from test_cli_sessions import filled  # noqa: F401  (the fixture)


def _paused_export(home: Path, out: Path, marker: Path):  # type: ignore[no-untyped-def]
    env = clean_env(home, **paused_env(marker, "export:writing"))
    proc = start(env, "sessions", "export", "bugfix", "-o", str(out))
    wait_for("the export to start writing", marker.exists, proc)
    return proc


def test_sigterm_removes_the_temp_file_and_says_so_in_one_line(filled, tmp_path):  # noqa: F811
    home, _ = filled
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "e.md"
    proc = _paused_export(home, out, tmp_path / "marker")
    assert [p.name for p in out_dir.iterdir()][0].endswith(".tmp")  # it is writing
    proc.send_signal(signal.SIGTERM)
    _stdout, stderr = proc.communicate(timeout=60)
    assert_one_line_error(143, proc.returncode, stderr.decode(), "export stopped (SIGTERM)",
                          str(out))
    assert list(out_dir.iterdir()) == []


def test_a_temp_file_left_by_a_killed_export_is_removed_by_the_next(filled, tmp_path):  # noqa: F811
    home, _ = filled
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "e.md"
    proc = _paused_export(home, out, tmp_path / "marker")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    (left,) = out_dir.iterdir()  # kill -9: nothing can clean up
    (out_dir / ".e.md.other.tmp").write_text("not ours\n")  # another program's: kept
    done = cli(clean_env(home), "sessions", "export", "bugfix", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == [".e.md.other.tmp", "e.md"]
    assert not left.exists()
