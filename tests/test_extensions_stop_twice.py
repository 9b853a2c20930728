"""Stopping the extensions twice (a ``finally`` after an explicit stop, the REPL's exit after
``run``'s) is quiet: no "Event loop is closed", no thread left, and a call after the stop is
told the extension is not running (docs/architecture.md §1, extensions/)."""

from __future__ import annotations

import threading
from pathlib import Path

from extension_support import demo_config, group_alive

from goosectx.extensions import process as ext_process
from goosectx.extensions.manager import ExtensionManager


def _loop_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "goosectx-extensions" and t.is_alive()]


def test_stop_all_twice_is_quiet_and_leaves_no_loop_thread(tmp_path: Path) -> None:
    before_threads = set(_loop_threads())
    before = ext_process.live_groups()
    mgr = ExtensionManager([demo_config("twice")], tmp_path)
    mgr.start()
    assert mgr.wait_ready() == []
    groups = ext_process.live_groups() - before
    found = mgr.find_tool("twice__echo")
    assert found is not None
    mgr.stop_all()
    mgr.stop_all()  # raised RuntimeError("Event loop is closed")
    assert set(_loop_threads()) <= before_threads
    assert len(groups) == 1 and not any(group_alive(g) for g in groups)
    outcome = mgr.call_tool(found[0], found[1], {"text": "late"})
    assert outcome.is_error and outcome.text == (
        "extension twice is not running; this call was not run.")
    assert mgr.read_resource("twice", "demo://x").is_error
    assert mgr.get_prompt("twice", "p", {}).is_error


def test_stop_all_on_a_manager_never_started_is_a_no_op(tmp_path: Path) -> None:
    mgr = ExtensionManager([demo_config("idle")], tmp_path)
    mgr.stop_all()
    mgr.stop_all()
    assert [s.status for s in mgr.statuses()] == ["stopped"]


def test_a_manager_stopped_can_start_an_extension_again(tmp_path: Path) -> None:
    before_threads = set(_loop_threads())
    mgr = ExtensionManager([demo_config("again")], tmp_path)
    try:
        mgr.start()
        assert mgr.wait_ready() == []
        mgr.stop_all()
        assert mgr.restart("again")
        assert mgr.wait_ready() == []
        found = mgr.find_tool("again__echo")
        assert found is not None
        assert mgr.call_tool(found[0], found[1], {"text": "back"}).text == "back"
    finally:
        mgr.stop_all()
    assert set(_loop_threads()) <= before_threads  # the second loop's thread ended too


def test_a_stop_before_the_servers_were_made_starts_none_on_a_new_loop(tmp_path: Path) -> None:
    """Ctrl-D right at start: stop_all ran while the loop was still busy (importing mcp), so
    the server was made after the stop — and started a fresh loop no one would stop."""
    import time

    before_threads = set(_loop_threads())
    before = ext_process.live_groups()
    mgr = ExtensionManager([demo_config("early")], tmp_path)
    mgr._loop.ensure().call_soon_threadsafe(time.sleep, 0.5)  # the loop busy, as importing
    mgr.start()
    mgr.stop_all()
    time.sleep(1.0)  # long enough for a server made late to have started
    assert set(_loop_threads()) <= before_threads
    assert ext_process.live_groups() - before == set()
    assert [s.status for s in mgr.statuses()] == ["stopped"]
