"""One MCP server's connection, living as a task on the extension manager's event loop.

:meth:`ServerConnection.run` starts the server (a child process or a streamable HTTP URL),
initialises it (the handshake every released server speaks, ``mode="legacy"``), lists its
tools, resources and prompts, then waits until it is told to stop or the server goes away.
Calls come from other tasks on the same loop. A server that fails or dies keeps a one-line
reason and the tail of its stderr; its calls then return an error result naming it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from goosectx import __version__
from goosectx.extensions.config import ExtensionConfig, child_env
from goosectx.extensions.failure import exit_reason, failure_reason
from goosectx.extensions.listings import ListingCheck
from goosectx.extensions.model import (
    CallOutcome,
    ExtensionStatus,
    PromptArg,
    PromptInfo,
    ResourceInfo,
    Status,
    ToolInfo,
    cap_instructions,
)
from goosectx.extensions.offered import offer_tools
from goosectx.extensions.paging import Listed, all_pages
from goosectx.extensions.process import (
    UNREADABLE_PREFIX,
    UNREADABLE_REPLY,
    StderrTail,
    StdoutNoise,
    kill_group,
    stdio_transport,
)
from goosectx.extensions.redacting import Redact, extension_redactor
from goosectx.extensions.results import convert_call_result, convert_prompt, resource_contents

log = logging.getLogger("goosectx.extensions")

T = TypeVar("T")
Notify = Callable[[str], None]
Progress = Callable[[str], None]
_LIST_TIMEOUT_S = 30.0
_HTTP_GRACE_S = 5.0
STDERR_END_CHARS = 300
"""Most characters of a server's stderr end quoted in a notice or a call's error."""


class ServerConnection:
    """The live state of one extension.

    Attributes:
        config: Its settings.
        status: ``starting`` → ``ready`` | ``failed``; ``stopped`` after :meth:`stop`.
        error: Why it failed (one line).
        ready: Set once it is no longer starting (ready or failed).
        list_changed: The server said its tools/resources/prompts changed; the manager
            refreshes at the next turn.
    """

    def __init__(self, config: ExtensionConfig, working_dir: Path, notify: Notify,
                 taken_names: Callable[[str], set[str]],
                 changed: Callable[[], None] = lambda: None,
                 redactor: Callable[[], Redact] | None = None) -> None:
        self.config = config
        self._redactor = redactor or (lambda: extension_redactor([config]))
        """The redaction of what the server sends or prints, now: a tool output's, with the
        server's own values (:meth:`ExtensionManager.redactor`)."""
        self._changed = changed
        """Called (on the manager's loop) once the server is ready: the front end redraws."""
        self.status: Status = "starting"
        self.error = ""
        self.ready = threading.Event()
        self.list_changed = False
        self.server_name = ""
        self.instructions = ""
        self.tools: tuple[ToolInfo, ...] = ()
        self.resources: tuple[ResourceInfo, ...] = ()
        self.prompts: tuple[PromptInfo, ...] = ()
        self.skipped: tuple[str, ...] = ()
        self.skipped_resources: tuple[str, ...] = ()
        self.skipped_prompts: tuple[str, ...] = ()
        self.listing_notes: tuple[str, ...] = ()
        self._notes: tuple[str, ...] = ()
        self.stderr_tail = ""
        self._working_dir = working_dir
        self._notify = notify
        self._taken_names = taken_names
        self._stderr = StderrTail() if config.type == "stdio" else None
        self._noise = StdoutNoise()
        self._listing = ListingCheck(redactor=self._redactor)
        self._client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._gone: asyncio.Event | None = None
        self._exit_code: int | None = None
        self._pgid: int | None = None
        self._timed_out = False
        self.started_at: float | None = None
        """``time.monotonic()`` when :meth:`run` began (the startup timeout counts from it)."""

    # -- lifecycle ------------------------------------------------------------------------
    def snapshot(self) -> ExtensionStatus:
        """An immutable view for the front ends."""
        return ExtensionStatus(self.config.name, self.status, self.error, self.stderr_tail,
                               self.server_name, self.instructions, self.tools,
                               self.resources, self.prompts, self.skipped,
                               self.config.public(), self.skipped_resources,
                               self.skipped_prompts, self.listing_notes)

    def _transport(self) -> Any:
        cfg = self.config
        if cfg.type == "stdio":
            assert self._stderr is not None
            cwd = cfg.cwd or str(self._working_dir)
            self._noise = StdoutNoise()
            return self._listing.transport(stdio_transport(
                [cfg.cmd, *cfg.args], child_env(cfg), cwd, self._stderr, self._on_exit,
                self._on_spawn, self._noise))
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = create_mcp_http_client(headers=dict(cfg.headers) or None)
        return self._listing.transport(streamable_http_client(cfg.uri, http_client=http)), http

    def _on_spawn(self, pid: int) -> None:
        self._pgid = pid

    async def _watchdog(self) -> None:
        """Past ``startup_timeout_s``, kill a still-starting child.

        The handshake then fails cleanly; cancelling it mid-handshake would leave the SDK's
        streams open. The transport stops reading what the server already wrote.
        """
        await asyncio.sleep(self.config.startup_timeout_s)
        if self.status == "starting":
            self._timed_out = True
            self._noise.abandon = True
            if self._pgid is not None:
                kill_group(self._pgid)

    def _on_exit(self, code: int | None) -> None:
        self._exit_code = code
        self.error = self._noise.overlong or exit_reason(code)  # (stopped for a line too long)
        if self._gone is not None:
            self._gone.set()

    async def run(self) -> None:
        """Start, initialise, list, then hold the connection until stopped or gone."""
        self._stop, self._gone = asyncio.Event(), asyncio.Event()
        self.started_at = time.monotonic()
        watchdog = asyncio.ensure_future(self._watchdog())
        # An HTTP server has no process to kill: cancelling the handshake is all there is.
        # A stdio server gets the watchdog first and this only as a last resort.
        scope = anyio.CancelScope(deadline=anyio.current_time() + self.config.startup_timeout_s
                                  + (_HTTP_GRACE_S if self.config.type == "stdio" else 0))
        try:
            with scope:
                async with AsyncExitStack() as stack:
                    transport = self._transport()
                    if isinstance(transport, tuple):
                        transport, http = transport
                        await stack.enter_async_context(http)
                    client = Client(transport, mode="legacy", cache=None,
                                    message_handler=self._on_message,
                                    client_info=Implementation(name="goosectx",
                                                               version=__version__))
                    self._client = await stack.enter_async_context(client)
                    info = client.server_info
                    self.server_name = info.name if info else ""
                    self.instructions = cap_instructions(client.instructions or "",
                                                         self.config, self._notify)
                    await self.refresh()
                    scope.deadline = math.inf
                    self.status = "ready"
                    self.ready.set()
                    self._changed()
                    await self._hold()
            if scope.cancelled_caught and self.status == "starting":
                self._fail(self._too_slow())
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any start failure is the server's, reported
            if self._noise.flooded:
                self._fail(self._noise.reason())
            elif self._timed_out:
                self._fail(self._too_slow())
            elif self.status != "failed":
                gone = self._gone.is_set()
                self._fail(f"{exit_reason(self._exit_code)} while starting" if gone
                           else failure_reason(exc))
        finally:
            watchdog.cancel()
            self._client = None
            if self.status in ("starting", "ready"):
                self.status = "stopped"
            self.ready.set()

    def _too_slow(self) -> str:
        slow = f"did not start within {self.config.startup_timeout_s:g} s (startup_timeout_s)"
        return slow + (f"; it {self._noise.reason()}" if self._noise.before_start else "")

    async def _hold(self) -> None:
        assert self._stop is not None and self._gone is not None
        stop = asyncio.ensure_future(self._stop.wait())
        gone = asyncio.ensure_future(self._gone.wait())
        await asyncio.wait({stop, gone}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        gone.cancel()
        if self._gone.is_set() and not self._stop.is_set():
            self._fail(self._noise.overlong or exit_reason(self._exit_code))

    def _fail(self, reason: str) -> None:
        self.status, self.error = "failed", reason
        self.stderr_tail = self._stderr.tail() if self._stderr else ""
        self._notify(f"extension {self.config.name} {reason}{self._stderr_end()}")
        self.ready.set()  # after the notice: whoever waited for it finds the notice queued

    def _stderr_end(self) -> str:
        """`` — stderr: `` and its last 3 lines (redacted, as a notice is), or ``""``.

        Whole lines joined by `` | ``, at most :data:`STDERR_END_CHARS`: earlier lines are
        dropped first; a last line longer than that keeps its end. "…" marks what was left
        out before them (a wrapped log's last lines start mid-sentence).
        """
        tail = self.stderr_tail or (self._stderr.tail() if self._stderr else "")  # exit first
        every = [line.strip() for line in tail.splitlines() if line.strip()]
        lines = every[-3:]
        while len(lines) > 1 and len(" | ".join(lines)) > STDERR_END_CHARS:
            lines.pop(0)
        last = " | ".join(lines)
        if len(last) > STDERR_END_CHARS:
            last = "…" + last[1 - STDERR_END_CHARS:]
        elif len(lines) < len(every):
            last = f"… {last}"
        return f" — stderr: {self._redactor()(last)}" if last else ""

    def stop(self) -> None:
        """Ask :meth:`run` to close the connection (call on the loop)."""
        if self._stop is not None:
            self._stop.set()

    def close(self) -> None:
        """Remove the stderr file (after :meth:`run` ended)."""
        if self._stderr is not None:
            self._stderr.close()

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", "")
        if method in ("notifications/tools/list_changed", "notifications/resources/list_changed",
                      "notifications/prompts/list_changed"):
            self.list_changed = True

    # -- listing --------------------------------------------------------------------------
    async def refresh(self) -> None:
        """Fetch tools, resources and prompts again (what the server's capabilities offer)."""
        client = self._client
        assert client is not None
        caps = client.server_capabilities
        self.list_changed = False
        self._listing.clear()  # an entry the SDK rejects is skipped, not the server
        with anyio.fail_after(_LIST_TIMEOUT_S):
            tools = await all_pages(client.list_tools, "tools", "tool") if caps.tools \
                else Listed()
            resources = (await all_pages(client.list_resources, "resources", "resource")
                         if caps.resources else Listed())
            prompts = (await all_pages(client.list_prompts, "prompts", "prompt")
                       if caps.prompts else Listed())
        self.tools, skipped, renamed = offer_tools(self.config.name, tools.items,
                                                   self._taken_names(self.config.name))
        rejected = {kind: tuple(dict.fromkeys(why))  # a repeated page: each said once
                    for kind, why in self._listing.rejected.items()}
        skipped = (*rejected["tool"], *tools.skipped, *skipped)
        self.skipped_resources = (*rejected["resource"], *resources.skipped)
        self.skipped_prompts = (*rejected["prompt"], *prompts.skipped)
        self.listing_notes = (*tools.notes, *resources.notes, *prompts.notes)
        notes = (tuple(f"tool {item}; skipped" for item in skipped)
                 + tuple(f"resource {item}; skipped" for item in self.skipped_resources)
                 + tuple(f"prompt {item}; skipped" for item in self.skipped_prompts) + renamed
                 + self.listing_notes)
        for note in notes if notes != self._notes else ():
            self._notify(f"extension {self.config.name}: {note}")
        self.skipped, self._notes = skipped, notes
        self.resources = tuple(ResourceInfo(str(r.uri), r.name, r.description or "",
                                            r.mime_type) for r in resources.items)
        self.prompts = tuple(PromptInfo(p.name, p.description or "", tuple(
            PromptArg(a.name, bool(a.required), a.description or "")
            for a in (p.arguments or []))) for p in prompts.items)

    # -- calls ----------------------------------------------------------------------------
    def _unavailable(self) -> CallOutcome | None:
        if self.status == "ready" and self._client is not None:
            return None
        why = {"starting": "is still starting", "stopped": "is stopped"}.get(
            self.status, f"failed: {self.error}")
        return CallOutcome(f"extension {self.config.name} {why}; this call was not run.", True)

    async def call_tool(self, tool: ToolInfo, arguments: dict[str, Any],
                        progress: Progress | None) -> CallOutcome:
        """Call ``tool``; timeouts, server errors and a dying server become error outcomes."""
        down = self._unavailable()
        if down is not None:
            return down
        assert self._client is not None

        sink = progress

        async def on_progress(progress: float, total: float | None, message: str | None
                              ) -> None:
            if sink is not None:
                amount = f"{progress:g}/{total:g}" if total else f"{progress:g}"
                sink(f"{tool.model_name}: {message or ''} {amount}".replace("  ", " "))

        timeout = self.config.timeout_s
        try:
            with anyio.fail_after(timeout + 1):
                result = await self._client.call_tool(tool.name, arguments,
                                                      read_timeout_seconds=timeout,
                                                      progress_callback=on_progress)
        except TimeoutError:
            return CallOutcome(f"{tool.model_name} timed out after {timeout:g} s "
                               f"(timeout_s of extension {self.config.name})", True)
        except MCPError as exc:
            return self._error(tool.model_name, exc)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            return self._error(tool.model_name, exc)
        except RuntimeError as exc:  # the SDK: structured content its output schema refuses
            said = str(exc).strip().splitlines() or [type(exc).__name__]
            return CallOutcome(f"{tool.model_name} failed: {said[0]}", True)
        return convert_call_result(result, tool.model_name)

    def _error(self, what: str, exc: Exception) -> CallOutcome:
        if "timed out" in str(exc).lower():
            return CallOutcome(f"{what} timed out after {self.config.timeout_s:g} s "
                               f"(timeout_s of extension {self.config.name})", True)
        if self.status == "failed" or (self._gone is not None and self._gone.is_set()):
            why = f" ({self.error}{self._stderr_end()})" if self.error else ""
            return CallOutcome(f"{what} failed: extension {self.config.name} stopped "
                               f"during the call{why}", True)
        if (isinstance(exc, MCPError) and exc.code == UNREADABLE_REPLY
                and exc.message.startswith(UNREADABLE_PREFIX)):
            return CallOutcome(f"{what} failed: extension {self.config.name} sent a reply that "
                               f"could not be read ({exc.message[len(UNREADABLE_PREFIX):]})",
                               True)
        return CallOutcome(f"{what} failed: {failure_reason(exc)}", True)

    async def _request(self, what: str, send: Callable[[Client], Awaitable[T]]
                       ) -> T | CallOutcome:
        """``send`` on the live client within ``timeout_s``; failures as an error outcome."""
        down = self._unavailable()
        if down is not None:
            return down
        assert self._client is not None
        try:
            with anyio.fail_after(self.config.timeout_s):
                return await send(self._client)
        except (TimeoutError, MCPError, OSError, anyio.BrokenResourceError) as exc:
            return self._error(what, exc)

    async def read_resource(self, uri: str) -> CallOutcome:
        """Read ``uri``; its contents as attachments (text ones also as text)."""
        result = await self._request(f"reading {uri}", lambda c: c.read_resource(uri))
        if isinstance(result, CallOutcome):
            return result
        items = resource_contents(result.contents, self.config.name)
        text = "\n".join(a.text if a.text is not None else a.stub() for a in items)
        return CallOutcome(text or "(empty resource)", False, tuple(items))

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> CallOutcome:
        """Render prompt ``name`` with ``arguments``; its text is the user's turn."""
        result = await self._request(f"prompt {name}", lambda c: c.get_prompt(name, arguments))
        if isinstance(result, CallOutcome):
            return result
        text, attachments = convert_prompt(result)
        return CallOutcome(text, False, tuple(attachments))
