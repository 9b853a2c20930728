"""Approval modes and the approval callable (DESIGN.md §5).

The caller of the agent loop passes an :data:`ApprovalFn`: the REPL asks the user, ``run``
without a TTY denies. Modes: ``auto`` (run every tool), ``approve`` (ask before each),
``smart_approve`` (read-only calls run, others ask; the default), ``chat`` (no tool runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

from goosectx.config import ApprovalMode
from goosectx.conversation import ToolRequest

ApprovalDecision = Literal["allow_once", "always_allow", "deny", "cancel"]
ApprovalFn: TypeAlias = Callable[[ToolRequest], ApprovalDecision]

DENIED_TEXT = (
    "The user denied this tool call. Do not retry it; continue without it or ask the user."
)
NON_INTERACTIVE_DENIED_TEXT = (
    "This tool call needs approval, and goosectx is running without a terminal to ask the "
    "user, so it was not run. Do not retry it; finish without it or explain what you need."
)
CHAT_MODE_TEXT = (
    "Tools are disabled: goosectx is in chat mode, so no tool was run. Answer without tools."
)
CANCELLED_TEXT = "The user cancelled this tool call."


def needs_approval(mode: ApprovalMode, read_only: bool) -> bool:
    """Whether a call must be approved in ``mode`` (``chat`` is handled by the caller)."""
    if mode == "auto":
        return False
    if mode == "approve":
        return True
    return not read_only


def deny_all(_request: ToolRequest) -> ApprovalDecision:
    """The non-interactive approval: deny whatever needs approval."""
    return "deny"
