"""Listings that survive an entry the MCP SDK rejects: the server's other entries still work.

docs/architecture.md §1 (extensions). The SDK (mcp 2.3.0) checks a ``tools/list``,
``resources/list`` or ``prompts/list`` page whole: one tool whose input schema is
``{"type": "string"}``, one resource without a name or one prompt whose arguments are not a
list failed the whole server with "ValidationError: 1 validation error for ListToolsResult",
naming neither entry nor field. :class:`ListingCheck` wraps the server's transport (the SDK's
``Client`` takes any ``mcp.client.Transport``; no private name of its session is used, only the
stream type names of ``mcp.client._transport``, as :mod:`.process`): it notes the id of each listing
request the session sends and, in the reply to it, checks each entry alone with the SDK's own
per-version check, drops the rejected ones and names each with why (README: such an entry is
listed as skipped). The session then reads the page as its own: a tool's output schema is kept
for checking the structured results of its calls, and ``nextCursor`` pages are fetched as usual.

Every string the server sends (a reply's result, a notification's parameters: instructions, a
tool's name, description and schemas, prompt and resource listings, a prompt's text, a resource's
contents) first passes through ``redact`` (:mod:`goosectx.extensions.redacting`: a tool
output's redaction, the extension's own ``envs``, ``env_keys`` and ``headers`` values added):
neither goosectx's secrets nor the extension's reach the model or the terminal (README:
Security).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any, Self

from mcp.client import Transport
from mcp.client._transport import ReadStream, TransportStreams, WriteStream
from mcp.shared.message import SessionMessage
from mcp.types import ListPromptsResult, ListResourcesResult, ListToolsResult
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from mcp_types import methods as sdk_methods
from pydantic import BaseModel, ValidationError

from goosectx.extensions.offered import schema_problem

_LISTS: dict[str, tuple[str, str, type[BaseModel]]] = {
    "tools/list": ("tools", "tool", ListToolsResult),
    "resources/list": ("resources", "resource", ListResourcesResult),
    "prompts/list": ("prompts", "prompt", ListPromptsResult),
}
"""A listing method → its result's list key, what one entry is called, the SDK's model."""
_FALLBACK_VERSION = "2025-11-25"
"""The version checked before the handshake's reply names one (the SDK's own fallback)."""


class ListingCheck:
    """Drops the entries of listing replies that the SDK would reject, naming each.

    Attributes:
        rejected: Per kind (``tool``, ``resource``, ``prompt``), ``"NAME: why"`` for each
            entry dropped since :meth:`clear`, in the server's order.
    """

    def __init__(self, redactor: Callable[[], Callable[[str], str]] = lambda: str) -> None:
        self._redactor = redactor
        """The redaction of a message's strings, asked once per message (it may change)."""
        self.rejected: dict[str, list[str]] = {kind: [] for _key, kind, _m in _LISTS.values()}
        self._asked: dict[str | int, str] = {}
        self._version = _FALLBACK_VERSION

    def clear(self) -> None:
        """Forget the entries dropped so far (before listing everything again)."""
        for names in self.rejected.values():
            names.clear()

    def transport(self, inner: Transport) -> AbstractAsyncContextManager[TransportStreams]:
        """``inner`` (a transport), its replies to listing requests checked entry by entry."""
        return self._wrapped(inner)

    @asynccontextmanager
    async def _wrapped(self, inner: Transport) -> AsyncIterator[TransportStreams]:
        async with inner as (read, write):
            yield _CheckedRead(read, self), _NotedWrite(write, self)

    def sent(self, item: SessionMessage) -> None:
        """Note ``item`` when it asks for a listing (or is the handshake)."""
        message = item.message
        if isinstance(message, JSONRPCRequest) and (message.method in _LISTS
                                                     or message.method == "initialize"):
            self._asked[message.id] = message.method

    def received(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        """``item``, or when it answers a listing request, the same with its valid entries."""
        if not isinstance(item, SessionMessage):
            return item
        item = self._redacted(item)
        message = item.message
        if isinstance(message, JSONRPCError) and message.id is not None:
            self._asked.pop(message.id, None)
        if not isinstance(message, JSONRPCResponse):
            return item
        method = self._asked.pop(message.id, None)
        if method == "initialize":
            version = message.result.get("protocolVersion")
            self._version = version if isinstance(version, str) else self._version
        if method not in _LISTS:
            return item
        result = self._checked(method, message.result)
        if result is message.result:
            return item
        return SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result),
                              metadata=item.metadata)

    def _redacted(self, item: SessionMessage) -> SessionMessage:
        """``item`` with every string of its result or parameters redacted (itself if none)."""
        message = item.message
        redact = self._redactor()
        if isinstance(message, JSONRPCResponse):
            result = _redacted_value(message.result, redact)
            if result is not message.result:
                return SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=message.id,
                                                      result=result), metadata=item.metadata)
        elif isinstance(message, (JSONRPCNotification, JSONRPCRequest)) \
                and message.params is not None:
            params = _redacted_value(message.params, redact)
            if params is not message.params:
                return SessionMessage(message.model_copy(update={"params": params}),
                                      metadata=item.metadata)
        return item

    def _checked(self, method: str, result: dict[str, Any]) -> dict[str, Any]:
        key, kind, model = _LISTS[method]
        items = result.get(key)
        if not isinstance(items, list):
            return result  # not a page of entries: the SDK's error stands
        kept = []
        for number, item in enumerate(items, 1):
            why = _rejection(method, self._version, item)
            if why is None:
                kept.append(item)
            else:
                self.rejected[kind].append(f"{_entry_name(kind, item, number)}: {why}")
        return result if len(kept) == len(items) else {**result, key: kept}


def _redacted_value(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` (JSON) with its strings, keys included, redacted; itself when none changed."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        items = [_redacted_value(v, redact) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = [(redact(k) if isinstance(k, str) else k, _redacted_value(v, redact))
                 for k, v in value.items()]
        same = all(k is k2 and v is v2 for (k, v), (k2, v2) in zip(value.items(), pairs,
                                                                  strict=True))
        return value if same else dict(pairs)
    return value


def _entry_name(kind: str, item: object, number: int) -> str:
    """How a rejected entry is named: its name, a resource's URI, else ``KIND #N``."""
    fields = ("name", "uri") if kind == "resource" else ("name",)
    for field in fields:
        value = item.get(field) if isinstance(item, dict) else None
        if isinstance(value, str) and value:
            return value
    return f"{kind} #{number}"


def _rejection(method: str, version: str, item: object) -> str | None:
    """Why the SDK rejects the listed entry ``item`` alone, or ``None``."""
    key, kind, model = _LISTS[method]
    page = {key: [item]}
    try:
        sdk_methods.validate_server_result(method, version, page)
        model.model_validate(page, by_name=False)
    except ValidationError as exc:
        return _why(kind, item, exc)
    except (KeyError, ValueError):  # a version the SDK has no check for: its whole model
        try:
            model.model_validate(page, by_name=False)
        except ValidationError as exc:
            return _why(kind, item, exc)
    return None


def _why(kind: str, item: object, exc: ValidationError) -> str:
    if kind == "tool":
        schema = item.get("inputSchema") if isinstance(item, dict) else None
        if (problem := schema_problem(schema)) is not None:
            return problem
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"][2:]) or f"the {kind}"
    if field.startswith("inputSchema"):
        return f"its input schema is not an MCP object schema ({field}: {error['msg']})"
    return f"its listing is not valid MCP ({field}: {error['msg']})"


class _Wrapped:
    """A transport stream wrapped: closing and the async context go to the inner one."""

    _inner: ReadStream[SessionMessage | Exception] | WriteStream[SessionMessage]

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc_val: BaseException | None, exc_tb: TracebackType | None
                        ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


class _CheckedRead(_Wrapped):
    """The transport's read stream; replies to listing requests go through the check."""

    _inner: ReadStream[SessionMessage | Exception]

    def __init__(self, inner: ReadStream[SessionMessage | Exception], check: ListingCheck
                 ) -> None:
        self._inner, self._check = inner, check

    @property
    def last_context(self) -> Any:
        """The sender's context of the inner stream (the SDK's dispatcher reads it)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        return self._check.received(await self._inner.receive())

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        return self._check.received(await self._inner.__anext__())


class _NotedWrite(_Wrapped):
    """The transport's write stream; listing requests are noted on their way out."""

    _inner: WriteStream[SessionMessage]

    def __init__(self, inner: WriteStream[SessionMessage], check: ListingCheck) -> None:
        self._inner, self._check = inner, check

    async def send(self, item: SessionMessage, /) -> None:
        self._check.sent(item)
        await self._inner.send(item)
