"""Facts merged into the summary from the transcript (issue 12, point 3)."""

from __future__ import annotations

from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words

from goosectx.compaction.facts import merge_facts
from goosectx.compaction.summary import quoted_reply
from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider
from goosectx.tokens import TokenCounter

NO_FILES = '```json\n{"user_intent": "make the config loader", "current_work": "done"}\n```'


def write(path: str) -> list[Message]:
    return tool_pair("ok", name="text_editor",
                     args={"command": "write", "path": path, "file_text": "x = 1\n"})


def test_a_summary_that_names_no_file_still_carries_every_edited_path() -> None:
    messages = [Message.user("make the config loader; never touch setup.py"),
                *write("src/app/config.py"), *write("src/app/loader.py"),
                *tool_pair("FAILED test_io.py::test_x - AssertionError", name="shell",
                           args={"command": "pytest -q"}),
                Message.assistant("done " + words(50)), Message.user("thanks, next part"),
                Message.assistant("ok")]
    session = make_session(messages)
    collect(manager(session, ScriptedProvider([NO_FILES]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    summary = session.conversation.agent_messages()[0].text
    assert summary.startswith("# Conversation Summary")
    assert "## Files changed (from the transcript)" in summary
    assert "`src/app/config.py`: written" in summary and "`src/app/loader.py`" in summary
    assert "## Commands run (from the transcript)" in summary and "pytest -q" in summary
    assert "never touch setup.py" in summary  # a user constraint


def test_constraints_are_found_whatever_their_case_even_with_a_long_s() -> None:
    # The scan skips a request holding none of the words before its search; the search
    # ignores case, and a long s (U+017F) matches "s" there though it does not lower-case
    # to it.
    head = [Message.user("Fix it.\nYou MUST keep the API\nDo Not rename files"),
            Message.assistant("ok"), Message.user("also: muſt stay offline"),
            Message.assistant("ok"), Message.user("nothing to see here"), Message.assistant("ok")]
    out = merge_facts("SUMMARY", head, max_tokens=1500, counter=TokenCounter())
    constraints = out.split("## User constraints (from the transcript)\n\n")[1]
    assert constraints.splitlines()[:3] == ["- You MUST keep the API", "- Do Not rename files",
                                            "- also: muſt stay offline"]
    assert "Fix it." not in out and "nothing to see here" not in out


def test_facts_already_in_the_summary_are_not_repeated() -> None:
    head = [Message.user("go"), *write("src/a.py"), Message.assistant("ok")]
    text = ("# Conversation Summary\n\n## Problem solving\n\nExtractive summary (no model) of "
            "3 messages.\n\n## Files\n\n- `src/a.py`: wrote it")
    assert merge_facts(text, head, max_tokens=1500, counter=TokenCounter()) == text


def test_a_file_only_the_model_named_is_listed_again_as_a_fact() -> None:
    # the model's Files list is its word: the next compaction does not read it back
    head = [Message.user("go"), *write("src/a.py"), Message.assistant("ok")]
    text = "# Conversation Summary\n\n## Files\n\n- `src/a.py`: wrote it"
    out = merge_facts(text, head, max_tokens=1500, counter=TokenCounter())
    assert out.startswith(text) and "(from the transcript)\n\n- `src/a.py`" in out, out


def test_past_the_cap_paths_are_grouped_by_directory_never_dropped() -> None:
    head = [Message.user("generate the api")]
    for i in range(143):
        head += write(f"src/api/handler_{i:03}.py")
    head += write("docs/api.md")
    out = merge_facts("SUMMARY", head, max_tokens=100, counter=TokenCounter())
    assert "`src/api/`: 143 files changed" in out and "`docs/`: 1 file changed" in out


def test_a_rejected_object_is_kept_raw_with_the_extractive_summary_beneath() -> None:
    session = make_session([Message.user("fix the parser"), *write("src/parser.py"),
                            Message.assistant("fixed " + words(300)), Message.user("next")])
    events = collect(manager(session, ScriptedProvider(['{"status": "ok"}']),
                             keep_recent_ratio=0, keep_user_tokens=0).compact(REQUEST))
    summary = session.conversation.agent_messages()[0].text
    assert summary.startswith(quoted_reply('{"status": "ok"}'))
    assert "# Conversation Summary" in summary and "src/parser.py" in summary
    assert any("did not follow the requested format" in getattr(e, "text", "") for e in events)


def test_json_only_inside_the_analysis_or_a_quoted_example_is_kept_as_raw_text() -> None:
    # Acceptance (issue 12, point 4) through a real compaction: the object is not rendered as
    # the summary; the reply stays as the model wrote it and the edited path is in the summary.
    analysis = ('<analysis>The user wanted {"user_intent": "WRONG-INTENT"}; the parser in '
                "src/parser.py was fixed.</analysis>\nThe parser was fixed and its tests pass; "
                + words(60, "prose"))
    quoted = ('A summary object looks like {"user_intent": "WRONG-INTENT"}, but in prose: the '
              "parser was fixed and its tests pass; " + words(60, "prose"))
    for reply in (analysis, quoted):
        session = make_session([Message.user("fix the parser"), *write("src/parser.py"),
                                Message.assistant("fixed " + words(300)), Message.user("next")])
        collect(manager(session, ScriptedProvider([reply]), keep_recent_ratio=0,
                        keep_user_tokens=0).compact(REQUEST))
        summary = session.conversation.agent_messages()[0].text
        assert summary.startswith(quoted_reply(reply))
        assert "## User intent\n\nWRONG-INTENT" not in summary  # the object is not the summary
        assert "`src/parser.py`" in summary


def test_commands_run_are_valid_inline_code_even_when_they_hold_backticks() -> None:
    head = [Message.user("go"),
            *tool_pair("1\n2", name="shell", args={"command": "seq 1 1500"}),
            *tool_pair("Mon", name="shell", args={"command": "echo `date` | wc -c"}),
            Message.assistant("ok")]
    out = merge_facts("SUMMARY", head, max_tokens=1500, counter=TokenCounter())
    assert "- shell `seq 1 1500`\n" in out  # the tool name outside the code, one fence
    assert "- shell ``echo `date` | wc -c``" in out  # a fence longer than any run inside
    assert "`shell `" not in out


def test_the_last_error_of_a_command_keeps_its_message_not_only_the_exit_code() -> None:
    failing = "python3 -c 'import sys; sys.exit(\"SECOND-ERR: tests failed 3/7\")'"
    session = make_session([
        Message.user("run the checks"),
        *tool_pair("[stderr]\nSECOND-ERR: tests failed 3/7\n[exit code: 1]", name="shell",
                   args={"command": failing}, is_error=True),
        *tool_pair("(no output)\n[exit code: 2]", name="shell", args={"command": "false"},
                   is_error=True),
        Message.assistant("checked " + words(300)), Message.user("next")])
    collect(manager(session, ScriptedProvider([NO_FILES]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    summary = session.conversation.agent_messages()[0].text
    assert "## Errors (from the transcript)" in summary
    assert "sys.exit(\"SECOND-ERR: tests failed 3/7\")'`: SECOND-ERR: tests failed 3/7" in summary
    assert "shell `false`: [exit code: 2]" in summary  # nothing better to say than the code


def test_a_file_named_relative_then_absolute_is_listed_once() -> None:
    # SWE-agent's function calls: `open tests/m.py` (relative), then `edit` of the file its
    # editor reports open ("[File: /repo/tests/m.py …]", absolute). One file, one line.
    head = [Message.user("fix the syntax error"),
            *tool_pair("[File: /repo/tests/m.py (4 lines total)]\n1:def f()\n", name="open",
                       args={"path": "tests/m.py"}),
            *tool_pair("File updated.", name="edit",
                       args={"search": "def f()", "replace": "def f():"}),
            Message.assistant("fixed")]
    out = merge_facts("SUMMARY", head, max_tokens=1500, counter=TokenCounter())
    files = out.split("## Files changed (from the transcript)\n\n")[1].split("\n\n")[0]
    assert files.splitlines() == ["- `/repo/tests/m.py`: edited, read"]
