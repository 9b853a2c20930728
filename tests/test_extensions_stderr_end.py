"""The end of a dying server's stderr, quoted in the call's error and the notice.

It was its last 3 lines cut at 300 characters: a log wrapped by the server's logger (rich
wraps at 80 columns) was quoted from mid-word with nothing saying lines were left out
("stderr: s#tool-names) for more | details. | last words…"), and a long last line was
cut anywhere in its start.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from extension_support import demo_spec
from fakeserver import FakeServer
from test_extensions_run import call, run, stored_pairs


def crash_error(fake_model: FakeServer, log: str) -> str:
    fake_model.add(call("demo__crash", {"log": log}, "c1"), {"text": "end"})
    code, _out, err = run(demo_spec())
    assert code == 0, err
    lines = err.splitlines()
    started = next(i for i, line in enumerate(lines) if line.startswith("> demo__crash"))
    return lines[started + 1]


def test_the_quoted_end_of_a_wrapped_log_says_earlier_lines_were_left_out(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    wrapped = ("WARNING  See SEP-986 (https://modelcontextpr\n"
               "         otocol.io/specification/2025-11-25/server/tool\n"
               "         s#tool-names) for more\n         details.\n")
    error = crash_error(fake_model, wrapped)
    assert error.endswith("(exited with code 7 — stderr: … s#tool-names) for more | details. | "
                          "demo server: crashing on purpose)"), error


def test_a_long_last_line_keeps_its_end_after_a_marked_cut(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    words = " ".join(f"word{n}" for n in range(100))
    crash_error(fake_model, f"short line\n{words} ")
    [(_request, response)] = stored_pairs()  # what the model got (run's line is clipped)
    quoted = response.output.split(" — stderr: ", 1)[1].removesuffix(")")
    assert quoted.startswith("…") and len(quoted) == 300, quoted
    assert quoted.endswith("word99 demo server: crashing on purpose")
