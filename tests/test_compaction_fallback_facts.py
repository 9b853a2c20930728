"""What the model keeps, and what the transcript says, when its summary is not used (comp30b).

A second reactive compaction in one turn summarises little more than the first one's summary;
when the model's summary of it would not shrink the model's messages, the extractive summary
takes its place — and the user's "never …" constraint and the commands the first summary
carried must still reach the model's next request. The compaction line the transcript keeps
(``--history``, ``/history``) names the reason the live notice gave.
"""

from __future__ import annotations

import re

import pytest
from compaction_support import (
    REQUEST,
    chat,
    collect,
    make_session,
    manager,
    notices,
    tool_pair,
    words,
)

from goosectx.compaction.manager import ContextManager
from goosectx.compaction.summarize import STOP_CHARS_PER_TOKEN, stop_chars
from goosectx.conversation import Message, SystemNotification
from goosectx.errors import CompactionWouldGrow, SummaryOverBudget
from goosectx.providers.scripted import ScriptedProvider
from goosectx.usage import Usage

CONSTRAINT = "Never use sudo in any command."
SMALL = ('{"user_intent": "refactor the parser", "current_work": "reading the parser", '
         '"next_step": "go on"}')
LONG = '{"user_intent": "LONG-SUMMARY ' + words(1500) + '"}'


def _twice_compacted() -> tuple[ContextManager, list[str]]:
    """Two reactive compactions in one turn: the second model summary would not shrink."""
    session = make_session([Message.user(f"Refactor the parser. {CONSTRAINT}"),
                            *tool_pair("ok", args={"command": "pytest -q tests/test_p.py"}),
                            *chat(8, 150), Message.user("go on")])
    provider = ScriptedProvider([SMALL, LONG], context_limit_tokens=8000)
    cm = manager(session, provider, keep_recent_ratio=0.0, keep_user_tokens=0)
    cm.record_call(Usage(3000, 5, 3005), REQUEST, model=provider.model)
    cm.start_turn()
    collect(cm.on_context_exceeded(REQUEST))
    for m in tool_pair(words(1200), args={"command": "cat src/parser.py"}):  # the turn goes on
        session.conversation.append(m)
    return cm, notices(collect(cm.on_context_exceeded(REQUEST)))


def _lines(cm: ContextManager) -> list[str]:
    """The compaction lines the transcript keeps (what ``--history`` draws)."""
    return [p.text for m in cm.session.conversation for p in m.content
            if isinstance(p, SystemNotification) and p.text.startswith("Context compacted")]


def test_an_extractive_fallback_after_a_summary_keeps_its_constraint_and_commands() -> None:
    cm, said = _twice_compacted()
    assert any(t.startswith("The model's summary would not shrink") for t in said), said
    view = "\n".join(m.text for m in cm.session.conversation.agent_view())
    assert "LONG-SUMMARY" not in view
    constraints = view.split("## User constraints (from the transcript)\n", 1)[1]
    assert CONSTRAINT in constraints.split("\n## ", 1)[0]
    assert "pytest -q tests/test_p.py" in view.split("## Commands run (from the transcript)")[1]


def test_the_transcript_names_would_not_shrink_as_the_live_notice_does() -> None:
    cm, said = _twice_compacted()
    assert re.search(r"The model's summary would not shrink the model's messages \(", said[-1])
    assert _lines(cm)[-1].endswith("· the model's summary would not shrink the model's "
                                   "messages, so the extractive summary was used")


def test_a_summary_request_that_does_not_fit_is_not_called_an_unusable_reply() -> None:
    session = make_session([*chat(12, 300), Message.user("latest question: what next?")])
    provider = ScriptedProvider([SMALL], context_limit_tokens=1_000)  # no summary request fits
    cm = manager(session, provider)
    cm.record_call(Usage(9500, 5, 9505), REQUEST, model=provider.model)
    cm.start_turn()
    said = notices(collect(cm.on_context_exceeded(REQUEST)))
    assert any("the summary request does not fit" in t for t in said), said
    assert not provider.requests  # no call was made
    (line,) = _lines(cm)
    assert "unusable" not in line
    assert line.endswith("· the summary request did not fit the summariser's context window, "
                         "so the extractive summary was used")


@pytest.mark.parametrize("budget", [400, 800])
def test_a_stopped_summary_is_said_to_pass_twice_its_budget_in_characters(budget: int) -> None:
    stopped = stop_chars(budget)
    over = SummaryOverBudget(CompactionWouldGrow(1_000, 1_000), 512, budget,
                             stopped_at=(stopped, STOP_CHARS_PER_TOKEN))
    assert "far over" not in over.message
    assert stopped == 2 * budget * STOP_CHARS_PER_TOKEN  # "twice its budget" in characters
    assert over.message == (f"the model's summary passed {stopped:,} characters, twice its "
                            f"budget of {budget} tokens at {STOP_CHARS_PER_TOKEN} characters a "
                            "token, and was stopped there (512 tokens); nothing changed")
