"""End to end: while the prompt waits for input, a server that fails to start says so, and one
that starts reports what it skipped — without a key pressed (the real binary in a pty)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from test_e2e_pty import TIMEOUT_S, _env

pexpect = pytest.importorskip("pexpect")

DEMO_SERVER = Path(__file__).parent / "mcp_servers" / "demo_server.py"


@pytest.mark.slow
def test_extension_failures_and_readiness_show_while_the_prompt_waits(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    demo = shlex.join([sys.executable, str(DEMO_SERVER)])
    child = pexpect.spawn(
        "goosectx", ["session", "--name", "ext", "--with-extension", demo,
                     "--with-extension", str(tmp_path / "no-such-server")],
        cwd=str(work), env=_env(tmp_path, "http://127.0.0.1:9"), dimensions=(30, 110),
        encoding="utf-8", timeout=TIMEOUT_S)
    try:
        child.expect("❯")
        child.expect("extension no-such could not start: ")  # no key pressed yet
        child.expect("not found")  # after its path (which may wrap)
        child.expect(r"extension demo: tool bad_schema[^\r\n]*skipped")  # once it is up
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
