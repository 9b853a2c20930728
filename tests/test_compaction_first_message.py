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
