"""Helpers for tests that run the SDK-written test MCP server (tests/mcp_servers/)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from goosectx.extensions.config import ExtensionConfig

DEMO_SERVER = Path(__file__).parent / "mcp_servers" / "demo_server.py"


def demo_config(name: str = "demo", *extra: str, **settings: object) -> ExtensionConfig:
    """A stdio extension running the demo server (``extra`` = more arguments)."""
    return ExtensionConfig(name, "stdio", cmd=sys.executable,
                           args=(str(DEMO_SERVER), "--name", name, *extra),
                           startup_timeout_s=float(settings.pop("startup_timeout_s", 60.0)),
                           **settings)  # type: ignore[arg-type]


def demo_spec(*extra: str) -> str:
    """A ``--with-extension`` spec running the demo server."""
    return " ".join([sys.executable, str(DEMO_SERVER), *extra])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpDemo:
    """The demo server (or ``script``) over streamable HTTP on 127.0.0.1 (own process group)."""

    def __init__(self, script: Path = DEMO_SERVER, *extra: str) -> None:
        """``script`` (another server taking ``--http PORT``) with ``extra`` arguments."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        extra = extra if script != DEMO_SERVER else ("--name", "web", *extra)
        self.proc = subprocess.Popen(
            [sys.executable, str(script), "--http", str(self.port), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the HTTP demo server did not start")

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True
