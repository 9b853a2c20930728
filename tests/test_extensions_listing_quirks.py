"""Listings that misbehave: a looping cursor, two tools of one name, line breaks, a redefinition.

The server is written with the SDK's low-level server API
(tests/mcp_servers/quirky_listing_server.py). A server repeating its ``nextCursor`` was paged
100 times and every tool listed 100 times; two tools named ``dup`` were both listed under one
hashed name with "d__dup is taken" though nothing held it; a resource URI holding a newline
forged whole lines of ``extensions list``; ``a`` given at a read-only tool survived the server
redefining it as destructive.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from cli_support import run_cli
from test_extension_always_allow import _plain
from test_extensions_repl import World

from goosectx.extensions.config import ExtensionConfig
from goosectx.extensions.manager import ExtensionManager
from goosectx.providers.scripted import ScriptedReply

SERVER = Path(__file__).parent / "mcp_servers" / "quirky_listing_server.py"


def _listed(capsys: pytest.CaptureFixture[str], mode: str, name: str = "q",
            *more: str) -> str:
    code, out, err = run_cli(capsys, "extensions", "list", *more, "--with-extension",
                             f"{sys.executable} {SERVER} {mode}")
    assert code == 0, err
    return out.replace("quirky_listing", name)


def test_a_repeated_cursor_lists_each_tool_once_and_says_so_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = _listed(capsys, "loop")
    lines = out.splitlines()
    assert [line.strip() for line in lines if line.startswith("    q__")] == [
        "q__a", "q__b", "q__pages"], out
    assert "  tools (3):" in lines
    assert sum("skipped: bad:" in line for line in lines) == 1
    assert sum("listing repeated itself" in line for line in lines) == 1, out
    manager = ExtensionManager([ExtensionConfig("q", "stdio", cmd=sys.executable,
                                                args=(str(SERVER), "loop"))], tmp_path)
    try:
        manager.start()
        manager.wait_ready()
        pages = manager.find_tool("q__pages")
        assert pages is not None
        served = manager.call_tool(*pages, {}, threading.Event(), None).text
        notices = manager.drain_notices()
    finally:
        manager.stop_all()
    assert served == "ran 2"  # the first page, the page of cursor "again"; no more
    assert sum("bad" in n for n in notices) == 1
    assert sum("repeated itself" in n for n in notices) == 1


def test_a_second_tool_of_one_name_is_skipped_and_the_first_keeps_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = _listed(capsys, "dup")
    assert "  tools (2):\n    q__dup\n    q__other\n" in out, out
    assert "    skipped: dup: a second tool named dup\n" in out
    assert "taken" not in out and "q__dup_" not in out
    manager = ExtensionManager([ExtensionConfig("d", "stdio", cmd=sys.executable,
                                                args=(str(SERVER), "dup"))], tmp_path)
    try:
        manager.start()
        manager.wait_ready()
        (status,) = manager.statuses()
    finally:
        manager.stop_all()
    assert [(t.model_name, t.description) for t in status.tools] == [
        ("d__dup", "one"), ("d__other", "other")]


def test_line_breaks_in_listed_names_cannot_forge_lines_of_the_listing(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _listed(capsys, "breaks")
    lines = out.splitlines()
    assert not any(line.startswith(("q: ready (server trusted)", "    q__forged"))
                   for line in lines), out
    assert ("    file:///a.txt\u240aq: ready (server trusted)\u240a  tools (1):\u240a"
            "    q__forged_line — r1") in lines
    assert "    file:///b.txt — two\u240dlines" in lines
    assert any(line.startswith("    p<U+2028>q: ready") for line in lines), out
    assert "\u2028" not in out and "\r" not in out
    assert len(lines) == len(out.split("\n")) - 1  # no other line break anywhere


def test_always_allow_is_forgotten_when_the_server_redefines_the_tool(
        tmp_path: Path) -> None:
    manager = ExtensionManager([ExtensionConfig("r", "stdio", cmd=sys.executable,
                                                args=(str(SERVER), "redefine"))], tmp_path)
    try:
        world = World(tmp_path, manager)
        keep = ScriptedReply(tool_calls=[("r__keep", {"text": "k"})])
        world.provider.add(keep, ScriptedReply(tool_calls=[("r__act", {})]), "first done",
                           keep, ScriptedReply(tool_calls=[("r__act", {"path": "/"})]),
                           "second done")
        manager.start()
        manager.wait_ready()
        out = _plain(world, "one\na\na\ntwo\nn\n")
    finally:
        manager.stop_all()
    # act was redefined (DELETES ALL): asked again; keep only moved and is still allowed
    assert "always allow forgotten (the name now stands for another tool): r__act\n" in out
    assert out.count("goosectx asks: run r__act?") == 2, out
    assert out.count("goosectx asks: run r__keep?") == 1
    outputs = [r.output for m in world.provider.requests[-1].messages
               for r in m.tool_responses]
    assert outputs.count("ran act") == 1 and outputs.count("ran keep") == 2, outputs
