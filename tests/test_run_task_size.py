"""``goosectx run`` reads at most 16 MB of task: an endless or huge source is one line, exit 2.

``run -i /dev/zero`` (any device, a huge log) and ``yes | goosectx run`` read the task whole:
a 49-line MemoryError traceback under a memory limit, the OOM killer without one (it took
the machine's memory). Run here under a memory limit, so a regression fails, not the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from fakeserver import FakeServer

LIMIT_AS_BYTES = 1_500 * 2**20


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS_BYTES, LIMIT_AS_BYTES))


def _run(server: FakeServer, cwd: Path, *args: str,
         stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOOSE_MODEL": FAKE_MODEL, "OPENAI_API_BASE": server.base_url,
           "OPENAI_API_KEY": "sk-dummy-key", "GOOSECTX_HOME": str(cwd / "data")}
    return subprocess.run([sys.executable, "-m", "goosectx", "run", *args], env=env, cwd=cwd,
                          stdin=stdin, capture_output=True, text=True, timeout=120,
                          preexec_fn=_limit_memory)


def _refused(proc: subprocess.CompletedProcess[str], what: str, server: FakeServer) -> None:
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.startswith(f"goosectx: error: {what} holds more than 16 MB"), proc.stderr
    assert server.requests == []


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_task_file_that_never_ends_is_refused_in_one_line(fake_server: FakeServer,
                                                            work: Path) -> None:
    _refused(_run(fake_server, work, "-i", "/dev/zero"), "task file /dev/zero", fake_server)


def test_an_endless_pipe_as_the_task_is_refused_in_one_line(fake_server: FakeServer,
                                                            work: Path) -> None:
    for args in ((), ("-i", "-")):
        yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert yes.stdout is not None
            proc = _run(fake_server, work, *args, stdin=yes.stdout.fileno())
        finally:
            yes.kill()
            yes.wait()
            assert yes.stdout is not None
            yes.stdout.close()
        _refused(proc, "the task on standard input", fake_server)


def test_a_large_task_under_the_cap_is_still_sent(fake_server: FakeServer, work: Path) -> None:
    big = work / "task.md"
    big.write_text("fix this\n" + "x" * 2**20 + "\n")
    fake_server.add({"text": "ok"})
    proc = _run(fake_server, work, "-i", str(big))
    assert proc.returncode == 0, proc.stderr
    assert "x" * 1000 in str(fake_server.requests[-1]["messages"][-1]["content"])
