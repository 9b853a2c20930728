"""A model streaming one chunk over and over: litellm stops the stream (its repetition check).

Before: 100 identical chunks ("0, " × 400, asked for) ended the answer with "the model's
stream could not be read … — check that api_base is …", the REPL framed the kept part
"cancelled" and the model was later told the user had interrupted it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fakeserver import FakeServer


def goosectx(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "PROMPT_TOOLKIT_NO_CPR": "1"}
    return subprocess.run([sys.executable, "-m", "goosectx", *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_a_long_run_of_one_value_that_was_asked_for_is_answered_whole(
        fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "0, " * 400, "chunk_chars": 3})
    proc = goosectx("run", "-t", "print 400 zeros")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("0,") == 400
    assert "error" not in proc.stderr


def test_a_model_stuck_on_one_chunk_is_stopped_with_an_error_that_says_so(
        fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "0, " * 1500, "chunk_chars": 3}, {"text": "fine"})
    proc = goosectx("run", "--name", "zeros", "-t", "print zeros")
    assert proc.returncode == 1
    (line,) = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert line == ("goosectx: error: the model sent the same piece of its answer ('0, ') "
                    "1,000 times in a row, so goosectx stopped it (what came is kept) — try "
                    "again, or another model (/model, --model); if the repetition was meant, raise "
                    "REPEATED_STREAMING_CHUNK_LIMIT (now 1,000) in the environment")
    assert proc.stdout.startswith("0, 0, ")
    # the next request tells the model its answer was cut by that error, not by the user
    assert goosectx("run", "--resume", "zeros", "-t", "go on").returncode == 0
    (cut,) = [m["content"] for m in fake_model.requests[-1]["messages"]
              if m["role"] == "assistant"]
    assert "interrupted by the user" not in str(cut)
    assert str(cut).endswith("[cut off: the reply stopped on an error]")
    shown = goosectx("sessions", "show", "zeros").stdout
    assert "(stopped by an error)" in shown and "cancelled" not in shown


def test_the_repl_frames_the_kept_part_as_stopped_by_an_error_not_cancelled(
        fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "0, " * 1500, "chunk_chars": 3})
    proc = goosectx(stdin="print zeros\n/exit\n")
    assert "-- (stopped by an error)" in proc.stdout, proc.stdout[-800:]
    assert "cancelled" not in proc.stdout
    assert "the model sent the same piece of its answer" in proc.stdout + proc.stderr
