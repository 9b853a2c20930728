"""The extension manager: every MCP server of a session on one background event loop.

:meth:`ExtensionManager.start` starts a daemon thread that imports mcp (never the caller's
thread, so the REPL draws its prompt first) and starts every enabled server concurrently.
The rest of goosectx calls the synchronous methods here from any thread; each hands a
coroutine to the loop (``loop_thread.py``) and waits for it, polling a cancel event (Ctrl-C
cancels the call and the server is told). :meth:`stop_all` stops every server and then
SIGKILLs any of its process groups still alive (its own only: another manager's servers keep
running), so no child survives goosectx; a second call does nothing, and a call after it is
told the extension is not running (docs/architecture.md §1, extensions/).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.extensions.config import ExtensionConfig
from goosectx.extensions.loop_thread import LoopThread, ended, wait
from goosectx.extensions.model import CallOutcome, ExtensionStatus, ToolInfo
from goosectx.extensions.redacting import Redact, extension_redactor

if TYPE_CHECKING:
    from goosectx.extensions.server import ServerConnection

log = logging.getLogger("goosectx.extensions")

CANCELLED_TEXT = "cancelled"
STOP_ALL_TIMEOUT_S = 5.0
LATE_STOP_S = 2.0
"""How long a server's stop may still take once :meth:`ExtensionManager.stop_all` ran out of
time and killed its process group, seconds: its exit is seen and its pipes closed while the
loop runs (else the loop closes first and its transport is collected later, unclosed)."""
_POLL_S = 0.05
_IMPORT_CAP_S = 30.0
"""How long a turn waits for the background thread to import mcp, over the startup timeout."""


class ExtensionManager:
    """The session's extensions, started in the background.

    Args:
        configs: The extensions to run (disabled ones are listed but not started).
        working_dir: The default working directory of stdio servers.
        reserved_names: Tool names already taken (the built-in tools).
    """

    def __init__(self, configs: Iterable[ExtensionConfig], working_dir: Path,
                 reserved_names: Iterable[str] = ()) -> None:
        self.configs: dict[str, ExtensionConfig] = {c.name: c for c in configs}
        self.working_dir = working_dir
        self.reserved_names = set(reserved_names)
        self.generation = 0
        """Bumped whenever the offered tools or instructions may have changed."""
        self._servers: dict[str, ServerConnection] = {}
        self._tasks: dict[str, concurrent.futures.Future[None]] = {}
        self._notices: list[str] = []
        self._lock = threading.Lock()
        self._loop = LoopThread()
        self._started = False
        self.absent: dict[str, str] = {}
        """Extensions the session had that do not run now (a resumed session's flag-added one
        not given again): name → the notice that said why (``extension NAME …``)."""
        self.on_change: Callable[[], None] | None = None
        """Called from the servers' thread when a notice is queued or a server became ready,
        so a front end waiting for input can show it now (set by the REPL)."""
        self.tool_redact: Redact | None = None
        """The redaction the agent's tool outputs get (``runtime.build_agent`` sets it); what
        the servers send or print gets it too, their own values added (:meth:`redactor`).
        ``None``: the secrets this process knows (``env_secrets.tool_output_redactor()``)."""

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def enabled(self) -> list[ExtensionConfig]:
        """The configured extensions that are enabled, sorted by name."""
        return [c for name, c in sorted(self.configs.items()) if c.enabled]

    @property
    def started(self) -> bool:
        """:meth:`start` (or :meth:`add`) has run."""
        return self._started

    def start(self) -> None:
        """Start every enabled server in the background; returns at once."""
        if self._started:
            return
        self._started = True
        for config in self.enabled:
            self._start_one(config)

    def _start_one(self, config: ExtensionConfig) -> None:
        loop = self._loop.ensure()

        def make() -> None:
            from goosectx.extensions.server import ServerConnection  # mcp: on the loop's thread

            if self._loop.loop is not loop:  # stop_all ran meanwhile: no server on a new loop
                return
            server = ServerConnection(config, self.working_dir, self.notice, self._taken,
                                      self._changed, lambda: self.redactor([config]))
            with self._lock:
                self._servers[config.name] = server
            self._tasks[config.name] = asyncio.run_coroutine_threadsafe(self._run(server), loop)

        loop.call_soon_threadsafe(make)

    async def _run(self, server: ServerConnection) -> None:
        try:
            await server.run()
        finally:
            server.close()
            self.generation += 1

    def _taken(self, exclude: str) -> set[str]:
        names = set(self.reserved_names)
        with self._lock:
            for name, server in self._servers.items():
                if name != exclude:
                    names.update(t.model_name for t in server.tools)
        return names

    def redactor(self, configs: Iterable[ExtensionConfig] | None = None) -> Redact:
        """The tool outputs' redaction with the values of ``configs`` (else every extension's).

        :func:`goosectx.extensions.redacting.extension_redactor` of :attr:`tool_redact`.
        """
        return extension_redactor(self.configs.values() if configs is None else configs,
                                  self.tool_redact)

    def notice(self, text: str) -> None:
        """Queue a one-line notice for the front end (any thread).

        Redacted first as a tool's output is, with the values of ``envs``, ``env_keys`` and
        ``headers`` (a server may echo them, or goosectx's key, on stderr): the notice also goes
        to the log.
        """
        text = self.redactor()(text)
        log.info("%s", text)
        with self._lock:
            self._notices.append(text)
        self._changed()

    def _changed(self) -> None:
        callback = self.on_change
        if callback is not None:
            callback()

    def notices_at_start(self, notices: list[str]) -> None:
        """Queue notices about the session's extensions (shown with the first prompt)."""
        for text in notices:
            self.notice(text)

    def drain_notices(self) -> list[str]:
        """The notices queued since the last call, oldest first."""
        with self._lock:
            notices, self._notices = self._notices, []
        return notices

    def _server(self, name: str) -> ServerConnection | None:
        with self._lock:
            return self._servers.get(name)

    def _running(self, name: str) -> ServerConnection | None:
        """``name``'s server while its loop runs (after :meth:`stop_all`: ``None``)."""
        return self._server(name) if self._loop.loop is not None else None

    def statuses(self) -> list[ExtensionStatus]:
        """Every configured extension, sorted by name (``stopped`` when not started)."""
        result = []
        for name, config in sorted(self.configs.items()):
            server = self._server(name)
            if server is None:
                result.append(ExtensionStatus(name, "stopped", "disabled" if not config.enabled
                                              else "", public=config.public()))
            else:
                snap = server.snapshot()
                if snap.stderr_tail or snap.error:  # a server may echo its secrets, or ours
                    redact = self.redactor()
                    snap = replace(snap, stderr_tail=redact(snap.stderr_tail),
                                   error=redact(snap.error))
                result.append(snap)
        return result

    def counts(self) -> tuple[int, int]:
        """(ready, enabled) — the toolbar's ``extensions 2/3``."""
        ready = sum(1 for s in self.statuses() if s.status == "ready")
        return ready, len(self.enabled)

    def wait_ready(self, cancel: threading.Event | None = None,
                   names: Iterable[str] | None = None) -> list[str]:
        """Wait for starting servers, each at most its ``startup_timeout_s``.

        Returns:
            The names still starting when their time ran out (or when ``cancel`` was set).
        """
        self.start()
        t0 = time.monotonic()
        wanted = list(names) if names is not None else [c.name for c in self.enabled]
        waiting = []
        for name in wanted:
            config = self.configs.get(name)
            timeout_s = (config.startup_timeout_s if config else 0.0) + 1.0
            while True:
                server = self._server(name)
                if server is not None and server.ready.is_set():
                    break
                # The clock starts when the server's task does (importing mcp comes first).
                began = server.started_at if server and server.started_at else None
                deadline = (began + timeout_s) if began else t0 + timeout_s + _IMPORT_CAP_S
                if time.monotonic() >= deadline or (cancel is not None and cancel.is_set()):
                    waiting.append(name)
                    break
                time.sleep(_POLL_S / 2)
        return waiting

    def refresh_changed(self) -> bool:
        """Apply ``list_changed`` notifications (between turns only); True if any applied."""
        changed = False
        with self._lock:
            servers = [s for s in self._servers.values() if s.list_changed and
                       s.status == "ready"]
        for server in servers:
            future = self._loop.submit(server.refresh())
            try:
                future.result(timeout=35)
                changed = True
            except Exception as exc:  # noqa: BLE001 - a server's listing error is its own
                self.notice(f"extension {server.config.name}: listing failed: {exc}")
        if changed:
            self.generation += 1
        return changed

    def add(self, config: ExtensionConfig) -> None:
        """Add and start one extension (``/extension add``); one of :attr:`absent` is back."""
        self.configs[config.name] = config
        self.absent.pop(config.name, None)
        self._started = True
        self._start_one(config)
        self.generation += 1

    def remove(self, name: str) -> bool:
        """Stop and forget ``name``; False if there is no such extension.

        One of :attr:`absent` (not back on resume) is forgotten: its record is no longer kept.
        """
        if name not in self.configs:
            return self.absent.pop(name, None) is not None
        self._stop_one(name)
        del self.configs[name]
        self.generation += 1
        return True

    def restart(self, name: str) -> bool:
        """Stop and start ``name`` again; False if there is no such extension."""
        config = self.configs.get(name)
        if config is None:
            return False
        self._stop_one(name)
        if config.enabled:
            self._start_one(config)
        self.generation += 1
        return True

    def _stop_one(self, name: str, timeout_s: float = STOP_ALL_TIMEOUT_S) -> None:
        server = self._server(name)
        task = self._tasks.pop(name, None)
        if server is None or not self._loop.call_soon(server.stop):
            with self._lock:  # stopped with the others by stop_all
                self._servers.pop(name, None)
            return
        if task is not None:
            try:
                task.result(timeout=timeout_s)
            except Exception:  # noqa: BLE001 - stopping must go on
                task.cancel()
        with self._lock:
            self._servers.pop(name, None)

    def stop_all(self, timeout_s: float = STOP_ALL_TIMEOUT_S) -> None:
        """Stop every server (concurrently), then kill any of their process groups still alive.

        Servers still stopping after ``timeout_s`` (one ignoring SIGTERM on a busy machine)
        have their process groups SIGKILLed and get :data:`LATE_STOP_S` more to finish, so
        the loop stops with their processes seen gone and their transports closed (not
        "Exception ignored in … BaseSubprocessTransport.__del__" when collected later).
        """
        from goosectx.extensions import lifecycle

        loop = self._loop.loop  # its servers' groups are those started on it (process.py)
        if loop is None:  # never started, or stopped already
            return
        with self._lock:
            servers = list(self._servers.values())
        for server in servers:
            self._loop.call_soon(server.stop)
        deadline = time.monotonic() + timeout_s
        late = [task for task in list(self._tasks.values())
                if not ended(task, deadline - time.monotonic())]
        if late:
            lifecycle.kill_survivors(loop)
            deadline = time.monotonic() + LATE_STOP_S
            for task in late:
                if not ended(task, deadline - time.monotonic()):
                    task.cancel()
        self._tasks.clear()
        self._loop.stop()
        lifecycle.kill_survivors(loop)

    # -- calls ----------------------------------------------------------------------------
    def down_reason(self, extension: str) -> str | None:
        """Why no tool of ``extension`` can run now, for the model; ``None`` when it is ready.

        ``extension bad could not start: /bin/x not found; this call was not run.`` — the
        answer to any call of its tools while it failed, is starting or stopped, or is one of
        :attr:`absent`. ``None`` too for a name the session has no extension by.
        """
        if extension in self.absent:
            return f"{self.absent[extension]}; this call was not run."
        status = next((s for s in self.statuses() if s.name == extension), None)
        if status is None or status.status == "ready":
            return None
        if status.status == "failed":
            # A server that never came up says so as its start notice did ("could not start:
            # …", "did not start within 3 s …"); one that died says it failed and why.
            why = (status.error if status.error.startswith(("could not start", "did not start"))
                   else f"failed: {status.error}")
        elif status.status == "starting":
            why = "is still starting"
        else:
            why = "is disabled (enabled = false)" if status.error == "disabled" else "is stopped"
        return f"extension {extension} {why}; this call was not run."

    def owner(self, model_name: str) -> str | None:
        """The extension whose ``NAME__`` prefix ``model_name`` carries (the longest), else None."""
        names = [n for n in (*self.configs, *self.absent) if model_name.startswith(f"{n}__")]
        return max(names, key=len) if names else None

    def find_tool(self, model_name: str) -> tuple[str, ToolInfo] | None:
        """(extension, tool) offered to the model as ``model_name``."""
        for status in self.statuses():
            for tool in status.tools:
                if tool.model_name == model_name:
                    return status.name, tool
        return None

    def call_tool(self, extension: str, tool: ToolInfo, arguments: dict[str, Any],
                  cancel: threading.Event | None = None,
                  progress: Callable[[str], None] | None = None) -> CallOutcome:
        """Call one tool; ``cancel`` cancels it (the server is told) → "cancelled"."""
        server = self._running(extension)
        if server is None:
            return CallOutcome(f"extension {extension} is not running; this call was not run.",
                               True)
        result = wait(self._loop.submit(server.call_tool(tool, arguments, progress)), cancel)
        return result if result is not None else CallOutcome(CANCELLED_TEXT, True)

    def read_resource(self, extension: str, uri: str,
                      cancel: threading.Event | None = None) -> CallOutcome:
        """Read one resource of ``extension``."""
        server = self._running(extension)
        if server is None:
            return CallOutcome(f"there is no running extension named {extension!r}", True)
        result = wait(self._loop.submit(server.read_resource(uri)), cancel)
        return result if result is not None else CallOutcome(CANCELLED_TEXT, True)

    def get_prompt(self, extension: str, name: str, arguments: dict[str, str],
                   cancel: threading.Event | None = None) -> CallOutcome:
        """Render one prompt of ``extension``."""
        server = self._running(extension)
        if server is None:
            return CallOutcome(f"there is no running extension named {extension!r}", True)
        result = wait(self._loop.submit(server.get_prompt(name, arguments)), cancel)
        return result if result is not None else CallOutcome(CANCELLED_TEXT, True)

