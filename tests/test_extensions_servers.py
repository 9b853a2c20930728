"""Real MCP servers (written with the SDK's server API, tests/mcp_servers/) through the
extension manager: tools, results, progress, resources, prompts, instructions, list_changed,
crashes, timeouts, failed starts, cancellation, and no surviving child process."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from extension_support import HttpDemo, demo_config, group_alive

from goosectx.extensions import process as ext_process
from goosectx.extensions.config import ExtensionConfig, parse_remote_spec
from goosectx.extensions.manager import LATE_STOP_S, STOP_ALL_TIMEOUT_S, ExtensionManager
from goosectx.extensions.model import CallOutcome, ExtensionStatus


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtensionManager]:
    work = tmp_path_factory.mktemp("ext")
    configs = [
        demo_config("demo", envs={"DEMO_CANCEL_MARKER": str(work / "cancelled")}),
        demo_config("crashy"),
        demo_config("slowpoke", timeout_s=1.0),
        demo_config("never", "--behaviour", "never_start", startup_timeout_s=2.0),
        demo_config("broken", "--behaviour", "exit_at_start"),
        ExtensionConfig("missing", "stdio", cmd="no-such-program-0x1f"),
    ]
    mgr = ExtensionManager(configs, work, reserved_names=["shell", "text_editor", "tree"])
    mgr.start()
    mgr.wait_ready()
    yield mgr
    mgr.stop_all()


def status(mgr: ExtensionManager, name: str) -> ExtensionStatus:
    return next(s for s in mgr.statuses() if s.name == name)


def call(mgr: ExtensionManager, model_name: str, arguments: dict[str, object] | None = None,
         **kwargs: object) -> CallOutcome:
    found = mgr.find_tool(model_name)
    assert found is not None, f"{model_name} not offered"
    return mgr.call_tool(found[0], found[1], arguments or {}, **kwargs)  # type: ignore[arg-type]


def test_tools_are_offered_as_name__tool_and_a_bad_schema_is_skipped(
        manager: ExtensionManager) -> None:
    demo = status(manager, "demo")
    assert demo.status == "ready"
    names = [t.model_name for t in demo.tools]
    assert "demo__echo" in names and "demo__bad_schema" not in names
    assert any("bad_schema" in s for s in demo.skipped)
    echo = next(t for t in demo.tools if t.name == "echo")
    assert echo.read_only and echo.input_schema["properties"]["text"]["type"] == "string"
    assert demo.instructions == "The demo server echoes and demonstrates."
    assert manager.counts() == (3, 6)


def test_results_text_image_error(manager: ExtensionManager) -> None:
    assert call(manager, "demo__echo", {"text": "hello"}) == CallOutcome("hello")
    image = call(manager, "demo__image")
    assert not image.is_error and image.attachments[0].media_type == "image/png"
    assert image.text == "[image: image/png, 32 bytes, from demo__image]"
    failed = call(manager, "demo__fail")
    assert failed.is_error and "fail" in failed.text


def test_progress_reaches_the_callback(manager: ExtensionManager) -> None:
    seen: list[str] = []
    outcome = call(manager, "demo__slow", {"steps": 3}, progress=seen.append)
    assert outcome.text == "finished 3 steps"
    assert seen == ["demo__slow: step 1 1/3", "demo__slow: step 2 2/3",
                    "demo__slow: step 3 3/3"]


def test_server_environment_has_no_goosectx_secrets(manager: ExtensionManager,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The module's servers started with the test process's environment: no secret passes.
    names = call(manager, "demo__env_names").text.split()
    assert "DEMO_CANCEL_MARKER" in names and "PATH" in names
    assert not [n for n in names if n.endswith(("_API_KEY", "_TOKEN")) or "SECRET" in n]


def test_resources_and_prompts(manager: ExtensionManager) -> None:
    demo = status(manager, "demo")
    assert [(r.uri, r.name) for r in demo.resources] == [("file:///notes.txt", "notes")]
    read = manager.read_resource("demo", "file:///notes.txt")
    assert read.text == "the notes say: ship it"
    assert read.attachments[0].source == "demo:file:///notes.txt"
    assert [p.name for p in demo.prompts] == ["review"]
    assert demo.prompts[0].arguments[0].name == "code" and demo.prompts[0].arguments[0].required
    prompt = manager.get_prompt("demo", "review", {"code": "x = 1"})
    assert prompt.text == "Please review this code: x = 1"


def test_list_changed_applies_only_when_refreshed(manager: ExtensionManager) -> None:
    generation = manager.generation
    assert call(manager, "demo__add_tool").text == "added"
    time.sleep(0.3)
    assert manager.find_tool("demo__added") is None  # not mid-turn
    assert manager.refresh_changed() and manager.generation > generation
    assert call(manager, "demo__added").text == "added works"
    assert call(manager, "demo__echo", {"text": "same name"}).text == "same name"


def test_cancel_tells_the_server(manager: ExtensionManager, tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    t0 = time.monotonic()
    outcome = call(manager, "demo__hang", cancel=cancel)
    assert outcome == CallOutcome("cancelled", True) and time.monotonic() - t0 < 5
    marker = manager.working_dir / "cancelled"
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.read_text() == "cancelled"


def test_a_hang_past_the_timeout_is_an_error_result(manager: ExtensionManager) -> None:
    outcome = call(manager, "slowpoke__hang")
    assert outcome.is_error and "timed out after 1 s" in outcome.text
    assert "slowpoke" in outcome.text
    assert call(manager, "slowpoke__echo", {"text": "still fine"}).text == "still fine"


def test_a_crash_mid_call_names_the_extension(manager: ExtensionManager) -> None:
    manager.drain_notices()
    outcome = call(manager, "crashy__crash")
    assert outcome.is_error and "extension crashy" in outcome.text
    deadline = time.monotonic() + 10
    while status(manager, "crashy").status != "failed" and time.monotonic() < deadline:
        time.sleep(0.05)
    crashed = status(manager, "crashy")
    assert crashed.error == "exited with code 7"
    assert "crashing on purpose" in crashed.stderr_tail
    assert any("extension crashy exited with code 7" in n and "crashing on purpose" in n
               for n in manager.drain_notices())
    later = manager.call_tool("crashy", crashed.tools[0], {"text": "x"})
    assert later.is_error and "crashy" in later.text


def test_failed_starts_give_a_reason(manager: ExtensionManager) -> None:
    never = status(manager, "never")
    assert never.status == "failed" and "did not start within 2 s" in never.error
    broken = status(manager, "broken")
    assert broken.status == "failed" and "exited with code 3" in broken.error
    assert "DEMO_CONFIG is not set" in broken.stderr_tail
    missing = status(manager, "missing")  # also as root, where servers start through nsenter
    assert missing.status == "failed"
    assert missing.error == "could not start: no-such-program-0x1f not found"


def test_streamable_http_server() -> None:
    server = HttpDemo()
    mgr = ExtensionManager([parse_remote_spec(server.url)], Path.cwd())
    try:
        mgr.start()
        assert mgr.wait_ready() == []
        remote = mgr.statuses()[0]
        assert remote.status == "ready", remote.error
        assert call(mgr, "remote__echo", {"text": "over http"}).text == "over http"
        seen: list[str] = []
        assert call(mgr, "remote__slow", {"steps": 2}, progress=seen.append).text == \
            "finished 2 steps"
        assert len(seen) == 2
    finally:
        mgr.stop_all()
        server.stop()


def test_stop_all_leaves_no_child_even_one_ignoring_sigterm(tmp_path: Path) -> None:
    before = ext_process.live_groups()
    mgr = ExtensionManager([demo_config("stubborn", "--behaviour", "ignore_term")], tmp_path)
    mgr.start()
    mgr.wait_ready()
    assert status(mgr, "stubborn").status == "ready"
    groups = ext_process.live_groups() - before
    assert len(groups) == 1
    t0 = time.monotonic()
    mgr.stop_all()
    assert time.monotonic() - t0 < 6
    assert not any(group_alive(g) for g in groups)


def test_stopping_one_manager_leaves_another_managers_server_running(tmp_path: Path) -> None:
    """Two managers in one process (an in-process ``run`` with extensions, the REPL's): the
    first one's stop, even one that runs out of time and kills, kills only its own groups."""
    before = ext_process.live_groups()
    other = ExtensionManager([demo_config("other")], tmp_path)
    other.start()
    assert other.wait_ready() == []
    other_groups = ext_process.live_groups() - before
    try:
        mgr = ExtensionManager([demo_config("stubborn", "--behaviour", "ignore_term")], tmp_path)
        try:
            mgr.start()
            assert mgr.wait_ready() == []
            own = ext_process.live_groups() - before - other_groups
        finally:
            mgr.stop_all(timeout_s=0.3)  # "stubborn" still stopping then: the kill path runs
        assert len(other_groups) == 1 and len(own) == 1
        assert not any(group_alive(g) for g in own)
        assert all(group_alive(g) for g in other_groups)
        assert status(other, "other").status == "ready"
        assert call(other, "other__echo", {"text": "still here"}).text == "still here"
    finally:
        other.stop_all()
    assert not any(group_alive(g) for g in other_groups)


def _open_transports(besides: set[int]) -> list[asyncio.SubprocessTransport]:
    """The subprocess transports alive and not closed, other than those in ``besides`` (ids)."""
    gc.collect()
    return [t for t in gc.get_objects() if isinstance(t, asyncio.SubprocessTransport)
            and id(t) not in besides and not t.is_closing()]


@pytest.mark.parametrize("timeout_s", [STOP_ALL_TIMEOUT_S, 0.3])  # 0.3: as on a busy machine
def test_stop_all_closes_every_servers_transport(tmp_path: Path, timeout_s: float) -> None:
    """One left open is collected later, in whatever runs then: "Exception ignored in …
    BaseSubprocessTransport.__del__" (a test's unraisable exception, a user's line at exit)."""
    before = {id(t) for t in _open_transports(set())}
    mgr = ExtensionManager([demo_config("stubborn", "--behaviour", "ignore_term"),
                            demo_config("plain")], tmp_path)
    mgr.start()
    mgr.wait_ready()
    assert [s.status for s in mgr.statuses()] == ["ready", "ready"]
    t0 = time.monotonic()
    mgr.stop_all(timeout_s=timeout_s)  # 0.3: "stubborn" ignores SIGTERM, still stopping then
    assert time.monotonic() - t0 < timeout_s + LATE_STOP_S + 1
    assert _open_transports(before) == []


def test_notices_redact_the_servers_secret_values(tmp_path: Path) -> None:
    from goosectx.extensions.config import ExtensionConfig

    mgr = ExtensionManager([ExtensionConfig("leaky", cmd="sh", args=(
        "-c", 'echo "token is $LEAKY_TOKEN" >&2; exit 4'), envs={"LEAKY_TOKEN": "s3cr3t-value-42"},
        startup_timeout_s=30)], tmp_path)
    try:
        mgr.start()
        mgr.wait_ready()
        notices = "\n".join(mgr.drain_notices())
        tail = mgr.statuses()[0].stderr_tail
    finally:
        mgr.stop_all()
    assert "exited with code 4" in notices and "token is [REDACTED]" in notices
    assert "s3cr3t-value-42" not in notices + tail and "[REDACTED]" in tail


def _runs_demo_named(name: str) -> bool:
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
        except OSError:
            continue
        if b"--name" in argv and name.encode() in argv:
            return True
    return False


def test_a_server_flooding_stdout_before_starting_fails_with_one_clear_line(
        tmp_path: Path) -> None:
    mgr = ExtensionManager([demo_config("flood-0x7e", "--stdout-junk", "200000",
                                        startup_timeout_s=30)], tmp_path)
    try:
        mgr.start()
        assert mgr.wait_ready() == []  # not "still starting"
        flood = mgr.statuses()[0]
        notices = mgr.drain_notices()
        assert not _runs_demo_named("flood-0x7e")
    finally:
        mgr.stop_all()
    assert flood.status == "failed"
    assert flood.error.startswith("wrote ") and flood.error.endswith(
        " lines that are not JSON-RPC on stdout before starting; MCP servers must write only "
        "JSON-RPC to stdout — log to stderr")
    assert len(notices) == 1 and flood.error in notices[0]


def test_a_server_printing_a_banner_on_stdout_still_starts(tmp_path: Path) -> None:
    mgr = ExtensionManager([demo_config("banner", "--stdout-junk", "3")], tmp_path)
    try:
        mgr.start()
        assert mgr.wait_ready() == []
        assert status(mgr, "banner").status == "ready"
        assert call(mgr, "banner__echo", {"text": "hi"}).text == "hi"
    finally:
        mgr.stop_all()
