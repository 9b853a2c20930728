"""What a refused summary and a refused /compact say: figures named for what they are."""

from __future__ import annotations

import re

from compaction_support import REQUEST, chat, collect, make_session, manager, notices, words

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider
from goosectx.usage import Usage


def test_a_reactive_refusal_of_a_long_summary_does_not_call_the_limit_the_context() -> None:
    session = make_session([*chat(8, 150)])
    session.conversation.append(Message.user("go on"))
    long_summary = '{"user_intent": "LONG ' + words(4000) + '"}'
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
