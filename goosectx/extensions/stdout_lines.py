"""A stdio MCP server's stdout cut into JSON-RPC messages: its lines, capped, and their parse.

Part of :mod:`goosectx.extensions.process` (docs/architecture.md, "Extension servers"): each
line is one message; a line is read in linear time and at most :data:`LINE_LIMIT_BYTES` long
(:class:`Lines`), and one that answers a request goosectx cancelled is dropped as it arrives.
A message's bytes that are not UTF-8 and its lone surrogate escapes are read as U+FFFD; a reply
that still cannot be read fails its request at once (:func:`parse`), never by its timeout.
"""

from __future__ import annotations

import json
import re
from contextlib import suppress
from typing import Any

import mcp_types
from mcp.shared.message import SessionMessage

LINE_LIMIT_BYTES = 64 * 1024 * 1024
"""The longest line (one JSON-RPC message) read from a server's stdout, bytes: the shell
tool's output cap (``tools.overflow_files.MAX_FILE_BYTES``), room for a tool result of
several images in base64. A longer one fails the call it answers and stops the server: its
stdout is no longer JSON-RPC goosectx can read (a never-ending line grew to 450 MB)."""
SKIPPED_CHECK_BYTES = 1024 * 1024
"""A line still arriving is looked at once this long: a reply to a request goosectx
cancelled (Ctrl-C) is then dropped as it arrives, not kept until its end or the cap."""
CANCELLED_KEPT = 256
"""How many cancelled requests' ids the reader remembers (the most recent)."""


class Lines:
    """A server's stdout cut into lines, in linear time, each at most :data:`LINE_LIMIT_BYTES`.

    The bytes of a line still arriving are kept in one ``bytearray`` and looked through for
    its end from where the last look stopped (a line of N bytes read in k chunks: O(N), where
    joining and splitting the whole of it again at each chunk was O(N·k)). A line past the
    limit sets :attr:`overlong` and is no longer kept; one that answers a request goosectx
    cancelled (:meth:`cancelled`) is dropped as it arrives, up to its end.
    """

    def __init__(self) -> None:
        self._pending = bytearray()
        self._looked = 0  # ``_pending[:_looked]`` holds no newline
        self._checked = False  # the line arriving was looked at (:data:`SKIPPED_CHECK_BYTES`)
        self._skipping = False  # dropping a cancelled request's reply up to its end
        self._skipped = 0  # … of which this many bytes were dropped
        self._cancelled: dict[object, None] = {}
        self._overlong_id: object = None
        self.overlong: str | None = None
        """Why the line arriving was given up (past :data:`LINE_LIMIT_BYTES`), else ``None``."""

    def cancelled(self, data: str) -> None:
        """Note the request a ``notifications/cancelled`` message (``data``, JSON) cancels."""
        with suppress(ValueError, TypeError, AttributeError):
            request_id = json.loads(data)["params"]["requestId"]
            self._cancelled[request_id] = None
            self._checked = False  # (the line arriving may be its reply: looked at again)
            while len(self._cancelled) > CANCELLED_KEPT:
                del self._cancelled[next(iter(self._cancelled))]

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines ``chunk`` ends (without their newline), in order."""
        if self._skipping:
            end = chunk.find(b"\n")
            if end < 0:
                self._skipped += len(chunk)
                if self._skipped > LINE_LIMIT_BYTES:  # (a reply that never ends: the server
                    self._give_up()  # is stopped, not read at the prompt for ever)
                return []
            self._skipping, self._checked, chunk = False, False, chunk[end + 1:]
        pending = self._pending
        pending += chunk
        done: list[bytes] = []
        start = 0
        while (end := pending.find(b"\n", self._looked)) >= 0:
            done.append(bytes(pending[start:end]))
            start = self._looked = end + 1
            self._checked = False
        if start:
            del pending[:start]
        self._looked = len(pending)
        if len(pending) > SKIPPED_CHECK_BYTES and not self._checked:
            self._checked = True
            if self._reply_id() in self._cancelled:
                self._skipped = len(pending)
                pending.clear()
                self._looked, self._skipping = 0, True
        if len(pending) > LINE_LIMIT_BYTES:
            self._overlong_id = self._reply_id()
            self._give_up()
        return done

    def _give_up(self) -> None:
        """The line arriving passed :data:`LINE_LIMIT_BYTES`: dropped, :attr:`overlong` set."""
        self._pending.clear()
        self._looked = 0
        self.overlong = (f"wrote a line over {LINE_LIMIT_BYTES >> 20} MiB on stdout (one "
                         "JSON-RPC message never ended); it was stopped")

    def _reply_id(self) -> object:
        """The id the line arriving names near its start (a reply's), else ``None``."""
        head = bytes(self._pending[:4096])
        found = _REPLY_ID.search(head)
        if found is None or b'"method"' in head:
            return None
        with suppress(ValueError):
            return json.loads(found.group(1).decode("utf-8", errors="replace"))
        return None

    def failed_reply(self) -> SessionMessage | None:
        """An error answering the request the overlong line was the reply to, if it named it."""
        if self._overlong_id is None or self.overlong is None:
            return None
        error = {"jsonrpc": "2.0", "id": _scrub(self._overlong_id), "error": {
            "code": UNREADABLE_REPLY, "message": f"{UNREADABLE_PREFIX}the server {self.overlong}"}}
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python(error))


UNREADABLE_REPLY = -32700  # the code of the error made for a reply line that cannot be read
UNREADABLE_PREFIX = "goosectx could not read the reply: "  # ... and how its message starts
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_REPLY_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def parse(line: bytes) -> SessionMessage | None:
    """The JSON-RPC message on ``line``; None for a line that is not one (server noise).

    Bytes that are not UTF-8 and lone surrogate escapes become U+FFFD. A reply that still
    cannot be read, but names its request's id, becomes an error answering that request at
    once (code :data:`UNREADABLE_REPLY`) rather than leaving the call waiting for its timeout.
    """
    try:
        message: Any = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        pass
    else:
        return SessionMessage(message)
    try:
        data = _scrub(json.loads(line.decode("utf-8", errors="replace")))
        message = mcp_types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError as exc:
        return _unreadable_reply(line, exc)
    return SessionMessage(message)


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    return value


def _unreadable_reply(line: bytes, exc: ValueError) -> SessionMessage | None:
    found = _REPLY_ID.search(line)
    if found is None or b'"method"' in line:  # no request waits for it
        return None
    try:
        request_id = json.loads(found.group(1).decode("utf-8", errors="replace"))
    except ValueError:
        return None
    what = (f"not JSON: {exc.msg} at character {exc.pos}" if isinstance(exc, json.JSONDecodeError)
            else "not a JSON-RPC message")
    error = {"jsonrpc": "2.0", "id": _scrub(request_id), "error": {
        "code": UNREADABLE_REPLY, "message": f"{UNREADABLE_PREFIX}{what}; {len(line)} bytes"}}
    return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python(error))
