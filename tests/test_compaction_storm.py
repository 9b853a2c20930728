"""No compaction storm in a small window's tool loop (DESIGN §4.2 "no compaction loops").

A tool loop whose newest tool responses alone fill most of the room under the threshold was
compacted every step or two (5 summaries in 12 steps at a 3,000-token limit). Now the first
report after such a compaction pauses auto-compaction once, with the figures and the fixes,
and the turn goes on. Paused, a request over the context limit itself is still compacted
(a server that truncates silently let it grow to ~9,000 tokens in a 3,000-token window), and
the pause is told once. Driven through the agent loop with the scripted provider.
"""

from __future__ import annotations

from pathlib import Path

from agent_harness import EchoTool, Harness, finished, make_harness
from compaction_support import SUMMARY_JSON, notices, replaced, words

from goosectx.config import Settings
from goosectx.errors import ContextLengthExceeded
from goosectx.events import Event
from goosectx.providers.scripted import RecordedRequest, ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolRegistry

STEPS = 12


def tool_loop(tmp_path: Path, output_tokens: int, *, steps: int = STEPS,
              refuse_at: int | None = None) -> tuple[Harness, list[Event], ScriptedProvider]:
    """One turn of ``steps`` echo calls, each answering ~``output_tokens`` of text; the call
    of step ``refuse_at`` is first refused as too long (a provider counting more than us)."""
    made, refused = [0], []

    def reply(request: RecordedRequest) -> ScriptedReply:
        if not request.tools:  # the summary call
            return ScriptedReply(text=SUMMARY_JSON)
        if made[0] + 1 == refuse_at and not refused:
            refused.append(True)
            return ScriptedReply(error=ContextLengthExceeded("prompt is too long"))
        made[0] += 1
        if made[0] > steps:
            return ScriptedReply(text="all steps done")
        return ScriptedReply(tool_calls=[("echo", {"text": f"step {made[0]} "
                                                   + words(output_tokens)})])

    provider = ScriptedProvider([reply] * (4 * steps), context_limit_tokens=3_000)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool()]))
    events = h.turn("run the long task " + words(50))
    assert finished(events).status == "done"
    assert made[0] == steps + 1  # every step ran: a pause does not stop the turn
    return h, events, provider


def summary_calls(provider: ScriptedProvider) -> int:
    return sum(not r.tools for r in provider.requests)


def test_a_loop_whose_compaction_frees_a_step_or_two_pauses_once(tmp_path: Path) -> None:
    h, events, provider = tool_loop(tmp_path, 200)  # ~420 tokens a step
    at_threshold, *at_limit = replaced(events)  # was 4 in 12 steps
    assert at_threshold.tokens_before < 3_000  # then paused: only over the limit itself
    assert len(at_limit) == 1 and at_limit[0].tokens_before > 3_000
    assert summary_calls(provider) == 2
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


def sent_tokens(h: Harness) -> list[int]:
    """What each model call's request held, as the provider counted it (usage "auto")."""
    return [e.usage.input_tokens for e in h.session.ledger.entries if e.purpose == "reply"]


def test_paused_no_request_over_the_context_limit_is_sent(tmp_path: Path) -> None:
    # Against a server that truncates silently (no refusal), the requests grew to 8,054 tokens.
    h, events, _ = tool_loop(tmp_path, 200, steps=24)
    assert max(sent_tokens(h)) <= 3_000
    assert len(replaced(events)) >= 4  # each time the next request would be over the limit
    paused = [t for t in notices(events) if t.startswith("Auto-compaction is paused")]
    assert len(paused) == 1  # told when it starts, not at every compaction it leaves
    state = h.store.load(h.session.id).state
    assert state.auto_compaction_paused and state.pause_reason  # /context still says it


def test_a_pause_set_again_after_a_refusal_is_not_told_again(tmp_path: Path) -> None:
    # A reactive compaction lifts the pause; the next report sets it again for the same cause:
    # the notice ("paused for this session") came back every time.
    h, events, provider = tool_loop(tmp_path, 200, steps=16, refuse_at=8)
    assert any(e.trigger == "reactive" for e in replaced(events))
    paused = [t for t in notices(events) if t.startswith("Auto-compaction is paused")]
    assert len(paused) == 1
    assert h.store.load(h.session.id).state.auto_compaction_paused  # set again, silently
    assert max(sent_tokens(h)) <= 3_000
