"""Facts merged into a summary cannot turn the rest of it into markup (DESIGN §4.5(4)).

A user constraint, an error or a to-do item listed "(from the transcript)" that starts a
block — ``<pre> blocks in README must never change`` — opened an HTML block running to the end
of the summary's message, which swallowed the user messages re-sent after it as well. Each
line is now contained like a model-written field; a second compaction still lists it once.
"""

from __future__ import annotations

import json

from compaction_support import REQUEST, collect, make_session, manager, words
from markdown_it import MarkdownIt

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

RULE = "<pre> blocks in README must never change"
BARE = json.dumps({"user_intent": "docs", "next_step": "go on"})


def blocks(text: str) -> list[str]:
    return [t.type for t in MarkdownIt().parse(text) if t.type in ("html_block", "fence")]


def test_a_constraint_that_opens_a_block_is_contained_and_carried_once() -> None:
    session = make_session([Message.user(RULE), Message.assistant("noted " + words(300)),
                            Message.user("next " + words(300)), Message.assistant("ok")])
    summariser = ScriptedProvider([BARE, BARE])
    summaries = []
    for _ in range(2):
        collect(manager(session, None, summarizer=summariser, keep_recent_ratio=0,
                        keep_user_tokens=0).compact(REQUEST))
        summaries.append(session.conversation.agent_messages()[0].text)
        session.conversation.append(Message.user("more " + words(400)))
        session.conversation.append(Message.assistant("fine " + words(400)))
    for summary in summaries:
        assert blocks(summary) == [], summary  # what follows the line is still Markdown
        constraints = summary.split("## User constraints", 1)[1]
        assert sum("blocks in README must never change" in line
                   for line in constraints.splitlines()) == 1, summary
