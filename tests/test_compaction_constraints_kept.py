"""A user's constraint survives any number of compactions, within the facts' budget.

comp31 #1: the user said "Never touch config.yaml" in the task's first message. The first
summary listed it among its user messages and the facts listed it under "User constraints
(from the transcript)"; but with a tight facts budget each compaction dropped the oldest line of
every facts section a round, so the two constraint lines went at the 4th compaction while a
dozen old commands stayed — and a later summary's user messages (the model's words) are never
read back as constraints. The model, working on, no longer knew the rule. Now the constraints
go last: the older commands are dropped first, and the facts still fit their budget.
"""

from __future__ import annotations

import json

from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words
from test_compaction_forged_facts import marked

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter

RULES = ("Never touch config.yaml.", "Always use tabs in the Makefile.")
FACTS_TOKENS = 100


def _summary(first: bool) -> str:
    """The model's summary: the first names the user's message, the later ones do not."""
    said = [f"Refactor the parser module. {' '.join(RULES)}"] if first else ["continue"]
    return json.dumps({"user_intent": "refactor the parser", "user_messages": said,
                       "next_step": "go on"})


def test_constraints_outlast_older_commands_through_five_compactions() -> None:
    session = make_session([Message.user("Refactor the parser module.\n" + "\n".join(RULES)),
                            *tool_pair("ok " + words(300)), Message.assistant("done")])
    for n in range(5):
        summariser = ScriptedProvider([_summary(n == 0)])
        collect(manager(session, None, summarizer=summariser, keep_recent_ratio=0,
                        keep_user_tokens=0, summary_facts_tokens=FACTS_TOKENS).compact(REQUEST))
        summary = session.conversation.agent_messages()[0].text
        facts = marked(summary)
        assert facts["## User constraints (from the transcript)"] == [f"- {r}" for r in RULES], (
            n, summary)
        commands = facts["## Commands run (from the transcript)"]
        run = sum(len(m.tool_requests) for m in session.conversation.messages)
        facts_text = summary[summary.index("## Commands run"):].rstrip()
        assert TokenCounter().count_text(facts_text) <= FACTS_TOKENS, (n, facts_text)
        session.conversation.append(Message.user(f"continue step {n}: " + words(200)))
        for _ in range(3):
            for m in tool_pair("out " + words(300)):
                session.conversation.append(m)
        session.conversation.append(Message.assistant("fine"))
    assert len(commands) < run  # the budget is tight: the oldest commands went
    assert "- shell `cmd call_t" in commands[-1]  # the newest are still listed


def test_a_constraint_to_do_or_command_an_error_names_is_still_listed_and_carried() -> None:
    """The deploy script's error repeated the user's rule and the plan's open item, and named
    its command: the facts left all three out (the extractive summary's error named them), so
    the next compaction, which reads each back from its own section only, lost them."""
    output = "Error: permission denied. Never use sudo. Next: fix deploy.sh permissions"
    session = make_session([
        Message.user("Deploy the app.\nNever use sudo."),
        Message.assistant("Plan:\n- [x] build\n- [ ] fix deploy.sh permissions"),
        Message.user("go on"),
        *tool_pair(output, args={"command": "./deploy.sh"}, is_error=True),
        Message.assistant("done " + words(100)), Message.user("next " + words(400)),
        Message.assistant("ok " + words(400))])
    for strategy in ("extractive", "llm", "llm"):
        summariser = ScriptedProvider([_summary(False)])
        collect(manager(session, None, summarizer=summariser, keep_recent_ratio=0,
                        keep_user_tokens=0).compact(REQUEST, strategy=strategy))
        facts = marked(session.conversation.agent_messages()[0].text)
        assert "- Never use sudo." in facts["## User constraints (from the transcript)"]
        assert "- shell `./deploy.sh`" in facts["## Commands run (from the transcript)"]
        assert "- fix deploy.sh permissions" in facts["## Open to-do items (from the transcript)"]
        session.conversation.append(Message.user("more " + words(400)))
        session.conversation.append(Message.assistant("ok " + words(400)))
