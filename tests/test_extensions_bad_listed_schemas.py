"""A tool whose input schema the MCP SDK rejects is skipped; the server's other tools work.

One tool listed with ``inputSchema`` ``{"type": "string"}`` or ``{}`` made the whole server
fail ("demo: failed · ValidationError: 2 validation errors for ListToolsResult", naming no
tool): the SDK checks a ``tools/list`` result whole. README (Extensions > Commands): such a
tool is listed under skipped tools and never offered.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from cli_support import run_cli
from extension_support import demo_config, demo_spec

from goosectx.extensions.manager import ExtensionManager


def test_the_server_runs_and_skips_the_tools_the_sdk_rejects(tmp_path: Path) -> None:
    manager = ExtensionManager([demo_config("demo", "--bad-schemas")], tmp_path)
    try:
        manager.start()
        manager.wait_ready()
        (status,) = manager.statuses()
        notices = manager.drain_notices()
        found = manager.find_tool("demo__echo")
        assert found is not None
        outcome = manager.call_tool(*found, {"text": "still works"}, threading.Event(), None)
    finally:
        manager.stop_all()
    assert status.status == "ready", status.error
    offered = {t.model_name for t in status.tools}
    assert "demo__echo" in offered and not offered & {"demo__bad_string", "demo__bad_empty"}
    assert "bad_string: its input schema has type 'string', not 'object'" in status.skipped
    assert any(s.startswith("bad_empty: its input schema is not an MCP object schema")
               for s in status.skipped)
    assert ("extension demo: tool bad_string: its input schema has type 'string', not "
            "'object'; skipped") in notices
    assert (outcome.text, outcome.is_error) == ("still works", False)


def test_extensions_list_names_the_skipped_tools(capsys: pytest.CaptureFixture[str]) -> None:
    code, listed, _err = run_cli(capsys, "extensions", "list", "--with-extension",
                                 demo_spec("--bad-schemas"))
    assert code == 0, listed
    assert "failed" not in listed
    assert "bad_string" in listed and "bad_empty" in listed
    assert "ValidationError" not in listed
