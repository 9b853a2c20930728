"""What the model keeps after repeated compactions: the facts of every earlier one carry on.

Each ``goosectx run --resume`` turn below compacts (an 8,000-token window at threshold 0.5 and a
big tool result a turn), with a summariser whose reply names no file and no constraint. The
request after the 2nd (and every later) compaction must still hold the file written in the
first turn, the user's constraint and the shell commands run — read back from the earlier
summary, since the messages they came from are hidden from the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compaction_support import (
    REQUEST,
    collect,
    compact_twice,
    make_session,
    manager,
    replaced,
    tool_pair,
    words,
)
from fakeserver import FakeServer
from test_compaction_e2e import in_process_run, is_summary_call

from goosectx.compaction.extractive import FOLLOWS
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

NO_FACTS_SUMMARY = json.dumps({"user_intent": "DEFAULT SUMMARY intent",
                               "pending_tasks": ["default pending"], "next_step": "default next"})


def scripted(body: dict[str, Any]) -> dict[str, Any]:
    """The model: writes keepme2.py when asked, runs a big ``seq`` on every other turn."""
    if is_summary_call(body):
        return {"text": NO_FACTS_SUMMARY}
    last = body["messages"][-1]
    if last["role"] == "tool":
        return {"text": "done " + "ok " * 40}
    if "keepme2" in str(last["content"]):
        return {"tool_calls": [{"name": "text_editor", "arguments": {
            "command": "write", "path": "keepme2.py", "file_text": "x = 1\n"}}]}
    turn = str(last["content"]).split(":")[0]
    return {"tool_calls": [{"name": "shell", "arguments": {"command": f"seq 1 1500 # {turn}"}}]}


def test_a_second_compaction_across_resumes_keeps_files_constraints_and_commands(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text("tool_output_max_chars = 40000\n")  # results larger than
    # the window's default share, as before the cap followed the window
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.5")
    fake_model.default_reply = scripted
    assert in_process_run("Create keepme2.py; never edit setup.cfg", name="chain2",
                          mode="auto")[0] == 0
    for k in range(1, 5):
        code, _, err = in_process_run(f"turn {k}: produce a big output", resume="chain2",
                                      mode="auto")
        assert code == 0, err
    calls = fake_model.requests
    summaries = [i for i, r in enumerate(calls) if is_summary_call(r)]
    assert len(summaries) >= 3
    for at in summaries[1:]:  # the model's request after the 2nd, 3rd … compaction
        after = next(r for r in calls[at + 1:] if not is_summary_call(r))
        summary = after["messages"][1]["content"]
        assert summary.startswith("# Conversation Summary")
        assert "`keepme2.py`: written" in summary
        assert "Create keepme2.py; never edit setup.cfg" in summary
        assert "- shell `seq 1 1500 # turn 1`" in summary


def test_facts_the_first_summary_named_itself_still_carry_through_a_second() -> None:
    named = json.dumps({"user_intent": "config loader",
                        "files": [{"path": "src/conf.py", "summary": "written"}],
                        "user_messages": ["make the loader; never touch setup.py"]})
    session = make_session([
        Message.user("make the loader; never touch setup.py"),
        *tool_pair("ok", name="text_editor",
                   args={"command": "write", "path": "src/conf.py", "file_text": "x = 1\n"}),
        Message.assistant("done " + words(300)), Message.user("next " + words(300)),
        Message.assistant("ok " + words(300))])
    summariser = ScriptedProvider([named, NO_FACTS_SUMMARY])
    for _ in range(2):
        collect(manager(session, None, summarizer=summariser, keep_recent_ratio=0,
                        keep_user_tokens=0).compact(REQUEST))
        session.conversation.append(Message.user("more " + words(400)))
        session.conversation.append(Message.assistant("fine " + words(400)))
    summary = session.conversation.agent_messages()[0].text
    assert "DEFAULT SUMMARY intent" in summary  # the second summary
    assert "`src/conf.py`: written" in summary
    assert "never touch setup.py" in summary


def test_repeated_extractive_compactions_give_one_flat_summary() -> None:
    session = make_session([Message.user("write the parser; never touch setup.py"),
                            *tool_pair("ok", name="text_editor", args={
                                "command": "write", "path": "src/p.py", "file_text": "x\n"}),
                            Message.assistant("parser written " + words(400))])
    for turn in range(5):
        session.conversation.append(Message.user(f"step {turn}: " + words(400)))
        session.conversation.append(Message.assistant(f"did step {turn} " + words(400)))
        collect(manager(session, None, keep_recent_ratio=0, keep_user_tokens=0).compact(
            REQUEST, strategy="extractive"))
    summary = session.conversation.agent_messages()[0].text
    assert summary.count("(no model)") == 1  # no earlier summary nested in it
    assert summary.count("Earlier:") <= 1 and "problem solving:" not in summary
    assert "`src/p.py`" in summary and "never touch setup.py" in summary


SMALL_WINDOW: dict[str, Any] = {"context_limit_tokens": 8000, "keep_recent_ratio": 0,
                                "keep_user_tokens": 500}
"""An 8,000-token window: the head outgrows the summary, the request is re-sent after it."""


def _lt1_session() -> Any:
    """The request (with a constraint), a plan, a file written, commands run, an answer."""
    return make_session([
        Message.user("Build a CSV tool in src/csvtool.py. Constraint: never modify "
                     "legacy/old.py. ORIGINAL-REQUEST-MARKER-42"),
        Message.assistant("Plan:\n- [x] write the parser\n- [ ] write tests\n- [ ] write docs"),
        *tool_pair("Created src/csvtool.py", name="text_editor", args={
            "command": "write", "path": "src/csvtool.py", "file_text": "x = 1\n"}),
        *tool_pair("small-0", name="shell", args={"command": "echo small-0"}),
        Message.assistant("parser done " + words(1500)),
        Message.user("go on"), Message.assistant("going on " + words(300))])


def _model_sees(session: Any) -> str:
    return "\n".join(m.text for m in session.conversation.agent_view())


def test_an_extractive_compaction_after_a_model_one_keeps_request_constraint_and_todos() -> None:
    # lt1: a model summary (naming none of it), the request re-sent after it, then
    # `compact --strategy extractive`: the next request still holds all of it.
    session = _lt1_session()
    collect(manager(session, None, summarizer=ScriptedProvider([NO_FACTS_SUMMARY]),
                    **SMALL_WINDOW).compact(REQUEST))
    session.conversation.append(Message.user("continue please " + words(300)))
    session.conversation.append(Message.assistant("ok " + words(300)))
    no_resend = {**SMALL_WINDOW, "keep_user_tokens": 0}  # the summary alone must hold it
    events = collect(manager(session, None, **no_resend).compact(REQUEST, strategy="extractive"))
    assert [e.strategy for e in replaced(events)] == ["extractive"]
    seen = _model_sees(session)
    assert "ORIGINAL-REQUEST-MARKER-42" in seen
    assert "never modify legacy/old.py" in seen
    assert "write tests" in seen and "write docs" in seen
    assert "`src/csvtool.py`" in seen and "echo small-0" in seen


def test_extractive_fallbacks_in_a_row_keep_the_constraint_and_the_open_checklist() -> None:
    # extfb: a model summary, then the summariser fails every time (HTTP 500): each fallback's
    # extractive summary still carries the user's constraint and the open checklist.
    session = make_session([
        Message.user("Refactor ext/. You must never touch vendor/. EXTFB-ORIG-MARKER"),
        Message.assistant("- [ ] step alpha\n- [ ] step beta"),
        *tool_pair("Created ext/a.py", name="text_editor", args={
            "command": "write", "path": "ext/a.py", "file_text": "A=1\n"}),
        *tool_pair("1\n2", name="shell", args={"command": "seq 1 2000"}),
        Message.assistant("working " + words(1500)),
        Message.user("go on"), Message.assistant("going on " + words(300))])
    summariser = ScriptedProvider([NO_FACTS_SUMMARY])
    collect(manager(session, None, summarizer=summariser, **SMALL_WINDOW).compact(REQUEST))
    for k in range(3):
        session.conversation.append(Message.user(f"go on {k} " + words(300)))
        session.conversation.append(Message.assistant(f"went on {k} " + words(300)))
        events = collect(manager(session, None, **SMALL_WINDOW).compact(
            REQUEST, strategy="extractive"))
        assert [e.strategy for e in replaced(events)] == ["extractive"]
        seen = _model_sees(session)
        assert "You must never touch vendor/." in seen
        assert "step alpha" in seen and "step beta" in seen
        assert "`ext/a.py`" in seen and "seq 1 2000" in seen


_MODEL_SUMMARY = json.dumps({
    "user_intent": "CARRY-INTENT build the CSV tool",
    "errors_and_fixes": ["MODEL-ERR-1 ImportError csvx: installed it"],
    "next_step": "CARRY-NEXT run the test suite"})


def _error_lines(summary: str) -> list[str]:
    """The bullets of every errors section of ``summary``."""
    out, inside = [], False
    for line in summary.splitlines():
        if line.startswith("## "):
            inside = line.startswith(("## Errors and fixes", "## Errors (from"))
        elif inside and line.startswith("- "):
            out.append(line)
    return out


def test_extractive_compactions_after_a_summary_keep_its_intent_next_step_and_each_error_once(
        ) -> None:
    # A model summary, then three extractive compactions in a row of a long tool loop (no new
    # user request): each summary keeps the first one's intent and next step, and lists each
    # error of the transcript exactly once, each in a bullet of its own.
    session = make_session([
        Message.user("Build a CSV tool in src/csvtool.py"),
        *tool_pair("boom\nsecond line of boom", args={"command": "python run.py"},
                   is_error=True),
        *tool_pair("FAILED test_a.py::test_one - AssertionError: TRANSCRIPT-ERR-0\n1 failed",
                   args={"command": "pytest tests/test_a.py"}),
        Message.assistant("Fixing the assertion. " + words(1500)),
        Message.user("go on"), Message.assistant("going on " + words(300))])
    no_resend = {**SMALL_WINDOW, "keep_user_tokens": 0}
    collect(manager(session, None, summarizer=ScriptedProvider([_MODEL_SUMMARY]),
                    **no_resend).compact(REQUEST))
    for k in range(1, 4):
        session.conversation.append(Message.assistant(f"step {k}"))
        for m in tool_pair(f"error: TRANSCRIPT-ERR-{k} failed here",
                           args={"command": f"make target{k}"}, is_error=True):
            session.conversation.append(m)
        session.conversation.append(Message.assistant(f"went on {k} " + words(600)))
        events = collect(manager(session, None, **no_resend).compact(
            REQUEST, strategy="extractive"))
        assert [e.strategy for e in replaced(events)] == ["extractive"]
        summary = session.conversation.agent_messages()[0].text
        intent = summary.split("## User intent\n\n", 1)[1].split("\n", 1)[0]
        assert intent == "CARRY-INTENT build the CSV tool", summary
        next_step = summary.split("## Next step", 1)[-1].split("\n## ", 1)[0]
        assert "CARRY-NEXT run the test suite" in next_step, summary
        assert next_step.count("None:") <= 1, summary  # said once, never nested
        errors = _error_lines(summary)
        for marker in (f"TRANSCRIPT-ERR-{n}" for n in range(k + 1)):
            assert sum(marker in line for line in errors) == 1, (marker, summary)
        # the model's own error item is its word, never carried as a transcript fact
        assert "MODEL-ERR-1" not in summary, summary
        assert all(line.count("ERR-") <= 1 for line in errors), summary
        assert not [line for line in errors if "omitted)" in line and "(from" in line]
        assert summary.count("earlier errors omitted") <= 1, summary
        assert f"make target{k}" in summary  # the call of the newest error is named


def test_a_new_request_after_the_summary_is_the_next_step_and_the_intent_stays() -> None:
    session = make_session([
        Message.user("Build a CSV tool in src/csvtool.py. FIRST-INTENT-MARKER"),
        *tool_pair("Traceback (most recent call last):\nImportError: ERR-A csvx",
                   args={"command": "pytest -q # ERR-A"}),
        Message.assistant("Fixing the import. " + words(200)),
        *tool_pair("error: ERR-B cannot find src/x.py",
                   args={"command": "make build # ERR-B"}, is_error=True),
        Message.assistant("parser done " + words(1500))])
    no_resend = {**SMALL_WINDOW, "keep_user_tokens": 0}
    for k in range(3):
        session.conversation.append(Message.user(f"NEWEST-{k} go on " + words(300)))
        session.conversation.append(Message.assistant(f"went on {k} " + words(300)))
        collect(manager(session, None, **no_resend).compact(REQUEST, strategy="extractive"))
        summary = session.conversation.agent_messages()[0].text
        intent = summary.split("## User intent\n\n", 1)[1].split("\n", 1)[0]
        assert "FIRST-INTENT-MARKER" in intent, summary
        assert f"NEWEST-{k}" in summary.split("## Next step", 1)[-1], summary
        errors = _error_lines(summary)
        for marker in ("ERR-A", "ERR-B"):
            assert sum(marker in line for line in errors) == 1, (marker, summary)
        assert not [line for line in errors if "omitted)" in line and "(from" in line]
        assert summary.count("earlier errors omitted") <= 1, summary


def _problem_line(summary: str) -> str:
    return next(line for line in summary.splitlines() if "Extractive summary" in line)


def test_the_earlier_note_names_the_latest_summarys_current_work() -> None:
    # Tester 11b: three extractive compactions in a row; the third summary's "Earlier: current
    # work" named the first summary's work (WORK-1), not the one just before it (WORK-2).
    no_resend = {**SMALL_WINDOW, "keep_user_tokens": 0}
    session = make_session([Message.user("Build it"), Message.assistant("WORK-0 " + words(1500))])
    for k in range(1, 4):
        session.conversation.append(Message.user(f"go {k} " + words(300)))
        session.conversation.append(Message.assistant(f"WORK-{k} done " + words(300)))
        collect(manager(session, None, **no_resend).compact(REQUEST, strategy="extractive"))
        earlier = _problem_line(session.conversation.agent_messages()[0].text)
        if k > 1:
            assert f"Earlier: current work: WORK-{k - 1} done" in earlier, earlier
            assert all(f"WORK-{n} " not in earlier for n in range(k - 1)), earlier


def _user_message_lines(summary: str) -> list[str]:
    section = summary.split("## User messages\n\n", 1)[1].split("\n\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def test_requests_re_sent_after_an_automatic_compaction_are_listed_once() -> None:
    # Tester 11b: after an automatic compaction the request in progress (and the earlier ones
    # re-sent) follow the summary; the next summary listed them again after its own list.
    session = make_session([Message.user("Build it. FIRST-REQ"),
                            Message.assistant("WORK-0 " + words(1500))])
    for k in range(1, 4):
        session.conversation.append(Message.user(f"REQ-{k} go"))
        for m in tool_pair(f"out {k} " + words(800), args={"command": f"make t{k}"}):
            session.conversation.append(m)
        collect(manager(session, None, **SMALL_WINDOW).compact(
            REQUEST, strategy="extractive", trigger="auto"))
        summary = session.conversation.agent_messages()[0].text
        assert _user_message_lines(summary) == [
            "- Build it. FIRST-REQ", *(f"- REQ-{n} go" for n in range(1, k + 1))], summary
        # The request in progress is kept after the summary: the next step refers to it
        # (fresh19b #07), not quoting it a second time.
        step = summary.split("## Next step", 1)[1]
        assert f"Continue with {FOLLOWS}." in step and f"REQ-{k} go" not in step, summary


def test_the_problem_note_counts_this_spans_errors_and_says_one_tool_call() -> None:
    # Tester 11b: "6 messages with 1 tool calls and 4 error(s)" counted the errors carried
    # from earlier summaries as this span's, and said "1 tool calls".
    no_resend = {**SMALL_WINDOW, "keep_user_tokens": 0}
    session = make_session([Message.user("Build it"), Message.assistant("WORK-0 " + words(1500))])
    for k in range(1, 4):
        session.conversation.append(Message.user(f"go {k}"))
        for m in tool_pair(f"error: ERR-{k} failed", args={"command": f"make t{k}"},
                           is_error=True):
            session.conversation.append(m)
        session.conversation.append(Message.assistant(f"WORK-{k} done " + words(1500)))
        collect(manager(session, None, **no_resend).compact(REQUEST, strategy="extractive"))
        problem = _problem_line(session.conversation.agent_messages()[0].text)
        carried = "" if k == 1 else f" ({k - 1} more carried from earlier summaries)"
        assert f" with 1 tool call and 1 error{carried}." in problem, problem


@pytest.mark.parametrize("path", ["src/we`ird.py", "`quoted`.py", "`src/x.py"])
def test_a_file_whose_path_holds_a_backtick_carries_through_a_second_compaction(
        path: str) -> None:
    """Its line is ``- ``src/we`ird.py``: written`` (a longer fence); it was not read back."""
    named = json.dumps({"user_intent": "config loader",
                        "files": [{"path": path, "summary": "written"}]})
    session = make_session([
        Message.user("make the loader"),
        *tool_pair("ok", name="text_editor",
                   args={"command": "write", "path": path, "file_text": "x = 1\n"}),
        Message.assistant("done " + words(300)), Message.user("next " + words(300)),
        Message.assistant("ok " + words(300))])
    shown = compact_twice(session, named, NO_FACTS_SUMMARY)
    facts = shown[0].split("## Files changed (from the transcript)", 1)[1]  # the model's
    line = next(x for x in facts.splitlines() if x.endswith(": written"))  # list is its own
    assert "DEFAULT SUMMARY intent" in shown[1]  # the second summary
    assert line in shown[1].splitlines()  # the file, as the first summary's facts listed it
    assert sum(path in x for x in shown[1].splitlines()) == 1  # once, not under a mangled name
