"""Output cut by a closed pipe (``goosectx sessions list | head -1``): exit 141, silently.

click and rich each turned the broken pipe into exit 1 (nothing said); 141 is what a shell
reports for a command killed by SIGPIPE, as other CLIs exit.
"""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("output_format", ["text", "stream-json", "json"])
def test_run_whose_output_pipe_closes_saves_the_answer_and_says_so(
        fake_model: FakeServer, workdir: Path, output_format: str) -> None:
    # `goosectx run -t … | head -c 20`: the reader leaves while the answer streams. The answer,
    # paid for, was not saved (exit 0 or 141, nothing said); a --resume then went on after an
    # unanswered request.
    fake_model.default_reply = {"text": "word " * 300}
    proc = subprocess.Popen(["goosectx", "run", "--name", "cut", "-t", "x", "--output-format",
                             output_format], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=workdir, env={**os.environ}, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    code = proc.wait(timeout=120)
    errors = [line for line in err.splitlines() if line.startswith("goosectx: error:")]
    assert code == 141 and len(errors) == 1, err
    assert "output pipe was closed" in errors[0] and "saved" in errors[0], err
    shown = subprocess.run(["goosectx", "sessions", "export", "cut", "-f", "json", "-o", "-"],
                           capture_output=True, cwd=workdir, env={**os.environ}, text=True)
    messages = json.loads(shown.stdout)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"][0]["text"] == "word " * 300
