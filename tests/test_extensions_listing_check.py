""":class:`ListingCheck` drops only the listing entries the MCP SDK rejects, from listing replies.

The transport-level check behind tests/test_extensions_bad_listings.py, without a server: the
reply to a ``prompts/list`` request keeps its valid prompts (and its cursor), an answer to any
other request passes as it came, and an entry the SDK would accept is never dropped.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse
from mcp_types.jsonrpc import ErrorData

from goosectx.extensions.listings import ListingCheck


def _asked(check: ListingCheck, number: int, method: str) -> None:
    check.sent(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=number, method=method)))


def _answer(check: ListingCheck, number: int, result: dict[str, Any]) -> dict[str, Any]:
    item = check.received(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=number,
                                                         result=result)))
    assert isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse)
    return item.message.result


GOOD = {"name": "review", "arguments": [{"name": "code", "required": True}]}


def test_a_prompts_reply_keeps_its_valid_prompts_and_its_cursor() -> None:
    check = ListingCheck()
    _asked(check, 7, "prompts/list")
    kept = _answer(check, 7, {"prompts": [GOOD, {"description": "no name"}, 3],
                              "nextCursor": "p2"})
    assert kept == {"prompts": [GOOD], "nextCursor": "p2"}
    assert check.rejected["prompt"] == [
        "prompt #2: its listing is not valid MCP (name: Field required)",
        "prompt #3: its listing is not valid MCP (the prompt: Input should be a valid "
        "dictionary or instance of Prompt)"]
    check.clear()
    assert check.rejected == {"tool": [], "resource": [], "prompt": []}


def test_other_replies_pass_as_they_came() -> None:
    check = ListingCheck()
    _asked(check, 1, "tools/call")
    odd = {"prompts": [{"description": "not a listing"}]}
    assert _answer(check, 1, odd) == odd
    _asked(check, 2, "resources/list")
    error = SessionMessage(JSONRPCError(jsonrpc="2.0", id=2,
                                        error=ErrorData(code=-32601, message="no")))
    assert check.received(error) is error
    assert _answer(check, 2, odd) == odd  # the listing request was answered already
    assert check.rejected == {"tool": [], "resource": [], "prompt": []}


def test_a_reply_with_only_valid_entries_is_not_touched() -> None:
    check = ListingCheck()
    _asked(check, "a", "resources/list")
    reply = SessionMessage(JSONRPCResponse(jsonrpc="2.0", id="a", result={
        "resources": [{"uri": "file:///notes.txt", "name": "notes"}]}))
    assert check.received(reply) is reply
