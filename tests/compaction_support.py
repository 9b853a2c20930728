"""Builders shared by the compaction tests (sessions, tool pairs, event collection)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from goosectx.compaction.figures import RequestContext
from goosectx.compaction.manager import ContextManager
from goosectx.config import Settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.events import Event, HistoryReplaced, Notification
from goosectx.providers.scripted import ScriptedProvider
from goosectx.session import Session

REQUEST = RequestContext("You are a test agent.")
SUMMARY_JSON = ('```json\n{"user_intent": "build the parser", "files": [{"path": "src/p.py", '
                '"summary": "wrote the parser"}], "next_step": "run the tests"}\n```')
_ids = itertools.count(1)


def words(n: int, word: str = "lorem") -> str:
    """About ``n`` tokens of text."""
    return " ".join(f"{word}{i % 10}" for i in range(n // 2))


def tool_pair(output: str, name: str = "shell", args: dict[str, Any] | None = None,
              *, is_error: bool = False) -> list[Message]:
    """An assistant message with one tool request and the user message with its response."""
    call_id = f"call_t{next(_ids)}"
    return [
        Message("assistant", (ToolRequest(call_id, name, args or {"command": f"cmd {call_id}"}),)),
        Message("user", (ToolResponse(call_id, output, is_error),)),
    ]


def make_session(messages: Iterable[Message] = (), model: str | None = None) -> Session:
    """An in-memory session holding ``messages``."""
    now = datetime.now(UTC)
    session = Session("20250101_000000_abcd", None, Path("/tmp"), model, now, now)
    for m in messages:
        session.conversation.append(m)
    return session


def chat(turns: int, tokens_per_message: int = 200) -> list[Message]:
    """``turns`` user/assistant exchanges of about ``tokens_per_message`` each."""
    out: list[Message] = []
    for i in range(turns):
        out.append(Message.user(f"question {i}: " + words(tokens_per_message)))
        out.append(Message.assistant(f"answer {i}: " + words(tokens_per_message, "dolor")))
    return out


def manager(session: Session, provider: ScriptedProvider | None, *,
            summarizer: ScriptedProvider | None = None, **settings: Any) -> ContextManager:
    """A context manager with ``Settings(**settings)``."""
    return ContextManager(session, Settings(**settings), provider, summarizer=summarizer)


def collect(events: Iterable[Event]) -> list[Event]:
    """Drain an event iterator."""
    return list(events)


def replaced(events: Sequence[Event]) -> list[HistoryReplaced]:
    """The ``HistoryReplaced`` events."""
    return [e for e in events if isinstance(e, HistoryReplaced)]


def notices(events: Sequence[Event], kind: str = "inline") -> list[str]:
    """Texts of the notifications of one kind."""
    return [e.text for e in events if isinstance(e, Notification) and e.kind == kind]


def orphans(view: list[Message]) -> list[str]:
    """Tool parts in ``view`` that break the request → next-message-response rule."""
    bad: list[str] = []
    seen: set[str] = set()
    for i, m in enumerate(view):
        for r in m.tool_requests:
            nxt = view[i + 1] if i + 1 < len(view) else None
            if nxt is None or r.id not in {p.id for p in nxt.tool_responses}:
                bad.append(f"request {r.id}")
            seen.add(r.id)
        for p in m.tool_responses:
            if p.id not in seen:
                bad.append(f"response {p.id}")
    return bad


def compact_twice(session: Session, *replies: str) -> list[str]:
    """Two manual compactions of ``session`` (goose's layout: no tail, nothing re-sent), the
    summariser answering ``replies``, with a long exchange between them; the two summaries."""
    summariser = ScriptedProvider(list(replies))
    summaries = []
    for _ in range(2):
        collect(manager(session, None, summarizer=summariser, keep_recent_ratio=0,
                        keep_user_tokens=0).compact(REQUEST))
        summaries.append(session.conversation.agent_messages()[0].text)
        session.conversation.append(Message.user("more " + words(400)))
        session.conversation.append(Message.assistant("fine " + words(400)))
    return summaries


def cancelled_while_summarising(cancel: threading.Event) -> object:
    """A scripted summary reply that arrives after the user pressed Ctrl-C."""
    def reply(_request: object) -> str:
        cancel.set()
        return SUMMARY_JSON
    return reply
