"""Earlier user requests re-sent verbatim after a compaction, as agent-only copies.

Part of step 4 of the compaction pipeline (docs/architecture.md §5): :func:`resend` chooses
which earlier requests :func:`goosectx.compaction.tail.split` re-sends in the room
``keep_user_tokens`` leaves (the task first, then the newest), each a copy (an attachment as its
one-line stub) cut in the middle with a marker when it does not fit whole. Pure functions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from goosectx.compaction.elision import elide_text
from goosectx.compaction.prompts import RESENT_HEADING, RESENT_HEADING_KIND
from goosectx.conversation import Message, MessageMetadata, TextContent, build_message

MIN_CUT_USER_TOKENS = 32
"""A re-sent user message is cut (with a marker) only when this much room is left for it."""


def stubbed_copy(message: Message) -> Message:
    """An agent-only copy of a user message; an attachment becomes its one-line stub.

    Without an attachment the copy shares the original's content tuple (so its token count
    is the original's, not counted again).
    """
    parts = []
    for p in message.content:
        stub = getattr(p, "stub", None)
        parts.append(TextContent(stub()) if callable(stub) else p)
    same = all(p is q for p, q in zip(parts, message.content, strict=True))
    content = message.content if same else tuple(parts)
    # One message built through its slots, its id (``msg_`` + 32 hex digits, as
    # :func:`~goosectx.conversation.new_message_id` makes) from 16 random bytes: a split makes a
    # copy of every earlier request it may re-send (~100 at 1k messages), a dry run keeps none.
    return build_message(message.role, content, MessageMetadata(
        user_visible=False, agent_visible=True, extra={"copy_of": message.id}),
        "msg_" + os.urandom(16).hex(), datetime.now(UTC))


def heading_message() -> Message:
    """The agent-only message that heads the re-sent requests (:data:`RESENT_HEADING`).

    Its ``source_kind`` makes it no user request: a later compaction never re-sends it.
    """
    return Message.user(RESENT_HEADING, MessageMetadata.agent_only()).with_metadata(
        extra={"source_kind": RESENT_HEADING_KIND})


def resend(earlier: Sequence[Message], measure: Callable[[Message], int],
           budget_tokens: int) -> list[Message]:
    """Earlier user requests to re-send, after their heading: the first, then newest first.

    Returned oldest first, after :func:`heading_message` (counted in ``budget_tokens``; no
    heading when nothing is re-sent).

    The first request (the session's task, or the copy of it an earlier compaction re-sent)
    gets its room first — up to half the budget when others follow, cut in the middle with a
    marker when longer — so a run of follow-ups never pushes it out (DESIGN §4.5: the task is
    the user message the model needs most). The rest of the budget takes the newest requests;
    the newest one that does not fit whole is cut in the middle with a marker (its beginning
    and its end kept); older ones are not re-sent.
    """
    first_at = next((i for i, m in enumerate(earlier) if m.is_user_request), None)
    if first_at is None or budget_tokens <= 0:
        return []
    heading = heading_message()
    budget_tokens -= measure(heading)
    if budget_tokens <= 0:
        return []
    task: list[Message] = []
    left = budget_tokens
    others = any(m.is_user_request for m in earlier[first_at + 1:])
    share = budget_tokens // 2 if others else budget_tokens
    copy = stubbed_copy(earlier[first_at])
    size = measure(copy)
    if size <= share:
        task.append(copy)
        left -= size
    elif share >= MIN_CUT_USER_TOKENS:
        task.append(cut_copy(earlier[first_at], copy, share, size))
        left -= share
    out: list[Message] = []
    for m in reversed(earlier[first_at + 1:]):
        if not m.is_user_request or left <= 0:
            continue
        copy = stubbed_copy(m)
        size = measure(copy)
        if size <= left:
            out.append(copy)
            left -= size
            continue
        if left >= MIN_CUT_USER_TOKENS:
            out.append(cut_copy(m, copy, left, size))
        break
    out.reverse()
    return [heading, *task, *out] if task or out else []


def cut_copy(original: Message, copy: Message, keep_tokens: int, tokens: int) -> Message:
    """An agent-only copy of ``original`` cut in the middle to about ``keep_tokens``."""
    cut = elide_text(copy.text, keep_tokens, tokens)  # its beginning (the task) and its end
    return Message.user(cut, MessageMetadata.agent_only()).with_metadata(
        extra={"copy_of": original.id})
