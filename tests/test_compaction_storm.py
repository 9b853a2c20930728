"""No compaction storm in a small window's tool loop (DESIGN §4.2 "no compaction loops").

A tool loop whose newest tool responses alone fill most of the room under the threshold was
compacted every step or two (5 summaries in 12 steps at a 3,000-token limit). Now the first
report after such a compaction pauses auto-compaction once, with the figures and the fixes,
and the turn goes on. Driven through the agent loop with the scripted provider.
"""

from __future__ import annotations

from pathlib import Path

from agent_harness import EchoTool, Harness, finished, make_harness
from compaction_support import SUMMARY_JSON, notices, replaced, words

from goosectx.config import Settings
from goosectx.events import Event
from goosectx.providers.scripted import RecordedRequest, ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolRegistry

STEPS = 12


def tool_loop(tmp_path: Path, output_tokens: int
              ) -> tuple[Harness, list[Event], ScriptedProvider]:
    """One turn of :data:`STEPS` echo calls, each answering ~``output_tokens`` of text."""
    made = [0]

    def reply(request: RecordedRequest) -> ScriptedReply:
        if not request.tools:  # the summary call
            return ScriptedReply(text=SUMMARY_JSON)
        made[0] += 1
        if made[0] > STEPS:
            return ScriptedReply(text="all steps done")
        return ScriptedReply(tool_calls=[("echo", {"text": f"step {made[0]} "
                                                   + words(output_tokens)})])

    provider = ScriptedProvider([reply] * 40, context_limit_tokens=3_000)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool()]))
    events = h.turn("run the long task " + words(50))
    assert finished(events).status == "done"
    assert made[0] == STEPS + 1  # every step ran: a pause does not stop the turn
    return h, events, provider


def summary_calls(provider: ScriptedProvider) -> int:
    return sum(not r.tools for r in provider.requests)


def test_a_loop_whose_compaction_frees_a_step_or_two_pauses_once(tmp_path: Path) -> None:
    h, events, provider = tool_loop(tmp_path, 200)  # ~420 tokens a step
    assert len(replaced(events)) == 1 and summary_calls(provider) == 1  # was 4 in 12 steps
    paused = [t for t in notices(events) if t.startswith("Auto-compaction is paused")]
    assert len(paused) == 1
    text = paused[0]
    assert "each step of this tool loop adds about" in text
    assert "every step or two" in text
    for fix in ("larger context window", "auto_compact_threshold", "tool_output_max_chars",
                "/compact"):
        assert fix in text
    stored = h.store.load(h.session.id).state
    assert stored.auto_compaction_paused  # a resume keeps it; /context gives the reason
    assert stored.pause_reason.startswith("each step of this tool loop")


def test_a_loop_with_room_after_its_compaction_is_not_paused(tmp_path: Path) -> None:
    h, events, _ = tool_loop(tmp_path, 100)  # ~220 tokens a step: room for many more
    assert len(replaced(events)) == 1
    assert not any(t.startswith("Auto-compaction is paused") for t in notices(events))
    assert not h.store.load(h.session.id).state.auto_compaction_paused
