"""goosectx started from a current directory that was deleted (``cd /tmp/x; rmdir /tmp/x``).

A command that needs the working directory says so in one line and exits 2 (it was a
traceback ending in ``os.getcwd()``); those that do not need it keep working.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import cli
from extension_support import DEMO_SERVER
from fakeserver import FakeServer

GONE = ("goosectx: error: the current directory no longer exists — cd to a directory that "
        "exists\n")


def in_gone_dir(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec goosectx "$@"'
    return subprocess.run(["sh", "-c", script, "sh", str(gone), *args], input=stdin,
                          env={**os.environ}, capture_output=True, text=True, timeout=120)


@pytest.fixture
def kept(fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A session named "kept", made in an existing directory."""
    fake_model.default_reply = {"text": "ok"}
    cli(capsys, "run", "--name", "kept", "-t", "first")
    return "kept"


@pytest.mark.parametrize("args", [("info",), ("run", "-t", "x"), ("sessions", "import", "F"),
                                  (), ("--continue",)])
def test_a_command_that_needs_the_working_dir_says_it_is_gone(
        kept: str, tmp_path: Path, args: tuple[str, ...]) -> None:
    args = tuple(str(tmp_path / "work" / "nope.json") if a == "F" else a for a in args)
    done = in_gone_dir(tmp_path, *args)
    assert (done.returncode, done.stderr) == (2, GONE)


def test_run_says_so_before_it_says_no_model_is_configured(tmp_path: Path) -> None:
    done = in_gone_dir(tmp_path, "run", "-t", "x")
    assert (done.returncode, done.stderr) == (2, GONE)


@pytest.mark.parametrize("args", [("sessions", "list"), ("sessions", "show", "kept"),
                                  ("compact", "kept", "--dry-run"), ("extensions", "list"),
                                  ("run", "--resume", "kept", "-t", "again")])
def test_a_command_that_does_not_need_it_keeps_working(
        kept: str, tmp_path: Path, args: tuple[str, ...]) -> None:
    done = in_gone_dir(tmp_path, *args)
    assert "Traceback" not in done.stderr and "no longer exists" not in done.stderr
    if args[0] == "sessions":
        assert done.returncode == 0 and "first" in done.stdout
    if args[0] == "run":  # the session runs in its own working dir, which exists
        assert done.returncode == 0 and done.stdout == "ok\n"



@pytest.mark.parametrize("args", [("extensions", "list"), ("extensions", "list", "--json"),
                                  ("extensions", "list", "--with-extension", "SERVER")])
def test_extensions_list_with_extensions_says_it_is_gone(
        isolated_env: dict[str, Path], tmp_path: Path, args: tuple[str, ...]) -> None:
    # The servers would start in the current directory: none starts, and the line is the same.
    started = tmp_path / "started"
    server = f"touch {shlex.quote(str(started))}; exec {sys.executable} {DEMO_SERVER}"
    isolated_env["config"].write_text(
        f'[extensions.demo]\ncmd = "sh"\nargs = ["-c", {json.dumps(server)}]\n')
    spec = f"sh -c {shlex.quote(server)}"
    done = in_gone_dir(tmp_path, *(spec if a == "SERVER" else a for a in args))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", GONE)
    assert not started.exists()
