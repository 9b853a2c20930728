"""``run --output-format json|stream-json`` ends with its result object on every error.

A script reading stdout (``… | jq -e .status``) got the result object for an exit-1 failure
(no such session) but nothing at all for an exit-2 one: a task on stdin that is not UTF-8 or
empty, ``--max-turns 0``, a bad ``GOOSE_CONTEXT_LIMIT`` (README: stream-json writes "last
exactly one" ``result`` line).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeServer

FAILURES = {
    "stdin not UTF-8": ((b"bad \xff\n"), ("-t", "look"), {}),
    "empty piped task": (b"", (), {}),
    "--max-turns 0": (None, ("-t", "x", "--max-turns", "0"), {}),
    "bad GOOSE_CONTEXT_LIMIT": (None, ("-t", "x"), {"GOOSE_CONTEXT_LIMIT": "5"}),
}


def strict(line: str) -> Any:
    value = json.loads(line)
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # no lone surrogate (as jq reads)
    return value


def run(workdir: Path, stdin: bytes | None, args: tuple[str, ...],
        env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["goosectx", "run", *args], input=stdin,
                          stdin=subprocess.DEVNULL if stdin is None else None,
                          capture_output=True, cwd=workdir, env={**os.environ, **env})
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(),
                                       proc.stderr.decode())


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
@pytest.mark.parametrize("case", list(FAILURES))
def test_an_exit_2_error_still_ends_with_the_result_object(
        fake_model: FakeServer, workdir: Path, case: str, output_format: str) -> None:
    stdin, args, env = FAILURES[case]
    proc = run(workdir, stdin, (*args, "--output-format", output_format), env)
    (error,) = [line for line in proc.stderr.splitlines() if line.startswith("goosectx: error: ")]
    assert proc.returncode == 2, proc.stderr
    lines = proc.stdout.splitlines()
    if output_format == "json":
        result = strict(proc.stdout)
    else:
        assert [strict(line)["type"] for line in lines] == ["result"]  # no turn began
        result = strict(lines[-1])
    assert (result["status"], result["exit_code"]) == ("error", 2)
    assert result["error"] == error.removeprefix("goosectx: error: ")
    assert fake_model.requests == []  # nothing was sent


def test_an_error_the_run_reports_itself_writes_one_result(
        fake_model: FakeServer, workdir: Path) -> None:
    fake_model.default_reply = {"text": "ok"}
    assert run(workdir, None, ("--name", "taken", "-t", "x"), {}).returncode == 0
    proc = run(workdir, None, ("--name", "taken", "-t", "y", "--output-format", "stream-json"),
               {})
    assert proc.returncode != 0
    assert [strict(line)["type"] for line in proc.stdout.splitlines()] == ["result"]


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_an_error_mid_turn_keeps_stdout_json_and_says_the_error_once(
        fake_model: FakeServer, workdir: Path, output_format: str) -> None:
    """A turn an error ends stores a user-only "The turn stopped: …" notice: stdout stays one
    JSON object (json) or JSON lines ending in one ``result`` (stream-json); the error is the
    result's ``error`` field and one stderr line, the notice a message the model never sees."""
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "echo hi"}}]},
                   {"error": "auth"})
    proc = run(workdir, None, ("-t", "do it", "--mode", "auto", "--output-format",
                               output_format), {})
    errors = [line for line in proc.stderr.splitlines() if line.startswith("goosectx: error: ")]
    assert proc.returncode == 1 and len(errors) == 1, proc.stderr
    said = errors[0].removeprefix("goosectx: error: ")
    assert "rejected the API key" in said
    if output_format == "json":
        result = strict(proc.stdout)
        assert result["answer"] == "" and result["notices"] == []
        messages = result["messages"]
    else:
        lines = [strict(line) for line in proc.stdout.splitlines()]
        assert [line["type"] for line in lines].count("result") == 1
        assert [line["type"] for line in lines[-2:]] == ["turn_finished", "result"]
        result = lines[-1]
        messages = [line["message"] for line in lines if line["type"] == "message_completed"]
    assert (result["status"], result["exit_code"], result["error"]) == ("error", 1, said)
    (notice,) = [m for m in messages if m["metadata"].get("extra", {}).get("turn_error")]
    assert notice["content"][0]["text"] == f"The turn stopped: {said}"
    assert notice["metadata"]["agent_visible"] is False
    assert messages[-1] is notice  # the turn's last message; nothing after it
