"""A model summary over its budget but under the stop (between 1.5× and 2× it).

Such a reply is read whole (the stream is stopped only past twice the budget): when it would
grow the model's view (a short session), a manual compaction refuses it as the stopped one is refused — one
line naming the summary, nothing swapped, the history as it was, the call billed — and an
automatic one puts the extractive summary in its place.
"""

from __future__ import annotations

import re

import pytest
from cli_support import run_cli
from compaction_support import REQUEST, chat, collect, make_session, manager, notices, replaced
from conftest import DUMMY_API_KEY
from fakeserver import FakeServer
from test_compact_cmd import PRICED_MODEL, load, saved_session

from goosectx.compaction.manager import ContextManager
from goosectx.compaction.summarize import stop_chars
from goosectx.conversation import Message
from goosectx.errors import SummaryOverBudget
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter
from goosectx.usage import Usage

BUDGET = 800  # the summary's budget in an 8,000-token window


def _summary(ratio: float) -> str:
    """A JSON summary of about ``ratio`` × the budget in tokens, made of varied words."""
    counter = TokenCounter(None)
    text, n = "", 0
    while counter.count_text(text) < ratio * BUDGET:
        n += 1
        text = ('{"user_intent": "OVER-SUMMARY '
                + " ".join(f"step{i} checked" for i in range(n * 10)) + '"}')
    return text


def _session(reply: str) -> tuple[ContextManager, ScriptedProvider]:
    """Eight short exchanges: a summary of 1.7x its budget is about as long as they are."""
    session = make_session([*chat(8, 150), Message.user("go on")])
    provider = ScriptedProvider([reply], context_limit_tokens=8000)
    cm = manager(session, provider)
    cm.record_call(Usage.of(3000, 5), REQUEST, model=provider.model)
    return cm, provider


def test_the_reply_is_between_one_and_a_half_and_twice_its_budget_and_not_stopped() -> None:
    reply = _summary(1.7)
    tokens = TokenCounter(None).count_text(reply)
    assert 1.5 * BUDGET < tokens < 2 * BUDGET
    assert len(reply) < stop_chars(BUDGET)  # read whole


def test_manual_compaction_refuses_it_in_one_line_and_changes_nothing() -> None:
    cm, provider = _session(_summary(1.7))
    before = list(cm.session.conversation.messages)
    with pytest.raises(SummaryOverBudget) as err:
        collect(cm.compact(REQUEST))
    assert provider.requests[0].max_tokens == BUDGET
    assert re.fullmatch(r"the model's summary \([\d,]+ tokens\) was far over its budget of "
                        r"800; nothing changed", err.value.message), err.value.message
    assert "\n" not in err.value.one_line()
    assert err.value.hint == "try again, or use --strategy extractive"
    assert cm.session.conversation.messages == before  # nothing swapped, nothing hidden
    assert not any(m.metadata.is_summary for m in cm.session.conversation.messages)
    (entry,) = cm.session.ledger.entries[1:]  # the summary call is billed all the same
    assert entry.purpose == "compaction" and entry.usage.reported


def test_automatic_compaction_uses_the_extractive_summary_instead() -> None:
    cm, _ = _session(_summary(1.7))
    cm.start_turn()
    events = collect(cm.on_context_exceeded(REQUEST))
    (event,) = replaced(events)
    assert event.strategy == "extractive" and event.tokens_after < event.tokens_before
    said = [t for t in notices(events) if "using an extractive summary instead" in t]
    assert len(said) == 1 and said[0].startswith("The model's summary would"), said
    assert not any("OVER-SUMMARY" in m.text for m in cm.session.conversation.agent_view())


def test_goosectx_compact_exits_1_with_the_one_line_and_keeps_the_session(
        fake_server: FakeServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_MODEL", PRICED_MODEL)
    monkeypatch.setenv("OPENAI_API_BASE", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_API_KEY)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    fake_server.add({"text": _summary(1.7),
                      "usage": {"prompt_tokens": 2_500, "completion_tokens": 1_400}})
    sid = saved_session(messages=[*chat(8, 150), Message.user("go on")])
    before = load(sid)
    code, out, err = run_cli(capsys, "compact", "work")
    assert code == 1, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert any(re.fullmatch(r"goosectx: error: the model's summary \([\d,]+ tokens\) was far "
                            r"over its budget of 800; nothing changed — try again, or use "
                            r"--strategy extractive", line) for line in lines), err
    after = load(sid)
    assert after.conversation.messages == before.conversation.messages
    (entry,) = after.ledger.entries  # billed, stored
    assert entry.purpose == "compaction" and entry.usage.input_tokens == 2_500
