"""Property tests over random conversations: what compaction must never do (DESIGN.md §4.4).

Conversations mix plain turns, tool pairs (several calls per message too), calls left without
a response, hidden and agent-only messages, notifications, thinking and earlier compactions.
After any compaction: the agent view has no orphaned tool request or response, it contains
the newest user request (auto/reactive), and every old message is still stored, unchanged
and as user-visible as before.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    collect,
    make_session,
    manager,
    orphans,
    replaced,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from goosectx.conversation import (
    Message,
    MessageMetadata,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.errors import CompactionFailed, CompactionWouldGrow, ContextLengthExceeded
from goosectx.providers.scripted import ScriptedProvider
from goosectx.recorder import SessionRecorder
from goosectx.store import SessionStore
from goosectx.tokens import TokenCounter

_ids = itertools.count(1)
VISIBILITY = st.sampled_from([MessageMetadata.both(), MessageMetadata.both(),
                              MessageMetadata.agent_only(), MessageMetadata.user_only(),
                              MessageMetadata.invisible()])
TEXT = st.text(alphabet="abc xyz\n", min_size=0, max_size=40)


@st.composite
def segment(draw: Any) -> list[Message]:
    kind = draw(st.sampled_from(["user", "user", "assistant", "pair", "pair", "multi",
                                 "orphan_request", "orphan_response", "notice", "compaction",
                                 "long", "long"]))
    meta = draw(VISIBILITY)
    if kind == "long":  # enough text that a summary can be smaller than the view
        return [Message.assistant("long answer" + " lorem" * draw(st.integers(100, 600)), meta)]
    if kind == "user":
        return [Message.user(draw(TEXT) or "hello", meta)]
    if kind == "assistant":
        parts: tuple[Any, ...] = (ThinkingContent("hmm"),) if draw(st.booleans()) else ()
        return [Message("assistant", (*parts, *Message.assistant(draw(TEXT) or "ok").content),
                        meta)]
    if kind in ("pair", "multi"):
        n = 1 if kind == "pair" else draw(st.integers(2, 3))
        ids = [f"c{next(_ids)}" for _ in range(n)]
        request = Message("assistant", tuple(ToolRequest(i, "shell", {"command": "ls"})
                                             for i in ids), draw(VISIBILITY))
        responses = [ToolResponse(i, draw(TEXT), draw(st.booleans())) for i in ids]
        if draw(st.booleans()):
            return [request, Message("user", tuple(responses), draw(VISIBILITY))]
        return [request, *(Message("user", (r,), draw(VISIBILITY)) for r in responses)]
    if kind == "orphan_request":
        return [Message("assistant", (ToolRequest(f"c{next(_ids)}", "shell", {}),), meta)]
    if kind == "orphan_response":
        return [Message("user", (ToolResponse(f"c{next(_ids)}", "late"),), meta)]
    if kind == "notice":
        return [Message.notification(draw(TEXT) or "note")]
    cid = f"cmp_old{next(_ids)}"
    return [Message.user("# Conversation Summary\nearlier", MessageMetadata.agent_only())
            .with_metadata(is_summary=True, compaction_id=cid),
            Message.assistant("continue", MessageMetadata.agent_only())
            .with_metadata(is_continuation=True, compaction_id=cid)]


conversations = st.lists(segment(), min_size=1, max_size=14).map(
    lambda segs: [m for seg in segs for m in seg])


def newest_request(messages: list[Message]) -> str | None:
    for m in reversed(messages):
        if m.is_plain_user_text and not m.metadata.is_summary:
            return m.text
    return None


def check_invariants(old: list[Message], session: Any, trigger: str) -> None:
    """Rule changed on purpose (issue 12): the tail's originals stay agent-visible and the new
    messages are inserted before the tail, so "every old message hidden, new ones appended"
    became "nothing old before the summary, old messages in their order"."""
    view = session.conversation.agent_view()
    assert orphans(view) == []
    stored = {m.id: m for m in session.conversation}
    old_ids = [m.id for m in old]
    for m in old:  # never lose a message, never edit one, never hide it from the user
        assert m.id in stored
        assert stored[m.id].content == m.content and stored[m.id].role == m.role
        assert stored[m.id].metadata.user_visible == m.metadata.user_visible
    assert [m.id for m in session.conversation if m.id in set(old_ids)] == old_ids
    assert view and view[0].metadata.is_summary  # the model reads the summary first
    return None


def kept_pairs(agent: list[Message]) -> list[str]:
    """Ids of the complete tool pairs of the turn in progress (after the newest request)."""
    newest = max((i for i, m in enumerate(agent) if m.is_user_request), default=None)
    if newest is None:
        return []
    answered = {p.id for m in agent[newest:] for p in m.tool_responses}
    return [r.id for m in agent[newest:] for r in m.tool_requests if r.id in answered]


def grew(session: Any, run: Any) -> bool:
    """Run a compaction; True when it refused because the view would not shrink.

    Rule added on purpose (a compaction never makes the model's view larger): then nothing
    changed; else the model's view is smaller than before (raw estimates).
    """
    before = list(session.conversation.messages)
    counter = TokenCounter(None)
    size = counter.count_messages(session.conversation.agent_messages())
    try:
        run()
    except (CompactionWouldGrow, ContextLengthExceeded) as exc:
        assert isinstance(exc, CompactionWouldGrow) or "nothing changed" in exc.message
        assert session.conversation.messages == before
        return True
    except CompactionFailed as exc:  # nothing new since the last summary: nothing changed
        assert exc.message.startswith("nothing to compact: the model sees only the last")
        assert session.conversation.messages == before
        return True
    assert counter.count_messages(session.conversation.agent_messages()) < size
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=conversations, trigger=st.sampled_from(["auto", "reactive", "manual"]),
       strategy=st.sampled_from(["llm", "llm", "extractive"]))
def test_any_compaction_keeps_the_invariants(messages: list[Message], trigger: str,
                                             strategy: str) -> None:
    session = make_session(messages)
    agent_before = session.conversation.agent_messages()
    if not session.conversation.agent_view(for_sending=False):
        return  # nothing the model sees: nothing to compact
    wanted = newest_request(agent_before)
    provider = ScriptedProvider([SUMMARY_JSON])
    cm = manager(session, provider)
    events: list[Any] = []

    def run() -> None:
        if trigger == "reactive":
            events.extend(collect(cm.on_context_exceeded(REQUEST)))
        else:
            events.extend(collect(cm.compact(REQUEST, trigger=trigger,  # type: ignore[arg-type]
                                             strategy=strategy)))
    refused = grew(session, run)
    event(f"refused, the view would not shrink: {refused}")
    if refused:
        return
    assert len(replaced(events)) == 1
    check_invariants(messages, session, trigger)
    view = session.conversation.agent_view()
    event(f"newest request checked: {trigger != 'manual' and wanted is not None}")
    if trigger != "manual" and wanted is not None:  # the newest request is kept verbatim
        assert any(wanted in m.text for m in view if m.role == "user")
        # the turn in progress keeps (at least) its newest 3 tool pairs
        view_calls = {r.id for m in view for r in m.tool_requests}
        assert set(kept_pairs(agent_before)[-3:]) <= view_calls
    # A second compaction on top of the first keeps them too.
    provider.add(SUMMARY_JSON)
    old = list(session.conversation.messages)
    if not grew(session, lambda: collect(cm.compact(REQUEST))):
        check_invariants(old, session, "manual")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(messages=conversations)
def test_stored_history_matches_memory_after_compaction(messages: list[Message],
                                                        tmp_path: Path) -> None:
    store = SessionStore(tmp_path / f"db{next(_ids)}")
    try:
        session = store.create_session(tmp_path)
        for m in messages:
            session.conversation.append(m)
            store.append_message(session.id, m)
        if not session.conversation.agent_view(for_sending=False):
            return
        recorder = SessionRecorder(store, session)

        def run() -> None:
            for e in manager(session, ScriptedProvider([SUMMARY_JSON])).compact(
                    REQUEST, trigger="auto"):
                recorder.record(e)
        grew(session, run)  # refused or not, the store matches memory
        loaded = store.load(session.id)
        assert loaded.conversation.messages == session.conversation.messages
        assert loaded.conversation.agent_view() == session.conversation.agent_view()
    finally:
        store.close()


@st.composite
def tool_loops(draw: Any) -> list[Message]:
    """A long tool loop with interleaved text, multi-call messages and hidden messages."""
    out = [Message.user("run the whole migration")]
    for _ in range(draw(st.integers(20, 40))):
        out += draw(segment())
        call = f"c{next(_ids)}"
        text = (Message.assistant("checking").content if draw(st.booleans()) else ())
        out.append(Message("assistant", (*text, ToolRequest(call, "shell", {"command": "x"}))))
        out.append(Message("user", (ToolResponse(call, draw(TEXT)),)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=tool_loops(), reply=st.sampled_from(
    ['["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]', '["only one"]', "no json", "[]"]))
def test_tool_pair_summarisation_keeps_pairs_whole(messages: list[Message], reply: str) -> None:
    session = make_session(messages)
    before_view = session.conversation.agent_messages()
    cm = manager(session, ScriptedProvider([reply]), tool_call_cutoff=5)
    newest_pairs = [r.id for m in session.conversation.agent_view() for r in m.tool_requests][-3:]
    events = collect(cm.after_call(REQUEST))
    view = session.conversation.agent_view()
    assert orphans(view) == []
    stored = {m.id: m for m in session.conversation}
    for m in messages:
        assert stored[m.id].content == m.content
        assert stored[m.id].metadata.user_visible == m.metadata.user_visible
    kept_ids = {r.id for m in view for r in m.tool_requests}
    assert set(newest_pairs) <= kept_ids  # the newest 3 pairs are never touched
    notes = [m for m in session.conversation if m.id not in {x.id for x in messages}]
    assert all(m.role == "assistant" and not m.metadata.user_visible
               and m.text.startswith("[earlier tool call] ") for m in notes)
    event(f"pairs summarised: {bool(events)}")
    if events:
        assert len(notes) == events[-1].count <= 10  # type: ignore[union-attr]
        assert len(session.conversation.agent_messages()) < len(before_view)
