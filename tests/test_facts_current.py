"""The facts merged into a summary describe the task as it stands now (fresh-eyes 18).

With a summariser that writes a vague summary, the facts ``(from the transcript)`` are the
model's only memory of the task. They must not present a fixed failure as live, a lifted rule
as standing, quoted code or error output as the user's rules, a finished to-do item (finished
in the verbatim tail) as open; they list the extension calls made (state changes, like shell
commands) and the next step the assistant itself stated. Each holds through a later
compaction, which reads the earlier summary's facts back.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words

from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.providers.scripted import ScriptedProvider
from goosectx.session import Session

VAGUE = json.dumps({"user_intent": "working on the user's task", "current_work": "continuing",
                    "next_step": "carry on"})
HEAD_ONLY: dict[str, Any] = {"keep_recent_ratio": 0, "keep_user_tokens": 0}


def compact(session: Session, **settings: Any) -> str:
    """Compacts ``session`` with the vague summariser; the summary the model now sees."""
    collect(manager(session, None, summarizer=ScriptedProvider([VAGUE]),
                    **{**HEAD_ONLY, **settings}).compact(REQUEST))
    return session.conversation.agent_messages()[0].text


def section(summary: str, title: str) -> str:
    """The lines of one facts section (``""`` when the summary has none)."""
    head = f"## {title} (from the transcript)\n\n"
    if head not in summary:
        return ""
    return summary.split(head, 1)[1].split("\n\n## ", 1)[0].strip()


def pytest_run(command: str, output: str, *, failed: bool = False) -> list[Message]:
    return tool_pair(output + ("\n[exit code: 1]" if failed else ""), name="shell",
                     args={"command": command}, is_error=failed)


FAILED_ADD = "FAILED test_calc.py::test_add - assert -1 == 5\n1 failed in 0.02s"
FIX = tool_pair("edited", name="text_editor", args={
    "command": "str_replace", "path": "calc.py", "old_str": "a - b", "new_str": "a + b"})


def test_a_failure_a_later_whole_suite_run_passed_is_not_listed_as_an_error() -> None:
    session = make_session([
        Message.user("fix calc.py"),
        *pytest_run("python -m pytest -q test_calc.py 2>&1 | tail -3", FAILED_ADD),
        *FIX, *pytest_run("python -m pytest -q 2>&1 | tail -3", "1 passed in 0.01s"),
        Message.assistant("All green now. " + words(300)), Message.user("thanks")])
    summary = compact(session)
    assert "test_add" not in section(summary, "Errors")
    assert "- shell `python -m pytest -q 2>&1 | tail -3`" in summary  # the run is still listed


def test_a_passing_run_of_other_tests_leaves_the_failure_listed() -> None:
    session = make_session([
        Message.user("fix calc.py"),
        *pytest_run("python -m pytest -q test_calc.py", FAILED_ADD),
        *pytest_run("python -m pytest -q tests/test_other.py", "4 passed in 0.01s"),
        *pytest_run("python -m pytest -q -k test_sub", "1 passed, 1 deselected in 0.01s"),
        Message.assistant("calc still fails. " + words(300)), Message.user("go on")])
    assert "FAILED test_calc.py::test_add" in section(compact(session), "Errors")


def test_a_failure_an_earlier_summary_listed_is_dropped_once_the_suite_passes() -> None:
    session = make_session([
        Message.user("fix calc.py"),
        *pytest_run("python -m pytest -q test_calc.py", FAILED_ADD, failed=True),
        Message.assistant("add is wrong. " + words(400)), Message.user("fix it")])
    assert "FAILED test_calc.py::test_add" in section(compact(session), "Errors")
    for m in [*FIX, *pytest_run("pytest -v", "test_calc.py::test_add PASSED  [100%]\n"
                                "1 passed in 0.01s"),
              Message.assistant("Fixed. " + words(400)), Message.user("next")]:
        session.conversation.append(m)
    summary = compact(session)
    assert "test_add" not in section(summary, "Errors")
    assert "`calc.py`: edited" in summary


def test_a_failure_fixed_in_the_verbatim_tail_is_not_listed_beside_it() -> None:
    session = make_session([
        Message.user("fix calc.py " + words(600)),
        *pytest_run("python -m pytest -q test_calc.py", FAILED_ADD, failed=True),
        Message.assistant("add is wrong. " + words(2500)), Message.user("fix it"),
        *FIX, *pytest_run("python -m pytest -q test_calc.py", "1 passed in 0.01s"),
        Message.assistant("Fixed.")])
    summary = compact(session, context_limit_tokens=16_000, keep_recent_ratio=0.2)
    view = "\n".join(m.text + "".join(p.output for p in m.tool_responses)
                     for m in session.conversation.agent_messages())
    assert "1 passed in 0.01s" in view  # the passing run is in the tail, verbatim
    assert "add is wrong" not in view  # the failure was summarised
    assert "test_add" not in section(summary, "Errors")


def test_a_rule_a_later_line_lifts_or_changes_is_marked_superseded_and_stays_so() -> None:
    session = make_session([
        Message.user("Task: fix calc.py. New constraint: keep lines at 79 characters max."),
        Message.assistant("ok " + words(300)), Message.user("never touch tests/"),
        Message.assistant("ok " + words(300)),
        Message.user("Change of plan: forget the 79 character limit, keep lines at 100 "
                     "characters max from now on."),
        Message.assistant("ok " + words(300)), Message.user("you may now edit tests/"),
        Message.assistant("ok " + words(300)), Message.user("next")])
    expected = ["- New constraint: keep lines at 79 characters max. "  # not "Task: …"
                "(superseded by a later line)",
                "- Change of plan: forget the 79 character limit, keep lines at 100 characters "
                "max from now on.",
                "- never touch tests/ (superseded by a later line)",
                "- you may now edit tests/"]
    assert section(compact(session), "User constraints").splitlines() == expected
    session.conversation.append(Message.assistant("more " + words(600)))
    session.conversation.append(Message.user("and more " + words(600)))
    assert section(compact(session), "User constraints").splitlines() == expected


def test_a_lifted_rule_supersedes_only_its_sentence_and_the_lift_follows_it() -> None:
    # test28c M2: "You may now touch secrets.cfg." marked the tabs and pytest rules of the
    # same line superseded too, and was listed after the whole line.
    session = make_session([
        Message.user("Use tabs for indentation. Never touch secrets.cfg. Always run pytest "
                     "after an edit."), Message.assistant("ok " + words(300)),
        Message.user("You may now touch secrets.cfg."), Message.assistant("ok " + words(300)),
        Message.user("Now add a mul function to calc.py."),
        Message.assistant("ok " + words(300)), Message.user("next")])
    expected = ["- Use tabs for indentation.",
                "- Never touch secrets.cfg. (superseded by a later line)",
                "- You may now touch secrets.cfg.",
                "- Always run pytest after an edit."]
    assert section(compact(session), "User constraints").splitlines() == expected
    session.conversation.append(Message.assistant("more " + words(600)))
    session.conversation.append(Message.user("and more " + words(600)))
    assert section(compact(session), "User constraints").splitlines() == expected  # carried


def test_a_rule_lifted_after_a_summary_stays_lifted_when_the_model_lists_the_whole_line(
        ) -> None:
    """The summariser lists the user's messages verbatim: the rule line whole, then the line
    that lifts one of its sentences. The facts mark that sentence superseded; the next
    compaction read the whole line back as a rule as well, so the sentence stood again
    (unmarked, twice) and the mark was gone from every later summary."""
    from goosectx.compaction.carry import Facts, carry_forward

    rules = ("Use tabs for indentation. Never touch secrets.cfg. Always run pytest after an "
             "edit.")
    lift = "You may now touch secrets.cfg."
    said: list[str] = []

    def summarise(session: Session, *newer: Message) -> str:
        for m in newer:
            session.conversation.append(m)
            if m.role == "user":
                said.append(m.text)
        model = json.dumps({"user_intent": "the task", "user_messages": said,
                            "next_step": "carry on"})
        collect(manager(session, None, summarizer=ScriptedProvider([model]),
                        **HEAD_ONLY).compact(REQUEST))
        return session.conversation.agent_messages()[0].text

    session = make_session([])
    summarise(session, Message.user(rules), Message.assistant("ok " + words(300)),
              Message.user("go on"))
    # The facts list every rule, the model's list of user messages notwithstanding (a model
    # may write anything there: no constraint is read back from it).
    lifted = ["- Use tabs for indentation.",
              "- Never touch secrets.cfg. (superseded by a later line)", f"- {lift}",
              "- Always run pytest after an edit."]  # the change listed after its rule
    second = summarise(session, Message.assistant("ok " + words(600)), Message.user(lift),
                       Message.assistant("ok " + words(600)), Message.user("next"))
    assert section(second, "User constraints").splitlines() == lifted
    facts = Facts()
    carry_forward(second, facts)
    assert facts.constraints == [line[2:] for line in lifted]
    third = summarise(session, Message.assistant("more " + words(600)),
                      Message.user("and more " + words(600)))
    assert section(third, "User constraints").splitlines() == lifted


def test_a_change_line_that_names_no_rule_is_not_listed() -> None:
    session = make_session([Message.user("never touch setup.py"), Message.assistant("ok"),
                            Message.user("you may now take a break " + words(300)),
                            Message.assistant("ok " + words(300)), Message.user("next")])
    assert section(compact(session), "User constraints").splitlines() == [
        "- never touch setup.py"]


def test_quoted_code_and_error_output_are_not_the_users_constraints() -> None:
    request = ("autowrap fails when array arguments do not appear in the expression.\n"
               "```python\nf = autowrap(expr, args=(x,), backend='cython')\n"
               "f(np.array([[1.0, 2.0]]))\n# returns 1.0 as expected, without failure\n```\n"
               "This should fail with:\n\nTypeError: only size-1 arrays can be converted to "
               "Python scalars\n\nYou must not modify the tests.")
    session = make_session([Message.user(request), Message.assistant("ok " + words(400)),
                            Message.user("go on")])
    lines = section(compact(session), "User constraints").splitlines()
    assert lines == ["- You must not modify the tests."]  # the "do not" is no rule


def todo_write(status: str) -> list[Message]:
    call = ToolRequest(f"todo_{status}", "TodoWrite", {"todos": [
        {"content": "write the report", "status": status, "activeForm": "writing"}]})
    return [Message("assistant", (call,)),
            Message("user", (ToolResponse(call.id, "Todos have been modified"),))]


def test_a_todo_item_finished_in_the_verbatim_tail_is_not_listed_as_open() -> None:
    session = make_session([
        Message.user("write the report " + words(600)), *todo_write("in_progress"),
        *pytest_run("python -m pytest -q test_calc.py", FAILED_ADD, failed=True),
        Message.assistant("drafting " + words(2500)), Message.user("save it"),
        *todo_write("completed"), Message.assistant("Saved.")])
    summary = compact(session, context_limit_tokens=16_000, keep_recent_ratio=0.2)
    view = json.dumps([[r.arguments for r in m.tool_requests]
                       for m in session.conversation.agent_messages()])
    assert '"status": "completed"' in view and '"status": "in_progress"' not in view
    assert "write the report" not in section(summary, "Open to-do items")


def test_an_extractive_summary_takes_the_tails_todo_list_and_fixes_too() -> None:
    session = make_session([
        Message.user("write the report " + words(600)), *todo_write("in_progress"),
        *pytest_run("python -m pytest -q test_calc.py", FAILED_ADD, failed=True),
        Message.assistant("drafting " + words(2500)), Message.user("save it"),
        *todo_write("completed"), *FIX,
        *pytest_run("python -m pytest -q test_calc.py", "1 passed in 0.01s"),
        Message.assistant("Saved.")])
    collect(manager(session, None, context_limit_tokens=16_000, keep_recent_ratio=0.2,
                    keep_user_tokens=0).compact(REQUEST, strategy="extractive"))
    summary = session.conversation.agent_messages()[0].text
    assert "(no model)" in summary and "## Pending tasks" not in summary
    assert "test_add - assert -1 == 5 (later passed)" in summary  # in its errors and fixes
    assert "test_add" not in section(summary, "Errors")


def test_extension_calls_are_listed_like_shell_commands_and_carried() -> None:
    session = make_session([
        Message.user("save the two notes"),
        *tool_pair("saved note #1", name="notes__add_note",
                   args={"text": "NOTE-ALPHA deploy at 5pm"}),
        *tool_pair("saved note #2", name="notes__add_note", args={"text": "NOTE-BETA rollback"}),
        *tool_pair("ok", name="developer__text_editor",
                   args={"command": "write", "path": "notes.md", "file_text": "x\n"}),
        Message.assistant("Saved 2 notes. " + words(400)), Message.user("report")])
    expected = ['- notes__add_note `{"text": "NOTE-ALPHA deploy at 5pm"}`',
                '- notes__add_note `{"text": "NOTE-BETA rollback"}`']
    assert section(compact(session), "Commands run").splitlines() == expected
    session.conversation.append(Message.assistant("report " + words(600)))
    session.conversation.append(Message.user("again " + words(600)))
    summary = compact(session)
    assert section(summary, "Commands run").splitlines() == expected
    assert "`notes.md`: written" in summary  # the editor's call is a file, not a command


def test_the_next_step_the_assistant_stated_is_kept_until_a_newer_one() -> None:
    session = make_session([
        Message.user("show big.log"), Message.assistant(
            "Shown. NEXT STEP: rename add to plus everywhere (MY-PLAN-17)."),
        Message.user("show it again " + words(300)),
        Message.assistant("Shown. The diff:\n       20 +  ## NEXT: QUOTED-DIFF-LINE\n" + words(300)),
        Message.user("next")])
    step = "- rename add to plus everywhere (MY-PLAN-17)."  # not a line the answer quotes
    assert section(compact(session), "Next step the assistant stated") == step
    session.conversation.append(Message.assistant("more " + words(600)))
    session.conversation.append(Message.user("and more " + words(600)))
    assert section(compact(session), "Next step the assistant stated") == step
    session.conversation.append(Message.assistant(
        "Renamed.\n\nNext steps:\n1. run the tests\n2. update the docs\n\n" + words(600)))
    session.conversation.append(Message.user("ok " + words(600)))
    assert section(compact(session), "Next step the assistant stated") == (
        "- run the tests; update the docs")


FAKE_PYTEST = """#!/bin/sh
if grep -q "a - b" calc.py; then
  echo "FAILED test_calc.py::test_add - assert -1 == 5"; echo "1 failed in 0.02s"; exit 1
fi
echo "1 passed in 0.01s"
"""
TURNS: dict[str, list[dict[str, Any]]] = {
    "Task: fix calc.py": [{"tool_calls": [{"name": "shell", "arguments": {
        "command": "./pytest -q test_calc.py"}}]}, {"text": "add is wrong."}],
    "fix it": [{"tool_calls": [{"name": "text_editor", "arguments": {
        "command": "str_replace", "path": "calc.py", "old_str": "a - b", "new_str": "a + b"}}]},
        {"tool_calls": [{"name": "shell", "arguments": {"command": "./pytest -q"}}]},
        {"text": "1 passed. All green now."}],
    "Change of plan": [{"text": "OK, 100 from now on."}],
    "show part 1": [{"tool_calls": [{"name": "shell", "arguments": {"command": "seq 1 1500"}}]},
                    {"text": "Shown. NEXT STEP: rename add to plus everywhere (MY-PLAN-17)."}],
    "show part 2": [{"tool_calls": [{"name": "shell", "arguments": {"command": "seq 2 1500"}}]},
                    {"text": "Shown."}],
    "show part 3": [{"tool_calls": [{"name": "shell", "arguments": {"command": "seq 3 1500"}}]},
                    {"text": "Shown."}],
}


def test_after_auto_compactions_the_model_gets_the_task_as_it_stands(
        fake_model: Any, tmp_path: Any, monkeypatch: Any) -> None:
    # fresh-eyes 18, finding 02, through `goosectx run` and the requests the server received.
    from test_compaction_e2e import in_process_run, is_summary_call

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOOSE_CONTEXT_LIMIT", "8000")
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.5")
    # the cap of the report (0.1 × 8,000 at 4 characters a token), set, so not also counted
    # in tokens: seq's results stay ~1,700 tokens and the turns compact as they did
    Path(os.environ["GOOSECTX_CONFIG"]).write_text("tool_output_max_chars = 3200\n")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "pytest").write_text(FAKE_PYTEST)
    (tmp_path / "pytest").chmod(0o755)
    left = {k: list(v) for k, v in TURNS.items()}

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if is_summary_call(body):
            return {"text": VAGUE}
        asked = next(str(m["content"]) for m in reversed(body["messages"])
                     if m["role"] == "user" and any(k in str(m["content"]) for k in left))
        return left[next(k for k in left if k in asked)].pop(0)

    fake_model.default_reply = reply
    turns = ["Task: fix calc.py. New constraint: keep lines at 79 characters max.", "fix it",
             "Change of plan: forget the 79 character limit, keep lines at 100 characters max "
             "from now on.", "show part 1", "show part 2", "show part 3"]
    for n, text in enumerate(turns):
        code, _, err = in_process_run(text, mode="auto", **(
            {"name": "fresh02"} if n == 0 else {"resume": "fresh02"}))
        assert code == 0, err
    calls = fake_model.requests
    last = max(i for i, r in enumerate(calls) if is_summary_call(r))
    summary = next(r for r in calls[last + 1:] if not is_summary_call(r))["messages"][1]["content"]
    assert summary.startswith("# Conversation Summary")
    assert "./pytest -q test_calc.py" in summary  # the failing run was summarised
    assert "test_add" not in section(summary, "Errors")
    assert section(summary, "User constraints").splitlines()[:2] == [
        "- New constraint: keep lines at 79 characters max. (superseded by a later line)",
        "- Change of plan: forget the 79 character limit, keep lines at 100 characters max "
        "from now on."]
    assert "MY-PLAN-17" in section(summary, "Next step the assistant stated")


@pytest.mark.parametrize("change", [
    "Change of plan: FORGET THE 79 CHARACTER LIMIT",  # capitals: searched lower-cased
    "Change of plan — forget the 79 character limit (für café)",  # not ASCII: as it is
])
def test_a_change_line_in_capitals_or_beyond_ascii_supersedes_the_rule(change: str) -> None:
    from goosectx.compaction.constraint_change import SUPERSEDED, settled

    rules = ["keep lines at 79 characters max", change]
    assert settled(rules, lambda line: False) == [rules[0] + SUPERSEDED, change]
