"""A raw stdio MCP server whose replies hold bytes that are not UTF-8, lone surrogate escapes
or a line that cannot be read at all: the call answers at once, never waits for its timeout."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest

from goosectx.extensions.config import ExtensionConfig
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.model import CallOutcome

RAW_SERVER = r'''
import json, sys
out = sys.stdout.buffer
def send(raw):
    out.write(raw + b"\n"); out.flush()
TOOLS = [{"name": n, "description": n, "inputSchema": {"type": "object", "properties": {}}}
         for n in ("latin", "surr", "broken", "ok")]
for line in sys.stdin.buffer:
    m = json.loads(line); i = m.get("id"); meth = m.get("method")
    head = b'{"jsonrpc":"2.0","id":%d,"result":' % (i if isinstance(i, int) else 0)
    if meth == "initialize":
        send(json.dumps({"jsonrpc": "2.0", "id": i, "result": {
            "protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"}}}).encode())
    elif meth == "tools/list":
        send(json.dumps({"jsonrpc": "2.0", "id": i, "result": {"tools": TOOLS}}).encode())
    elif meth == "tools/call":
        name = m["params"]["name"]
        if name == "latin":
            send(head + b'{"content":[{"type":"text","text":"caf\xe9\xff end"}]}}')
        elif name == "surr":
            send(head + b'{"content":[{"type":"text","text":"A\\ud800B\\udfffC \\ud83d\\ude00"}]}}')
        elif name == "broken":
            send(head + b'{"content":[{"type":"text","text":"cut')
        else:
            send(head + b'{"content":[{"type":"text","text":"fine"}]}}')
    elif i is not None:
        send(json.dumps({"jsonrpc": "2.0", "id": i, "result": {}}).encode())
'''


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtensionManager]:
    work = tmp_path_factory.mktemp("raw")
    script = work / "raw_server.py"
    script.write_text(RAW_SERVER)
    mgr = ExtensionManager([ExtensionConfig("rawsrv", "stdio", cmd=sys.executable,
                                            args=(str(script),), timeout_s=20.0,
                                            startup_timeout_s=60.0)], work)
    mgr.start()
    mgr.wait_ready()
    yield mgr
    mgr.stop_all()


def timed_call(mgr: ExtensionManager, model_name: str) -> tuple[CallOutcome, float]:
    found = mgr.find_tool(model_name)
    assert found is not None, f"{model_name} not offered"
    t0 = time.monotonic()
    outcome = mgr.call_tool(found[0], found[1], {})
    return outcome, time.monotonic() - t0


def test_a_reply_with_bytes_not_utf8_reaches_the_model_with_replacement_characters(
        raw: ExtensionManager) -> None:
    outcome, took = timed_call(raw, "rawsrv__latin")
    assert outcome == CallOutcome("caf\ufffd\ufffd end")
    assert took < 10


def test_lone_surrogate_escapes_become_replacement_characters_and_pairs_stay(
        raw: ExtensionManager) -> None:
    outcome, took = timed_call(raw, "rawsrv__surr")
    assert outcome == CallOutcome("A\ufffdB\ufffdC \U0001F600")
    assert took < 10


def test_a_reply_that_cannot_be_read_fails_the_call_at_once_naming_the_extension(
        raw: ExtensionManager) -> None:
    outcome, took = timed_call(raw, "rawsrv__broken")
    assert outcome.is_error and took < 10
    assert outcome.text.startswith(
        "rawsrv__broken failed: extension rawsrv sent a reply that could not be read")
    assert "timed out" not in outcome.text
    assert timed_call(raw, "rawsrv__ok")[0] == CallOutcome("fine")  # the server goes on
