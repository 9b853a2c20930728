"""``tools/list`` that survives a tool the MCP SDK rejects: the server's other tools still work.

docs/architecture.md §1 (extensions). The SDK (mcp 2.3.0) checks a ``tools/list`` page whole:
one tool whose input schema is ``{"type": "string"}`` or ``{}`` failed the whole server with
"ValidationError: 1 validation error for ListToolsResult", naming neither tool nor field.
:class:`ToolPages` lists through the SDK; when a page fails that check it asks for the page
again without it, checks each tool alone with the SDK's own per-version check, keeps the
valid ones and names each rejected one and why (README: such a tool is listed under "skipped
tools"). The valid ones are handed to the SDK session as its own ``list_tools`` would (a call
reads their output schemas from it). Three of the session's private names are used for that
(``_stamp``, ``_dispatcher``, ``_absorb_tool_listing``, as the SDK's ``Client`` does); without
them the SDK's error stands, as before.
"""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp.types import ListToolsRequest, ListToolsResult, PaginatedRequestParams
from mcp_types import methods as sdk_methods
from pydantic import ValidationError

from goosectx.extensions.offered import schema_problem


class ToolPages:
    """Fetches ``tools/list`` pages for :func:`~goosectx.extensions.server._all_pages`.

    Attributes:
        rejected: Tools left out because the SDK rejects them, ``"NAME: why"``.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.rejected: list[str] = []

    async def fetch(self, cursor: str | None = None) -> ListToolsResult:
        """One page: the SDK's, or when it rejects the page, its valid tools only."""
        try:
            return await self.client.list_tools(cursor=cursor)
        except ValidationError:
            raw = await _raw_page(self.client, cursor)
            if raw is None:
                raise
        return self._valid_part(raw, cursor)

    def _valid_part(self, raw: dict[str, Any], cursor: str | None) -> ListToolsResult:
        items = raw.get("tools")
        items = items if isinstance(items, list) else []
        kept = []
        for number, item in enumerate(items, 1):
            why = _rejection(self.client.protocol_version, item)
            if why is None:
                kept.append(item)
            else:
                name = item.get("name") if isinstance(item, dict) else None
                self.rejected.append(f"{name if isinstance(name, str) else f'tool #{number}'}: "
                                     f"{why}")
        page = ListToolsResult.model_validate({"tools": kept, "nextCursor": raw.get("nextCursor")},
                                              by_name=False)
        absorb = self.client.session._absorb_tool_listing  # noqa: SLF001 - see the module doc
        return absorb(page, complete=cursor is None and page.next_cursor is None)


async def _raw_page(client: Client, cursor: str | None) -> dict[str, Any] | None:
    """The page as the server sent it, unchecked; ``None`` when this SDK cannot give it."""
    session = client.session
    stamp = getattr(session, "_stamp", None)
    send = getattr(getattr(session, "_dispatcher", None), "send_raw_request", None)
    if stamp is None or send is None or not hasattr(session, "_absorb_tool_listing"):
        return None
    request = ListToolsRequest(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: dict[str, Any] = {}
    stamp(data, opts)
    raw = await send("tools/list", data.get("params"), opts)
    return raw if isinstance(raw, dict) else None


def _rejection(version: str, item: object) -> str | None:
    """Why the SDK rejects the listed tool ``item`` alone, or ``None``."""
    try:
        try:
            sdk_methods.validate_server_result("tools/list", version, {"tools": [item]})
        except KeyError:  # a version the SDK has no check for: its whole-result model
            pass
        ListToolsResult.model_validate({"tools": [item]}, by_name=False)
    except ValidationError as exc:
        schema = item.get("inputSchema") if isinstance(item, dict) else None
        if (problem := schema_problem(schema)) is not None:
            return problem
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"][2:]) or "the tool"
        if field.startswith("inputSchema"):
            return f"its input schema is not an MCP object schema ({field}: {error['msg']})"
        return f"its listing is not valid MCP ({field}: {error['msg']})"
    return None
