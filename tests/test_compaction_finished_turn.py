"""A manual compaction between turns keeps the newest messages of the finished turn that fit.

DESIGN §4.5(1): the tail is the newest messages within ``keep_recent_ratio`` × limit, cut only
at a user-message boundary or between complete tool pairs.
"""

from __future__ import annotations

from compaction_support import REQUEST, SUMMARY_JSON, collect, make_session, manager, tool_pair

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider


def checks(turn: str, count: int) -> list[Message]:
    out: list[Message] = []
    for i in range(count):
        lines = "".join(f"{i * 100 + k} {turn} turn output\n" for k in range(150))
        out += tool_pair(lines, args={"command": f"seq {i * 100} {turn}"})
    return out


def test_manual_compaction_after_a_long_finished_turn_keeps_the_models_last_answer() -> None:
    # fresh13b t2 (8,000 window): /compact after "Turn two done." (a turn of six big tool
    # pairs, too big for the tail) summarised everything; the model no longer saw its own last
    # answer, though it fits the tail many times over. The newest messages that fit stay.
    messages = [Message.user("Build alpha and beta modules."), *checks("first", 4),
                Message.assistant("Turn one done. FINAL T2-1."),
                Message.user("Now run the second-turn checks."), *checks("second", 6),
                Message.assistant("Turn two done. FINAL T2-2.")]
    session = make_session(messages)
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=8_000)
    collect(manager(session, provider).compact(REQUEST))
    session.conversation.append(Message.user("What did you conclude in your last answer?"))
    view = session.conversation.agent_view()  # the next request to the model
    texts = [m.text for m in view]
    assert texts[-2:] == ["Turn two done. FINAL T2-2.", "What did you conclude in your last answer?"]
    assert view[-2].id == messages[-1].id  # the original, verbatim
    assert any("Now run the second-turn checks." in t for t in texts)  # its request, re-sent
    assert all(m.role == "user" for m in view if m.text == "Now run the second-turn checks.")
    # what was kept is the newest part of the turn, whole tool pairs only
    calls = {p.id for m in view for p in m.tool_requests}
    results = {p.id for m in view for p in m.tool_responses}
    assert calls == results
