"""A bad resource or prompt in a listing is skipped, named with why; the server stays usable.

The MCP SDK checks a ``resources/list`` or ``prompts/list`` result whole: one resource without
a name or one prompt whose arguments are not a list failed the whole extension. Each entry is
now checked alone, as tools are (tests/test_extensions_bad_listed_schemas.py). The server is
written with the SDK's low-level server API (tests/mcp_servers/listing_server.py); its tools
come in two pages and one of them declares an output schema, which still checks its results.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli
from extension_support import HttpDemo

from goosectx.extensions.config import ExtensionConfig
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.model import ExtensionStatus

LISTING_SERVER = Path(__file__).parent / "mcp_servers" / "listing_server.py"


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[ExtensionManager, ExtensionStatus, list[str]]]:
    config = ExtensionConfig("lists", "stdio", cmd=sys.executable, args=(str(LISTING_SERVER),),
                             startup_timeout_s=60.0)
    manager = ExtensionManager([config], tmp_path_factory.mktemp("lists"))
    try:
        manager.start()
        manager.wait_ready()
        (status,) = manager.statuses()
        yield manager, status, manager.drain_notices()
    finally:
        manager.stop_all()


def test_the_server_is_ready_with_its_good_entries(
        started: tuple[ExtensionManager, ExtensionStatus, list[str]]) -> None:
    _manager, status, _notices = started
    assert status.status == "ready", status.error
    assert [t.name for t in status.tools] == ["echo", "weather"]
    assert [r.name for r in status.resources] == ["notes"]
    assert [p.name for p in status.prompts] == ["review"]


def test_each_bad_entry_is_named_with_why(
        started: tuple[ExtensionManager, ExtensionStatus, list[str]]) -> None:
    _manager, status, notices = started
    assert status.skipped == ("bad_string: its input schema has type 'string', not 'object'",)
    assert status.skipped_resources == (
        "file:///nameless.txt: its listing is not valid MCP (name: Field required)",)
    assert status.skipped_prompts == (
        "broken: its listing is not valid MCP (arguments: Input should be a valid list)",)
    assert ("extension lists: resource file:///nameless.txt: its listing is not valid MCP "
            "(name: Field required); skipped") in notices
    assert ("extension lists: prompt broken: its listing is not valid MCP (arguments: Input "
            "should be a valid list); skipped") in notices
    assert ("extension lists: tool bad_string: its input schema has type 'string', not "
            "'object'; skipped") in notices


def test_the_good_resource_prompt_and_tools_work(
        started: tuple[ExtensionManager, ExtensionStatus, list[str]]) -> None:
    manager, _status, _notices = started
    read = manager.read_resource("lists", "file:///notes.txt")
    prompt = manager.get_prompt("lists", "review", {"code": "x = 1"})
    echo = manager.find_tool("lists__echo")
    assert echo is not None
    echoed = manager.call_tool(*echo, {"text": "still works"}, threading.Event(), None)
    assert (read.text, read.is_error) == ("the notes say: ship it", False)
    assert (prompt.text, prompt.is_error) == ("Please review: x = 1", False)
    assert (echoed.text, echoed.is_error) == ("still works", False)


def test_a_tool_on_the_second_page_keeps_its_output_schema_checked(
        started: tuple[ExtensionManager, ExtensionStatus, list[str]]) -> None:
    manager, _status, _notices = started
    weather = manager.find_tool("lists__weather")
    assert weather is not None
    good = manager.call_tool(*weather, {"city": "Oslo"}, threading.Event(), None)
    bad = manager.call_tool(*weather, {"city": "Nowhere"}, threading.Event(), None)
    assert not good.is_error and "4" in good.text
    assert bad.is_error
    assert bad.text.startswith("lists__weather failed: Invalid structured content returned by "
                               "tool weather: 'warm' is not of type 'number'"), bad.text


def test_extensions_list_names_the_skipped_resource_and_prompt(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, listed, _err = run_cli(capsys, "extensions", "list", "--with-extension",
                                 f"{sys.executable} {LISTING_SERVER}")
    assert code == 0, listed
    assert "failed" not in listed and "ValidationError" not in listed
    assert "skipped: file:///nameless.txt: its listing is not valid MCP" in listed
    assert "skipped: broken: its listing is not valid MCP" in listed
    assert "file:///notes.txt — notes" in listed


def test_over_http_the_bad_entries_are_skipped_too(tmp_path: Path) -> None:
    web = HttpDemo(LISTING_SERVER)
    manager = ExtensionManager([ExtensionConfig("web", "streamable_http", uri=web.url,
                                                startup_timeout_s=60.0)], tmp_path)
    try:
        manager.start()
        manager.wait_ready()
        (status,) = manager.statuses()
        read = manager.read_resource("web", "file:///notes.txt")
    finally:
        manager.stop_all()
        web.stop()
    assert status.status == "ready", status.error
    assert ([t.name for t in status.tools], [r.name for r in status.resources],
            [p.name for p in status.prompts]) == (["echo", "weather"], ["notes"], ["review"])
    assert len(status.skipped) == len(status.skipped_resources) == len(status.skipped_prompts) == 1
    assert read.text == "the notes say: ship it"
