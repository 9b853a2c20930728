"""Compacting again: what a compaction does with the summary an earlier one left.

A second summary keeps the first one's pending tasks and its "answered" state, the summariser
reads re-sent user messages as the user's, and a compaction with nothing new to summarise (or
nothing before a single oversized message) makes no model call.
"""

from __future__ import annotations

import json

import pytest
from compaction_support import (
    REQUEST,
    chat,
    collect,
    make_session,
    manager,
    replaced,
    tool_pair,
    words,
)

from goosectx.compaction.extractive import ANSWERED_NEXT_STEP, extractive_summary
from goosectx.compaction.flatten import flatten, kept_and_counted_chars
from goosectx.compaction.prompts import CONTINUATION_TEXTS
from goosectx.compaction.summary import render_markdown
from goosectx.conversation import Message, MessageMetadata, TextContent, repair
from goosectx.errors import CompactionFailed
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter

COUNTER = TokenCounter()
PENDING_SUMMARY = "```json\n" + json.dumps({
    "user_intent": "build modules", "current_work": "step 3",
    "pending_tasks": ["PENDING-ALPHA write the loader", "PENDING-GAMMA document it"],
    "next_step": "write step 4"}) + "\n```"


def summary_message(text: str) -> Message:
    return Message("user", (TextContent(text),),
                   MessageMetadata(user_visible=False, is_summary=True))


def test_an_extractive_summary_keeps_the_earlier_model_summarys_pending_tasks() -> None:
    session = make_session(chat(3))
    provider = ScriptedProvider([PENDING_SUMMARY])
    collect(manager(session, provider).compact(REQUEST))
    for step in range(4):
        session.conversation.append(Message.user(f"continue with step {step}"))
        for m in tool_pair(f"output {step} " + words(600)):
            session.conversation.append(m)
        session.conversation.append(Message.assistant(f"step {step} done"))
    collect(manager(session, provider).compact(REQUEST, strategy="extractive"))
    seen = "\n".join(m.text for m in session.conversation.agent_messages())
    assert "PENDING-ALPHA write the loader" in seen
    assert "PENDING-GAMMA document it" in seen


def test_the_model_summarys_pending_tasks_are_not_facts_of_a_later_model_summary() -> None:
    from goosectx.compaction.facts import merge_facts

    head = [summary_message("# Conversation Summary\n\n## User intent\n\ngo\n\n"
                            "## Pending tasks\n\n- PENDING-X")]
    # The model's own guess is not presented as a fact of the transcript.
    merged = merge_facts("# Conversation Summary\n\n## Next step\n\nrest", head,
                         max_tokens=400, counter=COUNTER)
    assert "Open to-do items" not in merged


def test_a_summary_of_an_answered_summary_says_the_last_request_was_answered() -> None:
    answered = [Message.user("continue with step 32"), Message.assistant("Step 32 done.")]
    first = render_markdown(extractive_summary(answered, max_tokens=2000, counter=COUNTER))
    assert ANSWERED_NEXT_STEP in first
    head = [summary_message(first),
            Message.assistant(CONTINUATION_TEXTS["answered"],
                              MessageMetadata.agent_only()).with_metadata(is_continuation=True)]
    again = extractive_summary(head, max_tokens=2000, counter=COUNTER)
    assert again.next_step.startswith(ANSWERED_NEXT_STEP)
    assert "Continue with the newest user request" not in render_markdown(again)


def test_user_messages_merged_into_a_summary_are_labelled_as_the_users() -> None:
    merged = repair([summary_message("# Conversation Summary\n\n## Intent\n\nbuild"),
                     Message.user("continue with step 2")], for_sending=False)
    assert len(merged) == 1
    lines = [line.text for line in flatten(merged)]
    assert lines[0].startswith("[summary of the earlier conversation]: # Conversation Summary")
    assert lines[1] == "[user]: continue with step 2"
    assert kept_and_counted_chars(merged[0])[0] == [len(line) for line in lines]


def test_compacting_again_with_nothing_new_is_refused_without_a_call() -> None:
    session = make_session(chat(3))
    provider = ScriptedProvider([PENDING_SUMMARY, PENDING_SUMMARY])
    collect(manager(session, provider).compact(REQUEST))
    view = session.conversation.agent_messages()
    with pytest.raises(CompactionFailed, match="^nothing to compact: "):
        collect(manager(session, provider).compact(REQUEST))
    with pytest.raises(CompactionFailed, match="^nothing to compact: "):
        collect(manager(session, provider).compact(REQUEST, strategy="extractive"))
    assert len(provider.requests) == 1
    assert session.conversation.agent_messages() == view


def test_a_first_message_larger_than_the_window_is_elided_without_a_summary_call() -> None:
    paste = "START " + "word " * 12000 + " END"
    session = make_session([Message.user(paste)])
    provider = ScriptedProvider([PENDING_SUMMARY], context_limit_tokens=8000)
    events = collect(manager(session, provider).on_context_exceeded(REQUEST))
    assert provider.requests == []
    assert replaced(events)[0].tokens_after < 8000
    kept = session.conversation.agent_view()[-1]
    assert kept.text.startswith("START word") and "tokens elided" in kept.text
