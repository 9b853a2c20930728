"""A first message larger than the window: sent with its middle elided, no summary (README)."""

from __future__ import annotations

import json

from compaction_support import words
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call
from test_compaction_loops import small_window, window_of

__all__ = ["small_window"]


def test_a_huge_first_message_is_sent_elided_once_without_a_summary(
        small_window: FakeServer) -> None:
    server = small_window
    server.add(*[window_of(2000, {"text": "got it", "usage": "auto"})] * 4)
    task = "FIRST INSTRUCTION: count the lines. " + words(2700) + " LAST INSTRUCTION: be brief."
    code, out, err = in_process_run(task, name="big")
    assert code == 0, err
    assert "got it" in out
    assert not any(is_summary_call(r) for r in server.requests)
    sent = json.dumps(server.requests[-1]["messages"])
    assert sent.count("FIRST INSTRUCTION") == 1 and sent.count("LAST INSTRUCTION") == 1, sent
    assert "Conversation Summary" not in sent and "summar" not in sent
    assert "tokens elided to fit the context window" in sent
    assert "only its beginning and end" in err


def test_a_summary_says_a_long_only_request_at_most_twice() -> None:
    from goosectx.compaction.extractive import extractive_summary
    from goosectx.compaction.summary import render_markdown
    from goosectx.conversation import Message, ToolRequest, ToolResponse
    from goosectx.tokens import TokenCounter

    task = "FIRST INSTRUCTION: count the lines. " + words(900) + " LAST INSTRUCTION: be brief."
    messages = [Message.user(task)]
    for i in range(3):
        messages += [Message("assistant", (ToolRequest(f"c{i}", "shell", {"command": "ls"}),)),
                     Message("user", (ToolResponse(f"c{i}", "a.py\nb.py", False),))]
    for budget in (4000, 2000, 800):
        text = render_markdown(extractive_summary(messages, max_tokens=budget,
                                                  counter=TokenCounter()))
        assert text.count("FIRST INSTRUCTION") <= 2, text
        assert "LAST INSTRUCTION: be brief." in text
