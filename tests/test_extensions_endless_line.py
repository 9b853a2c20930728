"""An MCP server whose reply is one line that never ends: capped, the call fails, no runaway.

goosectx kept the line growing without a bound (450 MB, a core busy re-copying it until the
call's 300 s timeout), and after Ctrl-C went on reading it at the idle prompt. Now a line past
the cap fails the call it answers with a clear error and stops the server; the reply to a
cancelled call is dropped as it arrives. The cap is made small here (a few MB) so the test
streams little; the behaviour is the 64 MiB one.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from goosectx.extensions import stdout_lines
from goosectx.extensions.config import ExtensionConfig
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.stdout_lines import Lines

ENDLESS_SERVER = r'''
import json, sys, time
out = sys.stdout
def send(o):
    out.write(json.dumps(o) + "\n"); out.flush()
TOOLS = [{"name": n, "description": n, "inputSchema": {"type": "object", "properties": {}}}
         for n in ("flood", "ok")]
for line in sys.stdin:
    m = json.loads(line); i = m.get("id"); meth = m.get("method")
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": i, "result": {
            "protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "endless", "version": "1"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": i, "result": {"tools": TOOLS}})
    elif meth == "tools/call" and m["params"]["name"] == "ok":
        send({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": "fine"}]}})
    elif meth == "tools/call":
        open(sys.argv[1], "w").close()
        out.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % json.dumps(i))
        while True:  # never ends, ignores the cancel
            out.write("A" * 65536); out.flush()
            with open(sys.argv[1], "a") as f:
                f.write(".")
            time.sleep(0.02)
    elif i is not None:
        send({"jsonrpc": "2.0", "id": i, "result": {}})
'''
CAP = 4 * 1024 * 1024


@pytest.fixture
def endless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ExtensionManager]:
    monkeypatch.setattr(stdout_lines, "LINE_LIMIT_BYTES", CAP)
    monkeypatch.setattr(stdout_lines, "SKIPPED_CHECK_BYTES", 256 * 1024)
    script = tmp_path / "endless.py"
    script.write_text(ENDLESS_SERVER)
    sent = tmp_path / "sent"
    config = ExtensionConfig("endless", "stdio", cmd=sys.executable, args=(str(script), str(sent)), timeout_s=60.0,
                             startup_timeout_s=60.0)
    mgr = ExtensionManager([config], tmp_path)
    mgr.start()
    mgr.wait_ready()
    yield mgr
    mgr.stop_all()


def _status(mgr: ExtensionManager) -> tuple[str, str | None]:
    status = mgr.statuses()[0]
    return status.status, status.error


def test_a_reply_line_past_the_cap_fails_the_call_and_stops_the_server(
        endless: ExtensionManager) -> None:
    found = endless.find_tool("endless__flood")
    assert found is not None
    t0 = time.monotonic()
    outcome = endless.call_tool(found[0], found[1], {})
    assert time.monotonic() - t0 < 30  # (not the call's 60 s timeout)
    assert outcome.is_error
    assert "line over 4 MiB" in outcome.text and "stopped" in outcome.text, outcome.text
    deadline = time.monotonic() + 10
    while _status(endless)[0] != "failed" and time.monotonic() < deadline:
        time.sleep(0.05)
    state, error = _status(endless)
    assert state == "failed" and "line over 4 MiB on stdout" in (error or "")


def test_a_cancelled_calls_endless_reply_is_dropped_and_the_server_stopped_at_the_cap(
        endless: ExtensionManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skipped: list[int] = []
    feed = Lines.feed

    def spied(self: Lines, chunk: bytes) -> list[bytes]:
        done = feed(self, chunk)
        skipped.append(len(self._pending) if self._skipping else -1)
        return done

    monkeypatch.setattr(Lines, "feed", spied)
    found = endless.find_tool("endless__flood")
    assert found is not None
    cancel = threading.Event()

    def cancel_once_streaming() -> None:  # (Ctrl-C once the reply is arriving)
        while not (tmp_path / "sent").exists() or not os.path.getsize(tmp_path / "sent"):
            time.sleep(0.01)
        cancel.set()

    threading.Thread(target=cancel_once_streaming, daemon=True).start()
    outcome = endless.call_tool(found[0], found[1], {}, cancel=cancel)
    assert outcome.text == "cancelled"
    deadline = time.monotonic() + 30  # it streams on, ignoring the cancel: read no longer
    while _status(endless)[0] != "failed" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _status(endless)[0] == "failed"
    assert 0 in skipped  # its reply was dropped as it came (nothing kept), not buffered
    chunks = os.path.getsize(tmp_path / "sent")
    time.sleep(0.5)  # the server is gone: it writes nothing more
    assert os.path.getsize(tmp_path / "sent") == chunks


def test_lines_split_over_chunks_are_read_whole_and_in_order() -> None:
    lines = Lines()
    data = b'{"a":1}\n\n{"b":' + b"x" * 100_000 + b'}\nnoise\n{"c":3'
    got = [line for i in range(0, len(data), 7) for line in lines.feed(data[i:i + 7])]
    assert got == [b'{"a":1}', b"", b'{"b":' + b"x" * 100_000 + b"}", b"noise"]
    assert lines.feed(b"}\n") == [b'{"c":3}'] and lines.overlong is None


def test_a_line_past_the_cap_is_dropped_and_answers_its_request_with_an_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdout_lines, "LINE_LIMIT_BYTES", 1000)
    lines = Lines()
    lines.feed(b'{"jsonrpc":"2.0","id":7,"result":{"content":"' + b"A" * 600)
    assert lines.overlong is None
    lines.feed(b"A" * 600)
    assert lines.overlong is not None and "line over" in lines.overlong
    failed = lines.failed_reply()
    assert failed is not None
    dumped = failed.message.model_dump()
    assert dumped["id"] == 7 and "never ended" in dumped["error"]["message"]


def test_a_cancelled_requests_reply_is_skipped_to_its_end_and_the_next_line_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdout_lines, "SKIPPED_CHECK_BYTES", 100)
    lines = Lines()
    lines.cancelled('{"jsonrpc":"2.0","method":"notifications/cancelled",'
                    '"params":{"requestId":3}}')
    assert lines.feed(b'{"jsonrpc":"2.0","id":3,"result":{"x":"' + b"A" * 200) == []
    assert lines.feed(b"A" * 5000) == []
    assert lines.feed(b'"}}\n{"jsonrpc":"2.0","id":4,"result":{}}\n') == [
        b'{"jsonrpc":"2.0","id":4,"result":{}}']
    assert lines.overlong is None


def test_after_a_skipped_reply_the_next_cancelled_reply_is_skipped_too(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdout_lines, "SKIPPED_CHECK_BYTES", 100)
    lines = Lines()
    for request in (3, 4):
        lines.cancelled(json.dumps({"method": "notifications/cancelled",
                                    "params": {"requestId": request}}))
    lines.feed(b'{"jsonrpc":"2.0","id":3,"result":{"x":"' + b"A" * 200)
    lines.feed(b'"}}\n{"jsonrpc":"2.0","id":4,"result":{"x":"' + b"B" * 200)
    assert lines.feed(b"B" * 200) == [] and not lines._pending  # dropped, not kept
    assert lines.feed(b'"}}\n{"id":5}\n') == [b'{"id":5}']

