"""Paused auto-compaction still keeps every request inside the context window (DESIGN §4.5).

The storm pause (``decide.storm``) is about the threshold; against a server that truncates
silently instead of refusing a request as too long (Ollama, some local servers), nothing
compacted after it and the requests grew to ~9,000 tokens in a 3,000-token window. Now a
request over the limit itself is compacted before it is sent, or the turn ends with the error
a refused request gives when no compaction brings it under.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agent_harness import EchoTool, finished, make_harness
from compaction_support import SUMMARY_JSON, words
from fakeserver import FakeServer, _estimate_tokens
from test_compaction_e2e import is_summary_call, shell_call_turn

from goosectx.config import Settings
from goosectx.providers.scripted import RecordedRequest, ScriptedProvider, ScriptedReply
from goosectx.tools.base import ToolRegistry


def test_a_tool_loop_against_a_server_that_never_refuses_stays_in_the_window(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open(os.environ["GOOSECTX_CONFIG"], "a", encoding="utf-8") as config:
        config.write("tool_output_max_chars = 2000\n")  # ~500 tokens a step: the storm pause
    err = shell_call_turn(fake_model, tmp_path, monkeypatch, ["seq 1000 1300"] * 8, limit=3000,
                          task="check the files", name="small", answer="all done")
    assert err.count("Auto-compaction is paused") == 1  # told once, though it compacts again
    after_pause = err[err.index("Auto-compaction is paused"):]
    assert "context compacted (auto)" in after_pause
    sent = [_estimate_tokens([r.get("messages"), r.get("tools")])
            for r in fake_model.requests if not is_summary_call(r)]
    assert max(sent) <= 3000, sent  # the server's own count of what it was sent


def test_a_request_no_compaction_brings_under_the_limit_is_not_sent(tmp_path: Path) -> None:
    # Each tool call's arguments hold ~1,400 tokens (a compaction keeps calls whole).
    def reply(request: RecordedRequest) -> ScriptedReply:
        if not request.tools:
            return ScriptedReply(text=SUMMARY_JSON)
        if len(request.messages) < 3:
            return ScriptedReply(text="hi")
        return ScriptedReply(tool_calls=[("echo", {"text": "big " + words(1400)})])

    provider = ScriptedProvider([reply] * 10, context_limit_tokens=3_000)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     tools=ToolRegistry([EchoTool()]))
    h.turn("hello")
    h.session.state.auto_compaction_paused = True
    done = finished(h.turn("run the long task"))
    assert done.status == "error"
    assert done.error is not None
    assert "does not fit the context window (3,000 tokens) even after a compaction" in done.error
    assert "larger context window" in done.error
    replies = [e.usage.input_tokens for e in h.session.ledger.entries if e.purpose == "reply"]
    assert max(replies) <= 3_000 and len(replies) == 3  # the fourth was never sent
