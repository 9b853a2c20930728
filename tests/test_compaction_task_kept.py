"""The session's task and the user's stated requirements survive an auto-compaction.

fresh16c #18: the first message "Build the CSV exporter. Please target Python 3.8 (no walrus,
no match statements) and keep lines at 79 columns." then eight long follow-ups in a 6,000-token
window. The auto-compaction re-sent the newest follow-ups verbatim (``keep_user_tokens``) but
not the first message, and the facts' "User constraints" did not know "please target",
"no …", "keep … at": with a summary that does not restate them, no later request held
"Python 3.8" or "79 columns".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from compaction_support import REQUEST, SUMMARY_JSON, chat, collect, make_session, manager, words
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

TASK = ("Build the CSV exporter for the reports module.\nPlease target Python 3.8 (no walrus, "
        "no match statements) and keep lines at 79 columns.")


def test_the_first_request_reaches_every_request_after_an_auto_compaction(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "6000")
    answer = {"text": "Answer about the work in progress here. " * 50}

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return {"text": SUMMARY_JSON} if is_summary_call(body) else answer

    fake_model.add(reply)
    assert in_process_run(TASK, name="csv", mode="auto")[0] == 0
    for i in range(8):
        fake_model.add(reply, reply)
        code, _, err = in_process_run(f"next part {i}: add feature {i} " + words(150, "blah"),
                                      resume="csv", mode="auto")
        assert code == 0, err
    summary_at = max(i for i, r in enumerate(fake_model.requests) if is_summary_call(r))
    after = [r for r in fake_model.requests[summary_at + 1:] if not is_summary_call(r)]
    assert after
    for request in after:
        sent = json.dumps(request["messages"])
        assert "Python 3.8" in sent
        assert "79 columns" in sent
        assert json.dumps(TASK)[1:-1] in sent  # the task itself, verbatim (a re-sent user message)


def _constraints(*lines: str) -> str:
    """The "User constraints" facts a compaction merged from a head with ``lines`` as requests
    (each followed by an answer), with the re-sending of user messages turned off."""
    session = make_session([*(m for line in lines for m in (Message.user(line),
                                                            Message.assistant("Done."))),
                            *chat(6, 400)])
    summariser = ScriptedProvider([SUMMARY_JSON], context_limit_tokens=8_000)
    collect(manager(session, summariser, keep_user_tokens=0).compact(REQUEST))
    summary = next(m.text for m in session.conversation.agent_view() if m.metadata.is_summary)
    return summary.partition("## User constraints (from the transcript)")[2]


@pytest.mark.parametrize("line", [
    "Please target Python 3.8 (no walrus, no match statements).",
    "keep lines at 79 columns",
    "Avoid third-party dependencies.",
    "Stick to the standard library.",
    "Write it without touching the public API.",
    "Please use tabs for indentation.",
    "Never push to main.",
    "請不要修改任何代碼",
])
def test_a_requirement_stated_as_an_imperative_is_a_user_constraint(line: str) -> None:
    assert f"- {line}" in _constraints("Build the CSV exporter.", line)


def test_ordinary_sentences_are_not_listed_as_constraints() -> None:
    ordinary = ["No, I meant the other file.", "Keep going.", "What does this function do?",
                "Please look at the failing test.", "There is no config file yet.",
                "Thanks, that works now."]
    assert not any(line in _constraints(*ordinary) for line in ordinary)


def test_the_task_survives_the_next_turns_compactions_in_a_small_window(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh17b #20: an 8k window, a task whose turn ran shell commands with 3,000-line
    outputs, then "continue" with more of them: from the first compaction of the second turn
    no request held the task — the newest output, already cut to its beginning and end, was
    not cut a little more for it, and a view the tail no longer fitted was summarised whole
    with no user message re-sent — while thousands of lines of output stayed."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    monkeypatch.setenv("GOOSE_TOOL_PAIR_SUMMARIZATION", "false")
    # the cap of the report (0.1 × 8,000 at 4 characters a token), set, so not also counted
    # in tokens: seq's results stay ~1,700 tokens and the second turn compacts as it did
    Path(os.environ["GOOSECTX_CONFIG"]).write_text("tool_output_max_chars = 3200\n")
    task = "Fix the off-by-one in src/calc.py so tests/test_calc.py passes."

    def turn(commands: list[str], answer: str) -> Any:
        left = list(commands)

        def reply(body: dict[str, Any]) -> dict[str, Any]:
            if is_summary_call(body):
                return {"text": SUMMARY_JSON}
            if left:
                return {"tool_calls": [{"name": "shell",
                                        "arguments": {"command": left.pop(0)}}]}
            return {"text": answer}
        return reply

    first = turn([f"seq {n}00000 {n}03000" for n in (1, 2, 3)], "Still failing; next: helper.")
    fake_model.add(*[first] * 20)
    assert in_process_run(task, name="long", mode="auto")[0] == 0
    fake_model.script.clear()
    second = turn([f"seq {n}00000 {n}03000" for n in (5, 6, 7)], "turn 2 done")
    fake_model.add(*[second] * 20)
    code, _, err = in_process_run("continue", resume="long", mode="auto")
    assert code == 0, err
    at = next(i for i, r in enumerate(fake_model.requests)
              if "continue" in json.dumps(r["messages"]) and not is_summary_call(r))
    later = [r for r in fake_model.requests[at:] if not is_summary_call(r)]
    assert any(is_summary_call(r) for r in fake_model.requests[at:])  # it did compact
    for request in later:
        assert task in json.dumps(request["messages"]), "the task left the model's view"
