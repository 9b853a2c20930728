"""Output cut by a closed pipe (``goosectx sessions list | head -1``): exit 141, silently.

click and rich each turned the broken pipe into exit 1 (nothing said); 141 is what a shell
reports for a command killed by SIGPIPE, as other CLIs exit.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer


@pytest.fixture
def kept(fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str]) -> str:
    fake_model.default_reply = {"text": "ok " * 200}
    cli(capsys, "run", "--name", "kept", "-t", "first")
    return "kept"


@pytest.mark.parametrize("args", [("sessions", "list"), ("sessions", "show", "kept"),
                                  ("sessions", "export", "kept", "-f", "md"),
                                  ("sessions", "export", "kept", "-f", "json"), ("info",)])
def test_a_closed_output_pipe_exits_141_silently(kept: str, workdir: Path,
                                                 args: tuple[str, ...]) -> None:
    proc = subprocess.Popen(["goosectx", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=workdir, env={**os.environ}, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first write (head -1 after its line)
    err = proc.stderr.read()
    proc.stderr.close()
    assert (proc.wait(timeout=120), err) == (141, "")
