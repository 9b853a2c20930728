"""Layout: what the model keeps after a compaction or ``/clear``.

Step 4 of the compaction pipeline (docs/architecture.md §5). Old messages are never edited or
dropped: agent-visible ones get ``agent_visible=False`` (their user visibility unchanged) and
new agent-only messages are appended — the summary (role user), a continuation (role
assistant) and, for automatic compaction, a copy of the most recent plain-text user message so
the model keeps answering it (its middle elided past half the window).

INTERFACE the compaction issues extend: :func:`layout` (the conversation, the summary text,
the trigger and the budget figures) → the whole new message list, with every new message
sharing the compaction id; :func:`elided_notice` reads back what the layout had to cut. A
verbatim tail, re-sent user messages and budgets by the one budget rule replace the preserved
copy inside :func:`layout`; :mod:`goosectx.compaction.execute` only calls it.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from goosectx.compaction.prompts import CONTINUATION_TEXTS, ContinuationKind
from goosectx.compaction.request import elide_middle
from goosectx.conversation import Conversation, Message, MessageMetadata, TextContent
from goosectx.events import CompactionTrigger
from goosectx.tokens import TokenCounter


def new_compaction_id() -> str:
    """A fresh compaction id (``cmp_`` + 16 hex digits)."""
    return "cmp_" + uuid.uuid4().hex[:16]


def newest_user_request(messages: Sequence[Message]) -> Message | None:
    """The most recent message the user wrote (``Message.is_user_request``), or ``None``."""
    for m in reversed(messages):
        if m.is_user_request:
            return m
    return None


def continuation_kind(trigger: CompactionTrigger, agent_messages: Sequence[Message]
                      ) -> ContinuationKind:
    """Which continuation text follows the summary.

    ``manual`` for manual compaction; ``tool_loop`` when the model was mid tool loop (the
    newest agent-visible message carries tool results); else ``conversation``.
    """
    if trigger == "manual":
        return "manual"
    if agent_messages and agent_messages[-1].tool_responses:
        return "tool_loop"
    return "conversation"


def hide_from_agent(messages: Sequence[Message]) -> list[Message]:
    """Every message with ``agent_visible=False``; user visibility and content unchanged."""
    return [m.with_metadata(agent_visible=False) if m.metadata.agent_visible else m
            for m in messages]


def compacted_messages(
    conversation: Conversation,
    summary_text: str,
    *,
    trigger: CompactionTrigger,
    compaction_id: str,
    notice: str,
    counter: TokenCounter | None = None,
    request_budget_tokens: int | None = None,
) -> list[Message]:
    """The whole conversation after a compaction.

    Args:
        conversation: The conversation before (not modified).
        summary_text: The summary message text.
        trigger: What started the compaction.
        compaction_id: Shared by the new messages.
        notice: Text of the user-only marker.
        counter: Measures the preserved request (with ``request_budget_tokens``).
        request_budget_tokens: A preserved request longer than this has its middle elided
            (with a marker), so a paste bigger than the window cannot make compaction futile.

    Returns:
        The old messages hidden from the model, then a user-only notice (the transcript's
        marker), the summary (user, agent-only, ``is_summary``), the continuation (assistant,
        agent-only, ``is_continuation``) and, unless ``trigger`` is ``manual``, an agent-only
        copy of the newest plain-text user request (``extra["elided_from_tokens"]`` set when
        its middle was elided). New messages share ``compaction_id``.
    """
    agent_messages = conversation.agent_messages()
    kind = continuation_kind(trigger, agent_messages)
    request = None if trigger == "manual" else newest_user_request(agent_messages)
    agent_only = MessageMetadata.agent_only()
    out = hide_from_agent(conversation.messages)
    out.append(Message.notification(notice).with_metadata(compaction_id=compaction_id))
    out.append(Message.user(summary_text, agent_only).with_metadata(
        is_summary=True, compaction_id=compaction_id))
    out.append(Message.assistant(CONTINUATION_TEXTS[kind], agent_only).with_metadata(
        is_continuation=True, compaction_id=compaction_id))
    if request is not None:
        content = request.content
        extra: dict[str, int] = {}
        if counter is not None and request_budget_tokens is not None:
            tokens = counter.count_text(request.text)
            if tokens > request_budget_tokens:
                content = (TextContent(elide_middle(request.text, request_budget_tokens, tokens)),)
                extra["elided_from_tokens"] = tokens
        out.append(Message("user", content, agent_only).with_metadata(
            compaction_id=compaction_id, extra=extra))
    return out


def cleared_messages(conversation: Conversation, *, notice: str) -> list[Message]:
    """The whole conversation after ``/clear``: everything hidden, plus a user-only notice."""
    return [*hide_from_agent(conversation.messages), Message.notification(notice)]


def layout(
    conversation: Conversation,
    summary_text: str,
    *,
    trigger: CompactionTrigger,
    compaction_id: str,
    counter: TokenCounter,
    context_limit_tokens: int,
) -> list[Message]:
    """The whole conversation after a compaction (the user-only marker's text left empty).

    A preserved request over half the window is elided (manual compaction keeps no request).
    See :func:`compacted_messages` for the order of the new messages.
    """
    request_budget = context_limit_tokens // 2 if trigger != "manual" else None
    return compacted_messages(conversation, summary_text, trigger=trigger,
                              compaction_id=compaction_id, notice="", counter=counter,
                              request_budget_tokens=request_budget)


def elided_notice(messages: Sequence[Message], compaction_id: str) -> str | None:
    """The inline notice for a preserved request whose middle :func:`layout` elided, or None."""
    elided: Any = next((m.metadata.extra["elided_from_tokens"] for m in messages
                        if m.metadata.compaction_id == compaction_id
                        and "elided_from_tokens" in m.metadata.extra), None)
    if elided is None:
        return None
    return (f"Your latest message ({elided:,} tokens) is longer than half the context "
            f"window, so the model now sees only its beginning and end. Send the part "
            f"that matters in a smaller message, or use a model with a larger window.")
