"""What the model is sent after compactions: denied edits, @mention requests, passing runs.

Round 14a (fresh eyes): a denied edit came back as "edited", the constraint of a request with
an @mention was never carried, and a passing test run was listed under "Errors".
"""

from __future__ import annotations

from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words

from goosectx.attachment import Attachment
from goosectx.compaction.carry import Facts, carry_forward
from goosectx.compaction.facts import merge_facts
from goosectx.conversation import Message, TextContent
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter

NAMES_NOTHING = '{"user_intent": "fix things", "next_step": "continue"}'
DENIED = ("This tool call needs approval, and goosectx is running without a terminal to ask "
          "the user, so it was not run.")


def _sent(session: object) -> str:
    """Everything the model is sent from the conversation, as one text."""
    return "\n".join(m.text for m in session.conversation.agent_messages())  # type: ignore[attr-defined]


def _denied_edit() -> list[Message]:
    return tool_pair(DENIED, name="text_editor", is_error=True,
                     args={"command": "str_replace", "path": "test_x.py",
                           "old_str": "== 2", "new_str": "== 1"})


def test_a_denied_edit_is_never_reported_as_done_through_two_compactions() -> None:
    session = make_session([Message.user("Fix the failing test."), *_denied_edit(),
                            *tool_pair(words(400), args={"command": "seq 1 1500"}),
                            Message.assistant("ok"), Message.user("run the tests")])
    collect(manager(session, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    first = _sent(session)
    assert "`test_x.py`: ;" not in first and ": ; " not in first
    assert "`test_x.py`: not changed; 1 attempt(s) failed or were rejected" in first
    for m in [*tool_pair(words(400), args={"command": "seq 2 2000"}),
              Message.assistant("next"), Message.user("carry on")]:
        session.conversation.append(m)
    collect(manager(session, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    second = _sent(session)
    assert "`test_x.py`: edited" not in second
    assert "`test_x.py`: not changed; 1 attempt(s) failed or were rejected" in second


def test_a_file_line_without_a_verb_is_not_read_back_as_edited() -> None:
    # A facts section listing a file only looked at, and a line of rejected attempts.
    facts = Facts()
    carry_forward("# Conversation Summary\n\n## Files changed (from the transcript)\n\n"
                  "- `app.py`: holds f()\n"
                  "- `test_x.py`: not changed; 2 attempt(s) failed or were rejected\n", facts)
    assert facts.files["app.py"].describe() == ""
    assert facts.files["test_x.py"].describe() == (
        "not changed; 2 attempt(s) failed or were rejected")
    assert not facts.files["app.py"].changed and not facts.files["test_x.py"].changed


def test_the_constraint_of_a_request_with_an_attachment_is_kept() -> None:
    note = Attachment("file", "NOTES.md", "text/markdown", text="notes: f must return 2\n")
    request = Message("user", (TextContent(
        "Fix the failing test. Constraint: you must never change test files. See @NOTES.md"),
        note))
    session = make_session([request, *tool_pair(words(600), args={"command": "seq 1 1500"}),
                            Message.assistant("ok " + words(1500)), Message.user("run the tests"),
                            *tool_pair(words(600), args={"command": "seq 2 1500"}),
                            Message.assistant("done")])
    collect(manager(session, None, summarizer=ScriptedProvider([NAMES_NOTHING]),
                    context_limit_tokens=8000, keep_recent_ratio=0, keep_user_tokens=500)
            .compact(REQUEST))
    sent = _sent(session)
    summary = session.conversation.agent_messages()[0].text
    assert "## User constraints (from the transcript)" in summary
    assert "you must never change test files" in summary
    # re-sent as the user's request, the attachment as its one-line stub, not whole
    resent = [m for m in session.conversation.agent_messages()[1:] if m.role == "user"
              and "must never change test files" in m.text]
    assert resent and "[attached: NOTES.md" in resent[0].text
    assert "notes: f must return 2" not in sent


def test_a_passing_run_is_not_an_error() -> None:
    head = [Message.user("run the tests"),
            *tool_pair("test result: ok. 3 passed; 0 failed\n", args={"command": "cargo test"}),
            *tool_pair("collected 4\n4 passed, 0 failed\n", args={"command": "python3 t.py"}),
            *tool_pair("== 2 failed, 1 passed ==\n[exit code: 1]",
                       args={"command": "pytest -q"}),
            Message.assistant("ok")]
    out = merge_facts("SUMMARY", head, max_tokens=1500, counter=TokenCounter())
    errors = out.split("## Errors (from the transcript)\n\n")[1].split("\n\n")[0]
    assert errors.splitlines() == ["- shell `pytest -q`: == 2 failed, 1 passed =="]


def test_an_error_the_same_command_later_passed_is_no_longer_listed_as_failing() -> None:
    fail = tool_pair("== 2 failed, 1 passed ==\n[exit code: 1]", args={"command": "pytest -q"})
    passed = tool_pair("== 3 passed ==\n", args={"command": "pytest -q"})
    session = make_session([Message.user("make the tests pass"), *fail,
                            Message.assistant("fixing " + words(300)), *passed,
                            Message.assistant("all green"), Message.user("next")])
    collect(manager(session, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    summary = session.conversation.agent_messages()[0].text
    assert "2 failed" not in summary
    # An error carried by an earlier summary is dropped once the command passes.
    carried = make_session([Message.user("go"), *fail, Message.assistant("hm " + words(300)),
                            Message.user("again")])
    collect(manager(carried, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    assert "2 failed" in carried.conversation.agent_messages()[0].text
    for m in [*passed, Message.assistant("green " + words(300)), Message.user("more")]:
        carried.conversation.append(m)
    collect(manager(carried, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    assert "2 failed" not in carried.conversation.agent_messages()[0].text


def test_the_extractive_summary_says_an_error_later_passed() -> None:
    session = make_session([Message.user("make the tests pass"),
                            *tool_pair("== 2 failed, 1 passed ==\n[exit code: 1]",
                                       args={"command": "pytest -q"}),
                            Message.assistant("fixing " + words(300)),
                            *tool_pair("== 3 passed ==\n", args={"command": "pytest -q"}),
                            Message.assistant("all green"), Message.user("next")])
    collect(manager(session, None, keep_recent_ratio=0, keep_user_tokens=0).compact(
        REQUEST, strategy="extractive"))
    assert "shell `pytest -q`: == 2 failed, 1 passed == (later passed)" in _sent(session)
