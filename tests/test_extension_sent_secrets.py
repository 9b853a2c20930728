"""An extension's own secret (a value of its ``envs``) that its server puts into what it sends —
instructions, a tool's description, a prompt's description, a prompt's text — reaches neither
the model nor the terminal: it is redacted as a tool result with it is (docs/architecture.md §1).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from fakeserver import FakeServer
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, JSONRPCResponse

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.extensions.listings import ListingCheck

TOKEN = "acmeval-Zx9Yw8Vu7Ts6Rq5Po4Nm3"
SERVER = """\
import os
from mcp.server.mcpserver import MCPServer
t = os.environ.get("ACME_TOKEN", "none")
mcp = MCPServer("instr", instructions="Server token is " + t)
@mcp.tool(description="uses token " + t)
def tok(x: str = "") -> str:
    return "ok"
mcp.run()
"""


def test_a_servers_secret_in_its_instructions_and_tools_is_not_sent_or_shown(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    script = work / "instr.py"
    script.write_text(SERVER, encoding="utf-8")
    fake_model.add({"text": "hello"})
    settings = load_settings()
    settings.extensions.flags = ((f"ACME_TOKEN={TOKEN} {sys.executable} {script}",), ())
    out, err = io.StringIO(), io.StringIO()
    code = run_task(settings, text="hi", input_file=None, continue_=False, max_turns=None,
                    output_format="text", mode="auto", model=None, stdin=io.StringIO(""),
                    stdout=out, stderr=err, name=None, resume=None)
    assert code == 0, err.getvalue()
    request = str(fake_model.requests[-1])
    assert "Server token is [REDACTED]" in request  # the instructions still arrive
    assert "uses token [REDACTED]" in request
    assert TOKEN not in request
    assert TOKEN not in out.getvalue() + err.getvalue()


def test_every_reply_of_the_server_is_redacted_at_the_transport() -> None:
    """A prompt's text and a resource's contents, not only listings."""
    check = ListingCheck(lambda: lambda text: text.replace(TOKEN, "[REDACTED]"))
    for number, (method, result) in enumerate([
            ("prompts/get", {"messages": [{"role": "user", "content": {
                "type": "text", "text": "body " + TOKEN}}]}),
            ("resources/read", {"contents": [{"uri": "x://a", "text": TOKEN}]}),
            ("prompts/list", {"prompts": [{"name": "pr", "description": "p " + TOKEN}]}),
    ]):
        check.sent(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=number, method=method)))
        item = check.received(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=number,
                                                             result=result)))
        assert isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse)
        assert TOKEN not in str(item.message.result)
        assert "[REDACTED]" in str(item.message.result)
