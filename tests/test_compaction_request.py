"""The summary request: flattening, the 100/90/80/50/0 % ladder, elision, max_tokens."""

from __future__ import annotations

import pytest
from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    collect,
    make_session,
    manager,
    replaced,
    tool_pair,
    words,
)

from goosectx.compaction.request import (
    SummaryLadder,
    flatten,
    middle_out_removal,
    reserved_output_tokens,
)
from goosectx.conversation import Message, ThinkingContent, ToolRequest, ToolResponse
from goosectx.errors import CompactionFailed, ContextLengthExceeded
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.tokens import TokenCounter

COUNTER = TokenCounter(None)


def ladder(messages: list[Message], limit: int, output: int = 4096) -> SummaryLadder:
    return SummaryLadder(messages, counter=COUNTER, context_limit_tokens=limit,
                         output_limit_tokens=output)


def test_flatten_writes_roles_tool_calls_and_results_and_omits_thinking() -> None:
    messages = [
        Message.user("please list files"),
        Message("assistant", (ThinkingContent("secret reasoning"), ToolRequest(
            "c1", "shell", {"command": "ls"}))),
        Message("user", (ToolResponse("c1", "a.py\nb.py"),)),
        Message("assistant", (ToolRequest("c2", "shell", {"command": "false"}),)),
        Message("user", (ToolResponse("c2", "exit 1", is_error=True),)),
        Message.assistant("there are two files"),
    ]
    text = "\n".join(line.text for line in flatten(messages))
    assert text == ('[user]: please list files\n'
                    '[assistant tool call] shell {"command":"ls"}\n'
                    '[tool result] a.py\nb.py\n'
                    '[assistant tool call] shell {"command":"false"}\n'
                    '[tool result, error] exit 1\n'
                    '[assistant]: there are two files')
    assert "secret reasoning" not in text


def test_middle_out_removal_takes_the_results_nearest_the_centre_first() -> None:
    messages = [m for i in range(40) for m in tool_pair(f"out{i}")]
    lines = flatten(messages[:20])

    def kept_outputs(keep: int) -> list[int]:
        out, _, _ = middle_out_removal(lines, keep)
        return [int(ln.text.rsplit("out", 1)[1]) for ln in out if ln.is_result]

    assert kept_outputs(100) == list(range(10))
    assert kept_outputs(90) == [0, 1, 2, 3, 5, 6, 7, 8, 9]  # ceil(10 × 10 %) = 1 removed
    assert kept_outputs(80) == [0, 1, 2, 3, 6, 7, 8, 9]
    assert kept_outputs(50) == [0, 1, 7, 8, 9]
    assert kept_outputs(0) == []
    out, removed, total = middle_out_removal(lines, 80)
    assert (removed, total) == (2, 10)
    # Rule changed on purpose (issue 12): a removed result keeps its call line, marked, so the
    # summariser still learns the command ran.
    assert sum(ln.text.startswith("[assistant tool call]") for ln in out) == 8
    omitted = [ln.text for ln in out if ln.text.endswith("→ (result omitted)")]
    assert len(omitted) == 2 and all(t.startswith("[tool] shell ") for t in omitted)
    for n in range(1, 40):  # of any number of results: those nearest the centre, lower first
        results = [line for m in messages[:2 * n] for line in flatten([m]) if line.is_result]
        centre = (n - 1) / 2
        nearest = sorted(range(n), key=lambda j: (abs(j - centre), j))
        for keep in (90, 80, 50, 33, 1):
            gone = {results[j].tool_id for j in nearest[:-(-n * (100 - keep) // 100)]}
            assert {ln.tool_id for ln in middle_out_removal(flatten(messages[:2 * n]), keep)[0]
                    if ln.text.endswith("(result omitted)")} == gone, (n, keep)


def test_first_rung_is_100_percent_when_everything_fits() -> None:
    messages = [Message.user("hi"), *tool_pair(words(300)), Message.assistant("ok")]
    first = ladder(messages, 128_000).first()
    assert first is not None
    assert (first.rung, first.removed_results, first.total_results) == ("100%", 0, 1)
    assert first.estimate_tokens + first.max_tokens <= 128_000


def test_lone_tool_response_is_removed_at_the_first_rung_below_100() -> None:
    messages = [Message.user("check the log"), *tool_pair(words(6000)), Message.assistant("ok")]
    candidates = list(SummaryLadder(messages, counter=COUNTER, context_limit_tokens=5000,
                                    output_limit_tokens=1000, result_chars=None))
    assert candidates[0].rung == "90%"  # 100 % does not fit; 90 % removes ceil(1 × 0.1) = 1
    assert candidates[0].removed_results == 1
    assert "lorem" not in candidates[0].prompt and "check the log" in candidates[0].prompt
    # Rule changed on purpose (issue 12): the call line stays, marked "(result omitted)".
    assert "[tool] shell" in candidates[0].prompt and "(result omitted)" in candidates[0].prompt
    assert all(c.estimate_tokens + 1000 <= 0.95 * 5000 for c in candidates)


def test_long_results_are_cut_to_head_and_tail_lines_before_any_is_removed() -> None:
    log = "\n".join(f"line {i} " + words(8) for i in range(400))
    messages = [Message.user("run the tests"), *tool_pair(log), Message.assistant("ok")]
    first = SummaryLadder(messages, counter=COUNTER, context_limit_tokens=5000,
                          output_limit_tokens=1000, result_chars=2000).first()
    assert first is not None and first.rung == "100%" and first.removed_results == 0
    assert "line 0 " in first.prompt and "line 399 " in first.prompt
    assert "lines cut …]" in first.prompt and "line 200 " not in first.prompt


def test_without_tool_responses_an_oversized_history_goes_straight_to_elision() -> None:
    messages = [Message.user("paste: " + words(20_000)), Message.assistant("noted")]
    candidates = list(ladder(messages, 8000, output=2000))
    assert candidates, "compaction must work when the history alone is over the window"
    first = candidates[0]
    assert first.rung == "0% + elided" and first.total_results == 0
    assert "tokens elided" in first.prompt
    assert first.estimate_tokens + reserved_output_tokens(8000, 2000) <= 8000
    assert "paste: lorem0" in first.prompt and "noted" in first.prompt  # head and short texts
    sizes = [c.estimate_tokens for c in candidates]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)


def test_elision_cuts_the_longest_texts_and_leaves_short_ones_whole() -> None:
    short = "the user asked for a CSV exporter"
    messages = [Message.user(short), Message.assistant("reading " + words(12_000)),
                Message.user("and add tests"), Message.assistant(words(9_000, "ipsum"))]
    first = ladder(messages, 6000, output=1000).first()
    assert first is not None and first.rung == "0% + elided"
    assert f"[user]: {short}" in first.prompt and "[user]: and add tests" in first.prompt
    assert first.prompt.count("tokens elided") == 2


def test_max_tokens_is_clamped_to_output_limit_8000_and_the_window() -> None:
    messages = [Message.user("hi"), Message.assistant("hello")]
    assert ladder(messages, 128_000, output=1000).first().max_tokens == 1000  # type: ignore[union-attr]
    assert ladder(messages, 128_000, output=100_000).first().max_tokens == 8000  # type: ignore[union-attr]
    small = ladder(messages, 2000, output=100_000).first()
    assert small is not None  # what 95 % of the window leaves, at most half the window
    assert small.max_tokens == min(1000, int(0.95 * 2000) - small.estimate_tokens)
    capped = SummaryLadder(messages, counter=COUNTER, context_limit_tokens=128_000,
                           output_limit_tokens=100_000, max_output_tokens=1600).first()
    assert capped is not None and capped.max_tokens == 1600  # the layout budget's cap


def ten_logs() -> list[Message]:
    messages = [Message.user("fix the build")]
    for i in range(10):
        messages += tool_pair(f"log {i} " + words(200))
    messages.append(Message.assistant("still failing"))
    return messages


def test_provider_context_error_steps_down_to_the_next_rung() -> None:
    provider = ScriptedProvider([ContextLengthExceeded("too long"), SUMMARY_JSON])
    session = make_session(ten_logs())  # goose's layout: the whole history is the head
    events = collect(manager(session, provider, keep_recent_ratio=0, keep_user_tokens=0)
                     .compact(REQUEST))
    sizes = [len(r.messages[0].text) for r in provider.requests]
    assert len(sizes) == 2 and sizes[0] > sizes[1]
    assert "log 4" not in provider.requests[1].messages[0].text  # the centre went first
    assert replaced(events)[0].rung == "90%"


def test_a_summary_request_refused_twice_is_not_sent_a_third_time() -> None:
    # README: a summary call is sent once per attempt, once more (smaller) after a "too long"
    # refusal — not a rung at a time down the whole ladder.
    provider = ScriptedProvider([ContextLengthExceeded("too long"),
                                 ScriptedReply(error=ContextLengthExceeded("still too long")),
                                 SUMMARY_JSON])
    session = make_session(ten_logs())
    before = list(session.conversation)
    with pytest.raises(CompactionFailed, match="rejected 2 summary requests"):
        collect(manager(session, provider, keep_recent_ratio=0, keep_user_tokens=0)
                .compact(REQUEST))
    assert len(provider.requests) == 2
    assert list(session.conversation) == before  # nothing changed


def test_ladder_for_compaction_uses_the_summarisers_own_limit() -> None:
    messages = [Message.user("q"), *tool_pair(words(3000)), Message.assistant("a")]
    main = ScriptedProvider([], context_limit_tokens=1_000_000)
    small = ScriptedProvider([SUMMARY_JSON], model="scripted/small", context_limit_tokens=2500,
                             output_limit=500)
    collect(manager(make_session(messages), main, summarizer=small).compact(REQUEST))
    assert not main.requests
    sent = small.requests[0]
    assert COUNTER.count_text(sent.messages[0].text) + (sent.max_tokens or 0) <= 2500


def test_rungs_that_remove_nothing_more_are_not_tried_again() -> None:
    # No tool results: 100/90/80/50/0 % are one and the same request; a provider that rejects
    # it must next see a smaller (elided) request, not the identical one four more times.
    messages = [Message.user("hello " + words(200)), Message.assistant("noted")]
    candidates = list(ladder(messages, 128_000))
    assert [c.rung for c in candidates if "elided" not in c.rung] == ["100%"]
    prompts = [c.prompt for c in candidates]
    assert len(prompts) == len(set(prompts))


def test_a_history_whose_kept_lines_alone_are_too_large_gets_the_same_answer_unflattened() -> None:
    # A long session's dry run skips flattening when the lines every request keeps (all but
    # the tool results, each at no less than an elided line's floor) cannot fit: the plan
    # printed must be the one the whole ladder gives, for every window around the edge.
    from goosectx.session import TokenCount
    from goosectx.tokens import message_text_for_count

    messages = [Message.user("start: " + words(40))]
    for i in range(60):
        messages += [*tool_pair(words(300, f"out{i}")),
                     Message.assistant(f"step {i}: " + words(6 + i % 30))]
    stored = {m.id: TokenCount(COUNTER.count_text(message_text_for_count(m)), COUNTER.encoding)
              for m in messages}
    counter = TokenCounter(None, stored=stored)
    skipped = 0
    for limit in range(1_000, 12_000, 250):
        quick = SummaryLadder(messages, counter=counter, context_limit_tokens=limit,
                              output_limit_tokens=500)
        whole = SummaryLadder(messages, counter=counter, context_limit_tokens=limit,
                              output_limit_tokens=500)
        assert whole.lines  # measured first: the ladder walks every rung
        first = quick.first()
        assert first == whole.first(), limit
        assert quick.total_results == whole.total_results == 60
        skipped += first is None and quick._lines is None
    assert skipped  # the smallest windows were answered without flattening


def test_the_first_rung_is_the_first_whose_lines_fit_with_only_the_results_that_tell_read() -> None:
    # Each rung's estimate is the tokens of the lines it keeps. A dry run of a long session
    # finds the first rung that fits without measuring (reading from the store) every tool
    # result the rungs before it keep: it stops once a rung is certainly over. The request
    # must be the one the whole measured ladder gives, for every window around the edges.
    from goosectx.compaction.request import KEEP_RUNGS_PERCENT
    from goosectx.compaction.results import ResultLines
    from goosectx.session import TokenCount
    from goosectx.tokens import message_text_for_count

    messages = [Message.user("start: " + words(40))]
    for i in range(40):
        outputs = ["\n".join(words(20 + 7 * ((i + k) % 9), f"o{i}x{j}") for j in range(1 + i % 5))
                   for k in range(1 + (i % 4 == 0) + (i % 8 == 0))]  # parallel calls too
        calls = [ToolRequest(f"c{i}-{k}", "shell", {"command": f"cmd {i} {k}"})
                 for k in range(len(outputs))]
        messages += [Message("assistant", tuple(calls)),
                     Message("user", tuple(ToolResponse(c.id, out)
                                           for c, out in zip(calls, outputs, strict=True))),
                     Message.assistant(f"step {i}: " + words(8))]
    messages.insert(9, Message("user", (ToolResponse("mixed", "out\n[user]: x"),
                                        ToolResponse("c1-0", "a result of a repeated id"))))
    stored = {m.id: TokenCount(COUNTER.count_text(message_text_for_count(m)), COUNTER.encoding)
              for m in messages}
    counter = TokenCounter(None, stored=stored)
    rungs: set[str] = set()
    partly_read = 0
    for limit in range(2_000, 32_000, 50):
        fresh = SummaryLadder(messages, counter=counter, context_limit_tokens=limit,
                              output_limit_tokens=500, result_chars=300)
        whole = SummaryLadder(messages, counter=counter, context_limit_tokens=limit,
                              output_limit_tokens=500, result_chars=300)
        budget = whole.input_budget_tokens
        fits = [keep for keep in KEEP_RUNGS_PERCENT
                if whole.fixed_tokens + sum(line.tokens for line in middle_out_removal(
                    whole.lines, keep)[0]) <= budget]
        first = fresh.first()
        assert first == whole.first(), limit
        assert list(fresh) == list(whole), limit
        if fits:
            assert first is not None and first.rung == f"{fits[0]}%", limit
            rungs.add(first.rung)
        groups = [e for e in fresh._head() if isinstance(e, ResultLines)]
        partly_read += 0 < sum(e._lines is None for e in groups) < len(groups)
    assert {"100%", "0%"} < rungs and len(rungs) >= 4
    assert partly_read  # some rungs were told over without measuring every result
