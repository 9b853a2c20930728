"""Tool-pair summarisation (DESIGN.md §4.3)."""

from __future__ import annotations

import pytest
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    collect,
    make_session,
    manager,
    tool_pair,
)

from goosectx.compaction.decide import tool_call_cutoff
from goosectx.compaction.toolpairs import extractive_note, select_pairs
from goosectx.config import Settings, load_settings
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.errors import ProviderUnavailable
from goosectx.events import ToolPairsSummarized
from goosectx.providers.scripted import ScriptedProvider
from goosectx.usage import Usage

NOTES = "```json\n" + str([f"note {i}" for i in range(10)]).replace("'", '"') + "\n```"


def loop(pairs: int, output: str = "line\n" * 50) -> list[Message]:
    out = [Message.user("migrate every table")]
    for i in range(pairs):
        out += tool_pair(f"table {i}: {output}", args={"command": f"migrate t{i}"})
    return out


@pytest.mark.parametrize(("limit", "threshold", "expected"), [
    (128_000, 0.8, 15), (1_000_000, 0.8, 120), (8_000, 0.8, 10), (10_000_000, 0.9, 500),
    (128_000, 0.0, 15),  # auto-compaction off: threshold 0.8 in the formula
])
def test_cutoff_formula(limit: int, threshold: float, expected: int) -> None:
    assert tool_call_cutoff(Settings(threshold_ratio=threshold), limit) == expected


def test_cutoff_and_switch_from_the_environment() -> None:
    settings = load_settings(environ={"GOOSE_TOOL_CALL_CUTOFF": "3",
                                      "GOOSE_TOOL_PAIR_SUMMARIZATION": "off"})
    assert tool_call_cutoff(settings, 128_000) == 3 and not settings.tool_pair_summarization


def test_nothing_happens_at_or_below_cutoff_plus_10() -> None:
    session = make_session(loop(25))  # default cutoff for 128k is 15: 25 is not above 25
    provider = ScriptedProvider([NOTES])
    assert collect(manager(session, provider).after_call(REQUEST)) == []
    assert provider.requests == []


def test_oldest_ten_pairs_become_notes_where_they_stood() -> None:
    messages = loop(26)
    session = make_session(messages)
    provider = ScriptedProvider([NOTES], cost_per_call_usd=0.001)
    cm = manager(session, provider)
    cm.record_call(Usage.of(20_000, 10), REQUEST, model="m")
    before = cm.current_tokens(REQUEST)[0]
    events = collect(cm.after_call(REQUEST))
    done = events[-1]
    assert isinstance(done, ToolPairsSummarized) and done.count == 10
    assert done.call is not None and done.call.purpose == "tool_pairs"
    assert done.call.usage.cost_usd == 0.001 and session.ledger.entries[-1] is done.call
    assert done.tokens_saved > 0
    assert cm.current_tokens(REQUEST)[0] == before - done.tokens_saved
    # One call, all ten pairs in it, in order.
    prompt = provider.requests[0].messages[0].text
    assert prompt.index("migrate t0") < prompt.index("migrate t9") and "migrate t10" not in prompt
    conv = session.conversation.messages
    for i in range(10):
        request_at = next(k for k, m in enumerate(conv) if m.id == messages[1 + 2 * i].id)
        note = conv[request_at + 2]
        assert note.role == "assistant" and note.text == f"[earlier tool call] note {i}"
        assert not note.metadata.user_visible and note.metadata.agent_visible
        assert conv[request_at].metadata.user_visible and not conv[request_at].metadata.agent_visible
        assert conv[request_at + 1].metadata.user_visible
        assert not conv[request_at + 1].metadata.agent_visible
    # The user still sees every full output; the model sees notes then the newer pairs.
    assert len([m for m in session.conversation.user_view() if m.tool_responses]) == 26
    assert len([m for m in session.conversation.agent_view() if m.tool_responses]) == 16


def test_missing_notes_and_failed_calls_get_extractive_notes() -> None:
    session = make_session(loop(26))
    collect(manager(session, ScriptedProvider(['["only the first"]'])).after_call(REQUEST))
    notes = [m.text for m in session.conversation.agent_messages() if m.role == "assistant"
             and m.text.startswith("[earlier tool call]")]
    assert notes[0] == "[earlier tool call] only the first"
    assert notes[1].startswith("[earlier tool call] shell `migrate t1` → table 1: line")
    session = make_session(loop(26))
    events = collect(manager(session, ScriptedProvider([ProviderUnavailable("down")]))
                     .after_call(REQUEST))
    done = events[-1]
    assert isinstance(done, ToolPairsSummarized) and done.count == 10 and done.call is None


def test_newest_three_are_never_touched_even_in_one_long_loop() -> None:
    messages = loop(14)
    pairs = select_pairs(make_session(messages).conversation.agent_messages(), cutoff=0)
    assert len(pairs) == 10  # 14 pairs > 0 + 10: the oldest ten go, the newest three never
    messages = loop(12)
    pairs = select_pairs(make_session(messages).conversation.agent_messages(), cutoff=0)
    assert [p.request.arguments["command"] for p in pairs] == [  # type: ignore[index]
        f"migrate t{i}" for i in range(9)]


def test_only_messages_holding_nothing_but_the_pair_are_rewritten() -> None:
    messages = [Message.user("go")]
    messages.append(Message("assistant", (*Message.assistant("let me look").content,
                                          ToolRequest("x1", "shell", {"command": "ls"}))))
    messages.append(Message("user", (ToolResponse("x1", "a"),)))
    messages.append(Message("assistant", (ToolRequest("x2", "shell", {}),
                                          ToolRequest("x3", "shell", {}))))
    messages.append(Message("user", (ToolResponse("x2", "b"), ToolResponse("x3", "c"))))
    messages += loop(14)[1:]
    pairs = select_pairs(make_session(messages).conversation.agent_messages(), cutoff=0)
    ids = {p.request.id for p in pairs}
    assert not ids & {"x1", "x2", "x3"} and len(pairs) == 10


def test_off_switch_and_manages_own_context_skip_it() -> None:
    for kwargs, provider in (({"tool_pair_summarization": False}, ScriptedProvider([NOTES])),
                             ({}, ScriptedProvider([NOTES], manages_own_context=True))):
        session = make_session(loop(30))
        assert collect(manager(session, provider, **kwargs).after_call(REQUEST)) == []
        assert provider.requests == []


def test_extractive_note_shapes() -> None:
    [pair] = select_pairs(make_session(loop(14)).conversation.agent_messages(), cutoff=3)[:1]
    assert extractive_note(pair) == "shell `migrate t0` → table 0: line … (50 lines)"


def test_pairs_condensed_into_notes_still_give_their_facts_to_every_later_compaction() -> None:
    # lt1 at an 8,000 window, cutoff 4: the write of tests/test_csvtool.py, a failing command
    # and the `echo small-*` commands were condensed; no later summary listed them.
    messages = [Message.user("build the csv tool"),
                *tool_pair("Created src/csvtool.py", name="text_editor", args={
                    "command": "write", "path": "src/csvtool.py", "file_text": "x = 1\n"})]
    for i in range(7):
        messages += tool_pair(f"small-{i}", args={"command": f"echo small-{i}"})
    messages += tool_pair('Traceback (most recent call last):\nValueError: BOOM-17 in parser\n'
                          '[exit code: 1]', args={"command": "python3 -c 'raise ValueError'"},
                          is_error=True)
    messages += tool_pair("Created tests/test_csvtool.py", name="text_editor", args={
        "command": "write", "path": "tests/test_csvtool.py", "file_text": "y = 2\n"})
    messages += loop(6)[1:]
    session = make_session(messages)
    cm = manager(session, ScriptedProvider([NOTES]), tool_call_cutoff=4)
    assert isinstance(collect(cm.after_call(REQUEST))[-1], ToolPairsSummarized)
    seen = "\n".join(m.text for m in session.conversation.agent_view())
    assert "BOOM-17" not in seen  # condensed: the model reads the note, not the pair
    session.conversation.append(Message.assistant("all done"))
    for strategy, summariser in (("llm", ScriptedProvider([SUMMARY_JSON])), ("extractive", None)):
        collect(manager(session, None, summarizer=summariser, keep_recent_ratio=0,
                        keep_user_tokens=0).compact(REQUEST, strategy=strategy))
        summary = session.conversation.agent_messages()[0].text
        assert "`tests/test_csvtool.py`" in summary and "`src/csvtool.py`" in summary
        assert "ValueError: BOOM-17 in parser" in summary
        assert "echo small-3" in summary
        session.conversation.append(Message.user("and now? " + "word " * 300))
        session.conversation.append(Message.assistant("this " + "word " * 300))


def reused_ids(messages: list[Message]) -> list[Message]:
    """The same history from a model that calls every tool call ``call_0``."""
    def same(p: object) -> object:
        if isinstance(p, ToolRequest):
            return ToolRequest("call_0", p.name, p.arguments)
        return ToolResponse("call_0", p.output, p.is_error) if isinstance(p, ToolResponse) else p
    return [Message(m.role, tuple(same(p) for p in m.content)) for m in messages]  # type: ignore[misc]


def test_a_model_reusing_one_call_id_gets_its_pairs_condensed_each_with_its_own_output() -> None:
    session = make_session(reused_ids(loop(26)))
    events = collect(manager(session, ScriptedProvider(['["only the first"]']))
                     .after_call(REQUEST))
    assert isinstance(events[-1], ToolPairsSummarized) and events[-1].count == 10
    notes = [m.text for m in session.conversation.agent_messages() if m.role == "assistant"
             and m.text.startswith("[earlier tool call]")]
    for i in range(1, 10):
        assert notes[i].startswith(f"[earlier tool call] shell `migrate t{i}` → table {i}:")


def narrated_pair(i: int) -> list[Message]:
    """A tool pair whose assistant message also holds the model's text (never condensed)."""
    request, response = tool_pair(f"narrated {i}", args={"command": f"echo narrated {i}"})
    text = Message.assistant(f"Let me run check {i}.").content
    return [Message("assistant", (*text, *request.content)), response]


def test_pairs_that_cannot_be_condensed_do_not_trigger_a_call_per_tool_call() -> None:
    # fresh13b pairs_every_call: 22 narrated pairs, then 12 plain ones at cutoff 10 gave 9
    # summariser calls of "summarised 1 old tool call" each: the narrated pairs counted toward
    # cutoff + 10 but were never condensed. Only condensable pairs count: no call for 12.
    messages = [Message.user("run the checks")]
    for i in range(22):
        messages += narrated_pair(i)
    session = make_session(messages)
    provider = ScriptedProvider([NOTES] * 30)
    cm = manager(session, provider, tool_call_cutoff=10)
    events = []
    for i in range(12):
        for m in tool_pair(f"plain {i}", args={"command": f"echo plain {i}"}):
            session.conversation.append(m)
        events += collect(cm.after_call(REQUEST))
    assert [e for e in events if isinstance(e, ToolPairsSummarized)] == []
    assert provider.requests == []
    # Past cutoff + 10 condensable pairs, one call condenses ten of them.
    for i in range(12, 21):
        for m in tool_pair(f"plain {i}", args={"command": f"echo plain {i}"}):
            session.conversation.append(m)
        events += collect(cm.after_call(REQUEST))
    done = [e for e in events if isinstance(e, ToolPairsSummarized)]
    assert [e.count for e in done] == [10] and len(provider.requests) == 1
    prompt = provider.requests[0].messages[0].text
    assert "echo plain 0" in prompt and "echo plain 9" in prompt and "narrated" not in prompt
