"""Property tests of the working-set layout (issue 12): random sessions near a 16k window.

Sessions are made of turns: a user request (sometimes long, sometimes with a constraint), tool
pairs that run commands with results of any size or write files in a few directories, and an
answer — except the last turn, which is in progress (ends with a tool result), just asked, or
answered. After any compaction (auto, reactive, manual; model or extractive summary; a summary
that names no file or is not JSON at all):

* the model's view has no orphan tool call or tool response;
* it holds the newest user request verbatim and the turn in progress — whole when it fits the
  tail budget, else its request and its newest ≥ 3 tool pairs;
* every path written in the summarised head appears in the summary (grouped by directory past
  ``summary_facts_tokens``, which the tests also set as low as 40);
* the next request is ≤ the target (½ × threshold × limit) whenever the fixed prefix, the
  summary with its capped facts, the continuation and the kept part of the turn allow it, and
  always ≤ the ceiling (threshold × limit − 5 %) — also when the provider counts 1.7 × our
  estimates (a calibrated session).
"""

from __future__ import annotations

import itertools
import posixpath
from typing import Any

import pytest
from compaction_support import collect, make_session, manager, orphans, replaced, words
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from goosectx.compaction.facts_scan import facts_reserve_tokens
from goosectx.compaction.figures import RequestContext
from goosectx.conversation import Message, MessageMetadata, ToolRequest, ToolResponse
from goosectx.errors import CompactionWouldGrow, ContextLengthExceeded
from goosectx.providers.scripted import RecordedRequest, ScriptedProvider

LIMIT = 16_000
REQUEST = RequestContext("You are a test agent. " + words(300),
                         tool_schemas=[{"type": "function", "function": {
                             "name": "shell", "description": "Run a command. " + words(200),
                             "parameters": {"type": "object", "properties": {}}}}])
DIRS = ("src/api", "src/core", "tests", "docs")
REPLIES = {
    "names no file": '```json\n{"user_intent": "work on the project", "current_work": "the '
                     'task", "next_step": "keep going"}\n```',
    "prose": "I looked at the conversation and the user wants the work to go on. " * 8,
    "object with unknown keys": '{"status": "ok"}',
    "as long as allowed": "(written to the call's max_tokens, in the provider's count)",
}
FIRST_ID = 1
"""The first number of an example's ids: each example numbers its requests, calls and files
from it, so a failing example replays with the same ids (the text of an id is counted)."""
_ids = itertools.count(FIRST_ID)


def shell_pair(tokens: int) -> list[Message]:
    cid = f"w{next(_ids)}"
    return [Message("assistant", (ToolRequest(cid, "shell", {"command": f"make step{cid}"}),)),
            Message("user", (ToolResponse(cid, words(tokens, "out")),))]


def write_pair(path: str) -> list[Message]:
    cid = f"w{next(_ids)}"
    args = {"command": "write", "path": path, "file_text": "x = 1\n"}
    return [Message("assistant", (ToolRequest(cid, "text_editor", args),)),
            Message("user", (ToolResponse(cid, f"wrote {path}"),))]


PAIR = st.one_of(st.sampled_from(DIRS), st.sampled_from([10, 40, 200, 800, 2500]))
"""A tool pair: a directory (a file written there) or the size of a command's result."""


@st.composite
def turn(draw: Any, last: str | None = None) -> tuple[int, bool, list[str | int], int]:
    """(request tokens, constraint line, tool pairs, answer tokens or 0 for none)."""
    size = draw(st.sampled_from([5, 20, 100, 600, 1500]))
    pairs = ([] if last == "asked" else
             draw(st.lists(PAIR, min_size=1 if last == "in progress" else 0, max_size=14)))
    answer = 0 if last in ("asked", "in progress") else draw(st.sampled_from([5, 60, 300]))
    return size, draw(st.booleans()), pairs, answer


@st.composite
def sessions(draw: Any) -> tuple[list[Any], str]:
    last = draw(st.sampled_from(["in progress", "in progress", "asked", "answered"]))
    return [*draw(st.lists(turn(), min_size=0, max_size=8)), draw(turn(last))], last


def build(turns: list[Any]) -> list[Message]:
    out: list[Message] = []
    for size, constraint, pairs, answer in turns:
        text = f"request {next(_ids)}: " + words(size, "ask")
        out.append(Message.user(text + ("\nyou must never touch setup.py" if constraint else "")))
        for pair in pairs:
            out += (shell_pair(pair) if isinstance(pair, int)
                    else write_pair(f"{pair}/f{next(_ids)}.py"))
        if answer:
            out.append(Message.assistant("done: " + words(answer)))
    return out


def written_paths(messages: list[Message]) -> list[str]:
    return [str(r.arguments["path"]) for m in messages for r in m.tool_requests
            if r.name == "text_editor"]


def turn_in_progress(agent: list[Message]) -> list[Message]:
    newest = max(i for i, m in enumerate(agent) if m.is_user_request)
    return agent[newest:]


# derandomize: CI runs the same examples every time (no failure by a random seed's luck); the
# examples a random seed found are added as @example below.
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(session_last=sessions(), trigger=st.sampled_from(["auto", "reactive", "manual"]),
       strategy=st.sampled_from(["llm", "llm", "extractive"]),
       reply=st.sampled_from(sorted(REPLIES)), ratio=st.sampled_from([1.0, 1.0, 1.7]),
       facts_tokens=st.sampled_from([1_500, 1_500, 40]))
@example(  # seed 333613142692657071252372543174511958487: the turn's request (2,564 tokens)
    # was cut to leave the re-sent requests room, though with its 3 small pairs it fitted the
    # target uncut — tail.split took each older message's floor as a cut's, above their size.
    session_last=([(5, False, ["src/api"] * 13, 5), (5, True, ["src/api"] * 13, 5),
                   (100, False, ["src/api"] * 12, 5), (1500, False, ["src/api"] * 6, 0)],
                  "in progress"),
    trigger="auto", strategy="llm", reply="as long as allowed", ratio=1.7, facts_tokens=1_500)
def test_compaction_keeps_the_working_set_within_the_budget(
        session_last: tuple[list[Any], str], trigger: str, strategy: str, reply: str,
        ratio: float, facts_tokens: int) -> None:
    global _ids
    _ids = itertools.count(FIRST_ID)
    turns, last = session_last
    messages = build(turns)
    session = make_session(messages)
    def longest(request: RecordedRequest) -> str:
        raw_tokens = int((request.max_tokens or 1_000) / ratio) - 60
        return ('{"user_intent": "work on the project", "current_work": "'
                + words(raw_tokens, "sum") + '"}')

    provider = ScriptedProvider([longest if reply == "as long as allowed" else REPLIES[reply]],
                                context_limit_tokens=LIMIT)
    session.state.calibration[provider.model] = [ratio]  # the provider counts ratio × ours
    cm = manager(session, provider, summary_facts_tokens=facts_tokens)
    budget = cm.layout_budget(REQUEST)
    agent = session.conversation.agent_messages()
    turn = turn_in_progress(agent)

    def measure(m: Message) -> int:
        return budget.scaled(cm.counter.count_message(m))
    before = list(session.conversation.messages)
    try:
        if trigger == "reactive":
            events = collect(cm.on_context_exceeded(REQUEST))
        else:
            events = collect(cm.compact(REQUEST, trigger=trigger,  # type: ignore[arg-type]
                                        strategy=strategy))
    except (CompactionWouldGrow, ContextLengthExceeded) as exc:
        # a compaction never makes the view larger: refused, nothing changed
        assert isinstance(exc, CompactionWouldGrow) or "nothing changed" in exc.message
        assert session.conversation.messages == before
        event("refused: the view would not shrink")
        return
    done = replaced(events)
    if not done:
        return  # nothing to compact: the model keeps every message it sees
    after = done[0].tokens_after
    view = session.conversation.agent_view()
    raw = session.conversation.agent_messages()
    assert orphans(view) == []

    # Every path written in the head is named in the summary (or its directory, grouped).
    summary = raw[0]
    assert summary.metadata.is_summary
    kept_ids = {m.id for m in raw} | {m.metadata.extra.get("copy_of") for m in raw}
    head = [m for m in agent if m.id not in kept_ids]
    for path in written_paths(head):
        assert path in summary.text or f"`{posixpath.dirname(path)}/`" in summary.text, path

    # The newest request and the turn in progress.
    user_texts = [m.text for m in view if m.role == "user"]
    turn_calls = [r.id for m in turn for r in m.tool_requests]
    view_calls = {r.id for m in view for r in m.tool_requests}
    # Whole when it fits the tail — and something before it is worth summarising (else the
    # turn's older pairs are the head: a compaction that saved nothing would be pointless).
    facts = facts_reserve_tokens(agent, budget, cm.counter)  # room kept for merged facts
    fits = (sum(measure(m) for m in turn)
            <= min(budget.tail_tokens, budget.target_tokens - budget.prefix_tokens
                   - budget.summary_max_tokens - facts - 200)
            and sum(measure(m) for m in agent[:-len(turn)])
            >= budget.summary_max_tokens + budget.tail_tokens)
    event(f"{trigger}, turn fits the tail: {fits}, last turn {last}")
    if trigger != "manual":  # a manual compaction runs between turns (goose's layout if small)
        assert any(turn[0].text in t for t in user_texts)
        if fits:
            assert set(turn_calls) <= view_calls
        else:
            assert set(turn_calls[-3:]) <= view_calls

    # The budget: always under the ceiling; under the target when the floor allows it.
    assert after <= budget.ceiling_tokens, (after, budget)
    kept_turn = [m for m in raw if m.id in {t.id for t in turn}
                 or m.metadata.extra.get("copy_of") in {t.id for t in turn}]
    # The earlier user messages re-sent (within keep_user_tokens) are kept before the tail:
    # the turn's older output gives way to them, not the other way round (DESIGN §4.5).
    resent = [m for m in raw if m.metadata.extra.get("copy_of") and m not in kept_turn]
    floor = (budget.prefix_tokens + measure(summary)
             + measure(next(m for m in raw if m.metadata.is_continuation))
             + sum(measure(m) for m in kept_turn) + sum(measure(m) for m in resent))
    event(f"floor within the target: {floor <= budget.target_tokens}")
    if floor <= budget.target_tokens:
        assert after <= budget.target_tokens, (after, floor, budget)


def test_an_imported_turn_of_observations_keeps_its_newest_steps_within_the_target() -> None:
    # SWE-agent style: the tool output comes back as user text marked "observation". Each
    # action + observation counts as a tool pair, so the turn in progress is cut like one —
    # without this the whole turn was kept, cut in the middle to the ceiling (65-69 % of the
    # window on the corpus's SWE-agent trajectories instead of ≤ 40 %).
    messages = [Message.user("fix the bug in the parser: " + words(300, "task"))]
    for i in range(40):
        messages += [Message.assistant(f"step {i}: let me look " + words(60, "act")),
                     Message("user", Message.user(f"OBSERVATION {i}: " + words(400, "obs"))
                             .content, MessageMetadata(extra={"source_kind": "observation"}))]
    session = make_session(messages)
    provider = ScriptedProvider([REPLIES["names no file"]], context_limit_tokens=LIMIT)
    cm = manager(session, provider)
    budget = cm.layout_budget(REQUEST)
    event = replaced(collect(cm.compact(REQUEST, trigger="auto")))[0]
    seen = " ".join(m.text for m in session.conversation.agent_view())
    assert event.tokens_after <= budget.target_tokens
    assert "fix the bug in the parser" in seen
    assert all(f"OBSERVATION {i}:" in seen for i in (37, 38, 39))
    assert "OBSERVATION 0:" not in seen


def test_an_extractive_summary_leaves_room_for_its_message_overhead(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An example the property test above found (CI, wave 3 ninth session): the extractive
    summary filled the summary's room in text tokens, and the message's own 4 tokens put the
    view 4 tokens over the target (6,404 > 6,400) with the floor well under it."""
    import sys

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "event", lambda *_args: None)  # hypothesis's, outside a run
    monkeypatch.setattr(module, "FIRST_ID", 13)  # the ids of the run that failed
    inner = test_compaction_keeps_the_working_set_within_the_budget.hypothesis.inner_test
    inner(session_last=([(600, False, [10, 10, 800, "src/api"], 300),
                         (100, True, ["src/api"], 60), (1500, False, ["src/core"], 0)],
                        "in progress"),
          trigger="auto", strategy="extractive", reply="as long as allowed", ratio=1.7,
          facts_tokens=40)
