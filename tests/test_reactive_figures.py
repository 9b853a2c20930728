"""A reactive compaction's "before → after" figures are measured the same way (fresh26 A2).

The provider counted 0.7 × our estimate; then it refused a request as too long, which proved
that ratio too low (``calibration.refused`` dropped it). The line said ``context compacted
(reactive) · 2,527 → 3,891 tokens`` although the retried request was smaller: "before" was the
old report (the provider's count, ×0.7) plus estimates, "after" the estimate at the new ratio.
README: "A compaction never makes the context larger".
"""

from __future__ import annotations

import re

from compaction_support import (
    REQUEST,
    SUMMARY_JSON,
    chat,
    collect,
    make_session,
    manager,
    replaced,
    tool_pair,
    words,
)

from goosectx.compaction import calibration
from goosectx.conversation import Message, SystemNotification
from goosectx.providers.scripted import ScriptedProvider
from goosectx.usage import Usage


def test_a_refusal_that_drops_the_ratio_still_shows_the_context_shrinking() -> None:
    session = make_session([*chat(4), Message.user("fix the parser")])
    provider = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=100_000)
    cm = manager(session, provider, keep_recent_ratio=0.6)
    for n in range(3):  # the provider counts 0.7 × our estimate
        session.conversation.messages += [*(m for i in range(6) for m in tool_pair(words(80))), Message.user("go on")]
        collect(cm.before_call(REQUEST))
        estimate = cm.breakdown(REQUEST).total
        session.conversation.append(Message.assistant(f"step {n}"))
        cm.record_call(Usage.of(int(0.7 * estimate), 10), REQUEST, model=provider.model)
    assert calibration.ratio(session.state, provider.model) < 0.75
    session.conversation.messages += [*tool_pair(words(100)), Message.user("go on")]
    collect(cm.before_call(REQUEST))  # the request about to be refused
    refused_estimate = cm.breakdown(REQUEST).total
    provider.context_limit_tokens = int(refused_estimate * 2.9)  # what its server runs
    events = collect(cm.on_context_exceeded(REQUEST))
    (event,) = replaced(events)
    ratio = calibration.ratio(session.state, provider.model)
    assert ratio > 1.0  # the refusal proved 0.7 too low
    assert event.tokens_after < event.tokens_before
    assert event.tokens_before == calibration.apply(refused_estimate, ratio)
    assert event.tokens_after == calibration.apply(cm.breakdown(REQUEST).total, ratio)
    marker = next(p.text for m in session.conversation for p in m.content
                  if isinstance(p, SystemNotification)
                  and "compacted after a context-length error" in p.text)
    found = re.search(r"([\d,]+) → ([\d,]+) tokens", marker)
    assert found is not None, marker  # the transcript's marker says it shrank
    before, after = (int(x.replace(",", "")) for x in found.groups())
    assert after < before
