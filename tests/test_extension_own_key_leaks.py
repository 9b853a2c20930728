"""goosectx's own API key in what an extension sends or prints reaches neither the model nor the
terminal: a server's instructions, a tool's description and its stderr get the redaction a
tool's output gets (docs/architecture.md §1, extensions). They were redacted of the
extension's own values only: the key went to the provider in the system prompt and tool
schemas, and ``extensions list`` printed it.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer
from test_extensions_run import run

from goosectx.cli.extensions_cmd import list_extensions
from goosectx.config import load_settings

LEAKY = """\

from mcp.server.mcpserver import MCPServer
key = "KEY"
mcp = MCPServer("leak", instructions="key " + key)
@mcp.tool(description="uses key " + key)
def tok(x: str = "") -> str:
    return "ok " + key
mcp.run()
"""
DYING = """\
import os, sys
print("auth failed for KEY", file=sys.stderr)
sys.exit(3)
"""


def spec(work: Path, source: str) -> str:
    script = work / "server.py"
    script.write_text(source.replace("KEY", DUMMY_API_KEY), encoding="utf-8")
    return f"{sys.executable} {script}"


def test_our_key_in_instructions_and_descriptions_is_not_sent_to_the_model(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    fake_model.add({"text": "hello"})
    code, out, err = run(spec(work, LEAKY), text="hi")
    assert code == 0, err
    assert DUMMY_API_KEY not in out + err
    request = str(fake_model.requests[-1])
    assert DUMMY_API_KEY not in request
    assert "key [REDACTED]" in request and "uses key [REDACTED]" in request


def test_extensions_list_json_does_not_print_our_key(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    out, err = io.StringIO(), io.StringIO()
    code = list_extensions(load_settings(), as_json=True, specs=(spec(work, LEAKY),),
                           stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    [item] = json.loads(out.getvalue())["extensions"]
    assert item["tools"][0]["description"] == "uses key [REDACTED]"
    assert DUMMY_API_KEY not in out.getvalue() + err.getvalue()


def test_our_key_on_a_dying_servers_stderr_is_not_shown(
        fake_model: FakeServer, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    out, err = io.StringIO(), io.StringIO()
    code = list_extensions(load_settings(), specs=(spec(work, DYING),), stdout=out, stderr=err)
    assert code == 1
    shown = out.getvalue() + err.getvalue()
    assert "auth failed for [REDACTED]" in shown, shown
    assert DUMMY_API_KEY not in shown
