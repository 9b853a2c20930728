"""A long task in a 3,000-token window: what the model is sent after every compaction.

comp31 #5, tried as a user: a task with two constraints, then "continue with step N" turns,
each a tool loop of four ``seq`` calls whose results fill most of the window, the model's plan a
Markdown checklist, its summaries naming no constraint and no to-do item, and the fake server
refusing a request over the window as a provider does. Auto and reactive compactions follow
one another (the storm pause included); the request after each must still hold the user's
latest request, both constraints and the open to-do items.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

LIMIT = 3_000
RULES = ("Never touch config.yaml.", "Always use tabs in the Makefile.")
TODOS = ("step 7: write the tests", "step 8: wire the CLI")
TURNS = ["Build a CSV parser in parser.py in steps. " + " ".join(RULES),
         *(f"continue with step {n}" for n in range(2, 7))]
SUMMARY = json.dumps({"user_intent": "csv parser", "current_work": "working on steps",
                      "next_step": "continue"})


def _model(body: dict[str, Any]) -> dict[str, Any]:
    """Plans with a checklist, runs four ``seq`` calls, answers; refuses an oversized request."""
    if len(json.dumps(body)) // 4 > LIMIT:  # as the fake server's usage counts it
        return {"error": "context_length"}
    if is_summary_call(body):
        return {"text": SUMMARY}
    calls = 0
    for m in reversed(body["messages"]):
        if m["role"] == "user":
            break
        calls += m["role"] == "tool"
    if calls == 4:
        return {"text": "Step done."}
    plan = "Plan:\n- [x] step 1: read the data\n" + "\n".join(f"- [ ] {t}" for t in TODOS)
    call = {"name": "shell", "arguments": {"command": f"seq 1 {250 + calls} # call {calls}"}}
    return {"tool_calls": [call], **({"text": plan} if calls == 0 else {})}


def test_every_request_after_a_compaction_keeps_the_request_constraints_and_todos(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", str(LIMIT))
    fake_model.default_reply = _model
    for n, text in enumerate(TURNS):
        code, _, err = in_process_run(text, name="small" if n == 0 else None,
                                      resume=None if n == 0 else "small", mode="auto")
        assert code == 0, err
    calls = fake_model.requests
    after = [i + 1 for i, r in enumerate(calls[:-1]) if is_summary_call(r)
             and not is_summary_call(calls[i + 1])]
    assert len(after) >= 4  # the window compacts again and again
    for at in after:
        sent = json.dumps(calls[at]["messages"])
        typed = [t for t in TURNS if json.dumps(t) in json.dumps(calls[:at])]
        assert json.dumps(typed[-1]) in sent, (at, sent)  # the user's latest request
        assert all(rule in sent for rule in RULES), (at, sent)
        assert all(todo in sent for todo in TODOS), (at, sent)
