"""A single turn of 200 tool calls in a 16k window keeps being compacted (issue 12).

The turn in progress is never whole in the tail, so each compaction keeps its request and its
newest ≥ 3 tool pairs and summarises the older ones: the loop goes on to the 200th call with no
pause, no "use a larger model" and no orphan tool call or response in any request. The scripted
model rejects (context length exceeded) any request over its window, as a real one would.
"""

from __future__ import annotations

from pathlib import Path

from agent_harness import EchoTool, finished, make_harness
from compaction_support import SUMMARY_JSON, orphans, words

from goosectx.compaction.prompts import TOOL_PAIRS_SYSTEM_PROMPT
from goosectx.config import Settings
from goosectx.errors import ContextLengthExceeded
from goosectx.events import HistoryReplaced, Notification
from goosectx.providers.scripted import RecordedRequest, ScriptedProvider, ScriptedReply
from goosectx.tokens import TokenCounter
from goosectx.tools.base import ToolRegistry

LIMIT = 16_000
CALLS = 200
COUNTER = TokenCounter()


def test_a_turn_of_200_tool_calls_keeps_being_compacted(tmp_path: Path) -> None:
    sent: list[RecordedRequest] = []
    calls = 0

    def reply(request: RecordedRequest) -> ScriptedReply | str:
        nonlocal calls
        if request.system == TOOL_PAIRS_SYSTEM_PROMPT:
            return '["earlier step"]'
        if not request.tools:  # the summary call
            return SUMMARY_JSON
        size = (COUNTER.count_text(request.system) + COUNTER.count_messages(request.messages)
                + COUNTER.count_text(str(request.tools)))
        if size > LIMIT:
            raise ContextLengthExceeded(f"{size} tokens is over the {LIMIT} window")
        sent.append(request)
        if calls == CALLS:
            return "All 200 steps are done."
        calls += 1
        return ScriptedReply(tool_calls=[("echo", {"text": f"step {calls}: " + words(500)})])

    provider = ScriptedProvider([reply] * (3 * CALLS), context_limit_tokens=LIMIT)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool()]))
    events = h.turn("run the 200 steps of the migration, one tool call each")
    end = finished(events)

    assert calls == CALLS and end.status == "done", end
    assert len([e for e in events if isinstance(e, HistoryReplaced)]) >= 5
    texts = " ".join(e.text for e in events if isinstance(e, Notification)).lower()
    assert "larger model" not in texts and "paused" not in texts, texts
    assert not h.session.state.auto_compaction_paused
    for request in sent:  # every request the model got: no orphan, the request kept
        assert orphans(request.messages) == []
        assert any("run the 200 steps" in m.text for m in request.messages if m.role == "user")
    assert "All 200 steps are done." in h.stored()[-1].text
