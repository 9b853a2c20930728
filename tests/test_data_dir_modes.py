"""Everything goosectx makes under its data dir is private whatever the umask.

README: the data dir 0700, its files 0600. A directory created with ``mkdir(parents=True)``
gets the umask's mode for its parents (0777 under ``umask 000``), so each level is made 0700
explicitly. The run here makes every kind of entry a short session makes: the database, the
debug log, a lock, a tool-output overflow file, the ``/undo`` journal of an edit, an export.
"""

from __future__ import annotations

import os
import stat
import subprocess

from fakeserver import FakeServer
from reliability_support import GOOSECTX, model_env


def _run_umask_0(env: dict[str, str], *args: str, cwd: os.PathLike[str]) -> None:
    proc = subprocess.run([*GOOSECTX, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, umask=0)
    assert proc.returncode == 0, proc.stderr


def test_under_umask_000_every_data_dir_entry_is_0700_or_0600(tmp_path):
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("old\n")
    script = [
        {"tool_calls": [{"name": "shell", "arguments": {"command": "seq 1 30000"}}]},
        {"tool_calls": [{"name": "text_editor", "arguments": {
            "command": "write", "path": "a.txt", "file_text": "new\n"}}]},
        {"text": "done"},
    ]
    with FakeServer(script) as server:
        env = model_env(home, server.base_url)
        _run_umask_0(env, "--debug", "run", "--name", "m", "-t", "go", "--mode", "auto",
                     cwd=project)
        _run_umask_0(env, "sessions", "export", "m", "-o", str(tmp_path / "m.md"), cwd=project)
    assert (project / "a.txt").read_text() == "new\n"
    modes = {}
    for root, dirs, files in os.walk(home):
        for name in dirs + files:
            path = os.path.join(root, name)
            modes[os.path.relpath(path, home)] = stat.S_IMODE(os.lstat(path).st_mode)
    assert any(p.startswith("tool-output" + os.sep) for p in modes), modes
    assert any(p.startswith("file-undo" + os.sep) for p in modes), modes
    assert "goosectx.log" in modes and "sessions.db" in modes, modes
    wrong = {path: oct(mode) for path, mode in modes.items()
             if mode != (0o700 if os.path.isdir(home / path) else 0o600)}
    assert wrong == {}
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "m.md").stat().st_mode) == 0o600
