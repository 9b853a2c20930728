"""Run goosectx held at a test pause point while a test changes the world, then let it go.

The races of "check one file, read or write another" are made exact with the pause points of
:mod:`goosectx.testhooks`: the process stops at ``point``, the test calls ``swap()``, and the
process goes on. :func:`tool_result_after_swap` runs one tool call that way and returns what
the model was sent; :func:`ssh_key` puts a key outside the project for a swap to lead to.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fakeserver import FakeServer

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- TOPSECRET-KEYDATA"
"""The text of the key :func:`ssh_key` writes."""
REFUSED = "changed after this call was checked"
"""In a tool result refused because its path was swapped after the check."""


def run_paused_at(point: str, argv: Sequence[str], swap: Callable[[], None], *, cwd: Path,
                  tmp_path: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``argv`` held at the pause point ``point`` while ``swap()`` runs; its exit, out, err."""
    marker = tmp_path / "paused"
    full_env = {**os.environ, **(env or {}), "GOOSECTX_TEST_PAUSE_AT": point,
                "GOOSECTX_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen(list(argv), env=full_env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    swap()
    marker.unlink()
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def replace_with(path: Path, make: Any) -> None:
    """Put what ``make(tmp)`` creates at ``path`` with one rename, as a flipping job does."""
    tmp = path.with_name("n.tmp")
    make(tmp)
    os.replace(tmp, path)


def tool_result_after_swap(server: FakeServer, call: dict[str, Any], point: str,
                           swap: Callable[[], None], *, work: Path, tmp_path: Path, task: str,
                           options: Sequence[str] = (), env: dict[str, str] | None = None) -> Any:
    """``goosectx run -t TASK OPTIONS`` making the one tool ``call``, ``swap()`` run at ``point``.

    Returns the call's result as the model was sent it (the second request's tool message).
    """
    server.add({"tool_calls": [call]}, {"text": "done"})
    code, _out, err = run_paused_at(
        point, [sys.executable, "-m", "goosectx", "run", "-t", task, *options], swap,
        cwd=work, tmp_path=tmp_path, env=env)
    assert code == 0, err
    tool_messages = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    return tool_messages[0]["content"]


def ssh_key(tmp_path: Path) -> Path:
    """``~/.ssh/id_rsa`` holding :data:`SECRET`, ``~`` being ``tmp_path / "home"``."""
    key = tmp_path / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text(SECRET + "\n")
    return key
