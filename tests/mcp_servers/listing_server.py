"""An MCP server written with the SDK's low-level server API whose listings hold bad entries.

Run as ``python listing_server.py [--http PORT]`` (stdio, or streamable HTTP on 127.0.0.1). Its listings are sent as written, not checked by the SDK:

* ``tools/list`` in two pages (cursor ``"page2"``): page 1 has echo and bad_string (input schema
  ``{"type": "string"}``); page 2 has weather, whose output schema asks for a number
  ``temperature_c`` (``weather(city="Nowhere")`` answers a string there instead).
* ``resources/list``: ``file:///notes.txt`` (notes) and one resource without a name.
* ``prompts/list``: review and one prompt whose arguments are not a list.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import methods as _methods

_WEATHER_SCHEMA = {"type": "object", "properties": {"temperature_c": {"type": "number"}},
                   "required": ["temperature_c"]}


async def list_tools(_ctx: Any, params: types.PaginatedRequestParams | None) -> dict[str, Any]:
    if params is not None and params.cursor == "page2":
        return {"tools": [{"name": "weather", "description": "The weather in a city.",
                           "inputSchema": {"type": "object",
                                           "properties": {"city": {"type": "string"}}},
                           "outputSchema": _WEATHER_SCHEMA}]}
    return {"tools": [{"name": "echo", "description": "Echo the text back.",
                       "inputSchema": {"type": "object",
                                       "properties": {"text": {"type": "string"}}}},
                      {"name": "bad_string", "inputSchema": {"type": "string"}}],
            "nextCursor": "page2"}


async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "weather":
        city = arguments.get("city", "")
        temperature: Any = "warm" if city == "Nowhere" else 4
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{city}: {temperature}")],
            structured_content={"temperature_c": temperature})
    return types.CallToolResult(content=[types.TextContent(type="text",
                                                           text=str(arguments.get("text")))])


async def list_resources(_ctx: Any, _params: Any) -> dict[str, Any]:
    return {"resources": [{"uri": "file:///notes.txt", "name": "notes"},
                          {"uri": "file:///nameless.txt"}]}


async def read_resource(_ctx: Any, params: types.ReadResourceRequestParams
                        ) -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(
        uri=str(params.uri), text="the notes say: ship it", mime_type="text/plain")])


async def list_prompts(_ctx: Any, _params: Any) -> dict[str, Any]:
    return {"prompts": [{"name": "review", "description": "Ask for a review.",
                         "arguments": [{"name": "code", "required": True}]},
                        {"name": "broken", "arguments": "code"}]}


async def get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    code = (params.arguments or {}).get("code", "")
    return types.GetPromptResult(messages=[types.PromptMessage(
        role="user", content=types.TextContent(type="text", text=f"Please review: {code}"))])


_serialize = _methods.serialize_server_result
_AS_IS = ("tools/list", "resources/list", "prompts/list")


def _sent_as_is(method: str, version: str, data: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return dict(data) if method in _AS_IS else _serialize(method, version, data, **kw)


_methods.serialize_server_result = _sent_as_is  # the SDK's server checks what it sends

server = Server("listing", on_list_tools=list_tools, on_call_tool=call_tool,
                on_list_resources=list_resources, on_read_resource=read_resource,
                on_list_prompts=list_prompts, on_get_prompt=get_prompt)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]),
                    log_level="warning")
    else:
        anyio.run(main)
