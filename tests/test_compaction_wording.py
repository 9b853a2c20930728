"""What a refused summary and a refused /compact say: figures named for what they are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from compaction_support import REQUEST, chat, collect, make_session, manager, notices, words
from fakeserver import FakeServer

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider
from goosectx.usage import Usage


def test_a_reactive_refusal_of_a_long_summary_does_not_call_the_limit_the_context() -> None:
    session = make_session([*chat(8, 150)])
    session.conversation.append(Message.user("go on"))
    # ~1,800 tokens: over its 800-token budget, under twice it in characters (not stopped)
    long_summary = '{"user_intent": "LONG ' + words(2000) + '"}'
    provider = ScriptedProvider([long_summary], context_limit_tokens=8000)
    cm = manager(session, provider)
    cm.record_call(Usage(3000, 5, 3005), REQUEST, model=provider.model)
    cm.start_turn()
    events = collect(cm.on_context_exceeded(REQUEST))
    (text,) = [t for t in notices(events) if "The model's summary would" in t]
    assert "8,000" not in text, text  # the context limit is no size of the context
    assert re.search(r"[\d,]+ tokens now, [\d,]+ with (?:the|this) summary", text), text


def test_compact_with_new_messages_all_in_the_recent_part_says_so() -> None:
    from compaction_support import SUMMARY_JSON

    from goosectx.errors import CompactionFailed

    session = make_session(chat(10, 300))
    big = '{"user_intent": "BIG ' + words(1200) + '", "next_step": "go on"}'
    provider = ScriptedProvider([big, SUMMARY_JSON], context_limit_tokens=8000)
    collect(manager(session, provider).compact(REQUEST))
    session.conversation.append(Message.user("one more thing"))
    session.conversation.append(Message.assistant("done"))
    try:
        collect(manager(session, provider).compact(REQUEST))
    except CompactionFailed as exc:
        text = exc.message
    else:
        raise AssertionError("compacted")
    assert "nothing is new since it" not in text, text
    assert "messages after it, all in the recent part kept verbatim" in text, text


def test_a_provider_refusing_a_tiny_first_message_as_too_long_gives_the_messages_figures(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the canned 400 says "maximum context length is 8192 … resulted in 9321": 8,192 is the
    # model's limit, not the size of a context of one short message
    from test_compaction_e2e import in_process_run

    monkeypatch.chdir(tmp_path)
    fake_model.add(*[{"error": "context_length"}] * 4)
    code, _, err = in_process_run("tiny question")
    assert code == 1
    assert "the context from 8,192" not in err and "8,253" not in err, err
    assert "the context window (8,192 tokens)" in err  # named as what it is: the limit
    assert re.search(r"compaction would not shrink the model's messages \([\d,]+ tokens now, "
                     r"at least [\d,]+ with the summary\); nothing changed", err), err
