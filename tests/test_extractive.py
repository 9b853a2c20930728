"""The extractive (no-model) summariser on hand-written conversations."""

from __future__ import annotations

from goosectx.compaction.extractive import ANSWERED_NEXT_STEP, extractive_summary
from goosectx.compaction.memo import ScanMemo
from goosectx.compaction.summary import render_markdown
from goosectx.conversation import (
    Message,
    MessageMetadata,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.tokens import TokenCounter

COUNTER = TokenCounter()


def call(call_id: str, name: str, text: str = "", **args: object) -> Message:
    parts: tuple = (TextContent(text),) if text else ()
    return Message("assistant", (*parts, ToolRequest(call_id, name, dict(args))))


def result(call_id: str, output: str, *, is_error: bool = False) -> Message:
    return Message("user", (ToolResponse(call_id, output, is_error),))


def tagged(role: str, text: str, kind: str) -> Message:
    return Message(role, (TextContent(text),), MessageMetadata(extra={"source_kind": kind}))  # type: ignore[arg-type]


def small_session() -> list[Message]:
    return [
        Message.user("Fix the division by zero in src/cart.py"),
        Message("assistant", (ThinkingContent("SECRET-THOUGHT about carts"),
                              TextContent("Let me read it."),
                              ToolRequest("t1", "text_editor", {"command": "view",
                                                                 "path": "src/cart.py"}))),
        result("t1", "def avg(items):\n    return sum(items) / len(items)\n"),
        call("t2", "shell", command="pytest -q"),
        result("t2", "Traceback (most recent call last):\n  File 'x'\n"
                     "ZeroDivisionError: division by zero\n1 failed"),
        call("t3", "text_editor", "The empty cart divides by zero. Guarding it.",
             command="str_replace", path="src/cart.py", old_str="return sum(items) / len(items)",
             new_str="return sum(items) / len(items) if items else 0"),
        result("t3", "edited"),
        call("t4", "Write", file_path="tests/test_cart.py", content="def test_empty(): ..."),
        result("t4", "written"),
        Message.assistant("Done: avg() returns 0 for an empty cart."),
        Message.user("Now also round the average to 2 decimals"),
    ]


def test_fields_come_from_the_transcript() -> None:
    summary = extractive_summary(small_session(), max_tokens=4000, counter=COUNTER)
    assert summary.user_intent == "Fix the division by zero in src/cart.py"
    assert summary.user_messages == ["Fix the division by zero in src/cart.py",
                                     "Now also round the average to 2 decimals"]
    files = {f.path: f.summary for f in summary.files}
    assert files == {"src/cart.py": "edited, read", "tests/test_cart.py": "written"}
    assert "if items else 0" in summary.files[0].key_code
    assert len(summary.errors_and_fixes) == 1
    error = summary.errors_and_fixes[0]
    assert "pytest -q" in error and "ZeroDivisionError: division by zero" in error
    assert "then: The empty cart divides by zero." in error
    assert "avg() returns 0" in summary.current_work
    assert "Now also round the average to 2 decimals" in summary.next_step
    rendered = render_markdown(summary)
    assert rendered.startswith("# Conversation Summary")
    assert "SECRET-THOUGHT" not in rendered


def long_session(n_files: int = 30, n_turns: int = 40) -> list[Message]:
    msgs: list[Message] = [Message.user("Refactor the whole package. " + "context " * 400)]
    for i in range(n_turns):
        msgs.append(call(f"r{i}", "read_file", file_path=f"docs/read_only_{i}.md"))
        msgs.append(result(f"r{i}", "text " * 300))
        msgs.append(call(f"s{i}", "bash", command=f"make test-{i}"))
        msgs.append(result(f"s{i}", f"error: target {i} failed " + "noise " * 200))
        msgs.append(Message.user(f"request number {i}: " + "please " * 150))
    for i in range(n_files):
        msgs.append(call(f"e{i}", "Edit", file_path=f"pkg/module_{i}.py",
                         old_string="a", new_string="b\n" * 40))
        msgs.append(result(f"e{i}", "ok"))
    msgs.append(Message.user("FINAL REQUEST: ship it"))
    return msgs


def test_rendering_fits_the_budget_and_keeps_request_and_changed_paths() -> None:
    msgs = long_session()
    for budget in (4000, 1000, 400):
        rendered = render_markdown(extractive_summary(msgs, max_tokens=budget, counter=COUNTER))
        assert COUNTER.count_text(rendered) <= budget, budget
        assert "FINAL REQUEST: ship it" in rendered
        for i in range(30):
            assert f"`pkg/module_{i}.py`" in rendered
    small = render_markdown(extractive_summary(msgs, max_tokens=400, counter=COUNTER))
    assert "read_only_" not in small  # read-only files go before changed ones


def test_a_long_newest_request_is_shortened_only_when_it_must_be() -> None:
    newest = "Please do this: " + "step " * 600
    msgs = [Message.user("first"), Message.user(newest)]
    roomy = render_markdown(extractive_summary(msgs, max_tokens=4000, counter=COUNTER))
    assert newest.strip() in roomy
    tight = render_markdown(extractive_summary(msgs, max_tokens=200, counter=COUNTER))
    assert COUNTER.count_text(tight) <= 200
    assert "Please do this:" in tight


def test_text_actions_of_other_agents_name_their_files() -> None:
    msgs = [
        Message.user("go"),
        Message.assistant("Creating it\n\n<function=str_replace_editor>\n<parameter=command>"
                          "create</parameter>\n<parameter=path>/testbed/repro.py</parameter>\n"
                          "<parameter=file_text>print(1)</parameter>\n</function>"),
        tagged("user", "OBSERVATION:\nFile created successfully", "observation"),
        Message.assistant("Whole file:\n\nbackend/app.py\n```python\nprint('hi')\n```\n"),
        Message.assistant("```\ncreate notes.txt\n```"),
        Message.assistant("*** Begin Patch\n*** Update File: go.mod\n@@\n-go 1\n+go 2\n"
                          "*** End Patch"),
        Message.assistant("⏺ Update(bookminder/cli.py)\n\n  ⎿  Updated bookminder/cli.py"),
        Message.assistant(" │ ✔  Edit specs/cli_spec.py: old => new │"),
        Message.assistant(" │ -  WriteFile Writing to ...specs/add_book.sql │"),
    ]
    summary = extractive_summary(msgs, max_tokens=4000, counter=COUNTER)
    files = {f.path: f.summary for f in summary.files}
    assert files == {
        "/testbed/repro.py": "created", "backend/app.py": "written", "notes.txt": "created",
        "go.mod": "edited", "bookminder/cli.py": "edited", "specs/cli_spec.py": "edited",
        "specs/add_book.sql": "written",
    }


def test_swe_agent_edits_apply_to_the_open_file() -> None:
    msgs = [
        Message.user("fix it"),
        call("a", "open", path="src/fields.py"),
        result("a", "[File: src/fields.py (100 lines total)]\n1:x\n(Open file: /repo/src/fields.py)"),
        call("b", "edit", search="x", replace="y"),
        result("b", "ok"),
    ]
    files = {f.path: f.summary for f in
             extractive_summary(msgs, max_tokens=4000, counter=COUNTER).files}
    assert files == {"/repo/src/fields.py": "edited, read"}  # one file, two names


def test_a_head_scanned_after_the_whole_view_gets_the_summary_it_gets_alone() -> None:
    # A compaction scans the whole view first (the facts' room), then the head, sharing one
    # memo; an edit whose target is the open file must follow what the head itself opened.
    msgs = [
        Message.user("fix it"),
        call("a", "open", path="src/fields.py"),
        result("a", "[File: src/fields.py (100 lines total)]\n1:x\n(Open file: /repo/src/fields.py)"),
        call("b", "edit", search="x", replace="y"),
        result("b", "ok"),
        call("c", "shell", command="pytest -q"),
        result("c", "AssertionError: 1 != 2\n1 failed"),
        Message.assistant("Tests fail."),
    ]
    memo = ScanMemo()
    whole = extractive_summary(msgs, max_tokens=4000, counter=COUNTER, memo=memo)
    assert [f.path for f in whole.files] == ["/repo/src/fields.py"]
    head = [Message.user("edit the open file"), *msgs[3:]]
    alone = render_markdown(extractive_summary(head, max_tokens=4000, counter=COUNTER))
    assert render_markdown(extractive_summary(head, max_tokens=4000, counter=COUNTER,
                                              memo=memo)) == alone
    assert "fields.py" not in alone and "AssertionError" in alone


def test_shell_commands_that_change_files_are_recognised() -> None:
    msgs = [
        Message.user("clean up"),
        call("a", "shell", command=["bash", "-lc", "rm -f TODO.md && sed -i 's/a/b/' setup.cfg"]),
        result("a", "ok"),
        call("b", "shell", command="python -c 'print(1 > 0)' 2>/dev/null; echo x >> log.txt"),
        result("b", "ok"),
    ]
    files = {f.path: f.summary for f in
             extractive_summary(msgs, max_tokens=4000, counter=COUNTER).files}
    assert files == {"TODO.md": "deleted", "setup.cfg": "edited", "log.txt": "written"}


def test_harness_text_is_not_a_user_request_and_observations_show_errors() -> None:
    msgs = [
        tagged("user", "<environment_context>cwd</environment_context>", "harness"),
        Message.user("real request"),
        Message.assistant("```\npython run.py\n```"),
        tagged("user", "Traceback (most recent call last):\nKeyError: 'x'", "observation"),
        Message.assistant("Fixing the key."),
        tagged("user", "/model opus", "command"),
    ]
    summary = extractive_summary(msgs, max_tokens=4000, counter=COUNTER)
    assert summary.user_messages == ["real request"]
    assert "real request" in summary.next_step
    assert summary.errors_and_fixes == ["observation: KeyError: 'x' → then: Fixing the key."]


def test_failed_writes_are_listed_as_failed() -> None:
    msgs = [Message.user("write it"), call("w", "write_file", file_path="a/b.py", content="x"),
            result("w", "File path must be absolute", is_error=True)]
    summary = extractive_summary(msgs, max_tokens=4000, counter=COUNTER)
    assert summary.files[0].path == "a/b.py"
    assert "failed" in summary.files[0].summary
    assert "File path must be absolute" in summary.errors_and_fixes[0]


def test_pending_tasks_come_from_the_newest_todo_list() -> None:
    msgs = [Message.user("plan"),
            call("p", "TodoWrite", todos=[{"content": "one", "status": "completed"},
                                          {"content": "two", "status": "in_progress"}]),
            result("p", "ok")]
    summary = extractive_summary(msgs, max_tokens=4000, counter=COUNTER)
    assert summary.pending_tasks == ["two (in_progress)"]


def test_an_earlier_summary_is_carried_forward() -> None:
    first = extractive_summary(small_session(), max_tokens=4000, counter=COUNTER)
    summary_msg = Message("user", (TextContent(render_markdown(first)),),
                          MessageMetadata(user_visible=False, is_summary=True))
    later = [summary_msg, Message.assistant("Continuing."), Message.user("and add docs")]
    again = extractive_summary(later, max_tokens=4000, counter=COUNTER)
    assert {f.path for f in again.files} >= {"src/cart.py", "tests/test_cart.py"}
    assert again.user_messages[0] == "Fix the division by zero in src/cart.py"
    assert "and add docs" in again.next_step


# -- finished is not pending (issue 12, point 5) ---------------------------------------------
def test_a_finished_item_is_never_a_pending_task() -> None:
    msgs = [Message.user("migrate the db"),
            call("a", "TodoWrite", todos=[{"content": "dump", "status": "completed"},
                                          {"content": "load", "status": "in_progress"},
                                          {"content": "old idea", "status": "cancelled"}]),
            result("a", "ok"),
            call("b", "update_plan", plan=[{"step": "check", "status": "Completed"},
                                           {"step": "report", "status": "pending"}]),
            result("b", "ok")]
    summary = extractive_summary(msgs, max_tokens=4000, counter=COUNTER)
    assert summary.pending_tasks == ["report (pending)"]  # the newest list replaces the older
    shapes = [
        call("c", "write_todos", todos=[{"description": "x", "status": "done"},
                                        {"description": "y", "done": True},
                                        {"description": "z", "checked": False}]),
        call("c", "todo", content="- [x] shipped\n- [ ] announce\n* ✅ tagged"),
    ]
    for shape in shapes:
        pending = extractive_summary([Message.user("go"), shape, result("c", "ok")],
                                     max_tokens=4000, counter=COUNTER).pending_tasks
        assert pending in (["z (pending)"], ["announce"]), pending


def test_a_merged_todo_update_closes_the_item_it_names() -> None:
    msgs = [Message.user("go"),
            call("a", "todo_write", todos=[{"id": "1", "content": "parse", "status": "pending"},
                                           {"id": "2", "content": "emit", "status": "pending"}]),
            result("a", "ok"),
            call("b", "todo_write", merge=True, todos=[{"id": "1", "status": "completed",
                                                        "content": "parse"}]),
            result("b", "ok")]
    summary = extractive_summary(msgs, max_tokens=4000, counter=COUNTER)
    assert summary.pending_tasks == ["emit (pending)"]


def test_an_answered_request_is_not_the_next_step() -> None:
    answered = [*small_session(), Message.assistant("Rounded.")]
    summary = extractive_summary(answered, max_tokens=4000, counter=COUNTER)
    assert summary.next_step == (ANSWERED_NEXT_STEP + " It was:\n\n"
                                 "Now also round the average to 2 decimals")
    assert "the last request was answered; wait for the user's next message" in summary.next_step
    assert "Continue with" not in render_markdown(summary)
    mid_call = [*answered, Message.user("and the median?"), call("t9", "shell", command="ls")]
    assert extractive_summary(mid_call, max_tokens=4000, counter=COUNTER).next_step.startswith(
        "Continue with the newest user request:\n\nand the median?")


def test_manual_extractive_compaction_of_an_answered_turn_says_so_in_summary_and_continuation(
) -> None:
    from compaction_support import REQUEST, collect, make_session, manager

    from goosectx.compaction.prompts import CONTINUATION_TEXTS

    session = make_session(small_session()[:-1] + [Message.assistant("Both done.")])
    collect(manager(session, None).compact(REQUEST, strategy="extractive"))
    summary, continuation = session.conversation.agent_messages()[:2]
    assert "## Next step\n\n" + ANSWERED_NEXT_STEP in summary.text
    assert "Continue with the newest user request" not in summary.text
    assert continuation.text == CONTINUATION_TEXTS["answered"]


def test_a_request_of_few_characters_but_many_tokens_is_still_cut_to_its_budget() -> None:
    ducks = "🦆" * 45  # 45 characters, 3 tokens each in o200k_base
    assert len(ducks) < 50 < COUNTER.count_text(ducks)
    msgs = [Message.user(f"older request {i}: " + ducks) for i in range(12)]
    msgs.append(Message.user(ducks))
    rendered = render_markdown(extractive_summary(msgs, max_tokens=120, counter=COUNTER))
    assert COUNTER.count_text(rendered) <= 120
    assert ducks not in rendered  # the newest request was cut ("[…]"), not kept whole


def test_an_older_summary_whose_intent_was_a_note_gives_the_intent_alone() -> None:
    # Summaries written before the intent was carried titled it "user intent: …".
    old = ("# Conversation Summary\n\n## User intent\n\nuser intent: build the CSV tool\n\n"
           "## Problem solving\n\nExtractive summary (no model) of 4 messages with 0 tool "
           "calls and 0 error(s). Earlier: user intent: build the CSV tool\n")
    summary_msg = Message("user", (TextContent(old),),
                          MessageMetadata(user_visible=False, is_summary=True))
    again = extractive_summary([summary_msg, Message.assistant("Working on it.")],
                               max_tokens=4000, counter=COUNTER)
    assert again.user_intent == "build the CSV tool"


def test_a_newer_request_with_the_words_of_a_copied_one_is_quoted_not_referred_to() -> None:
    # test28c M1: "the request that follows this summary" was said of a request the model has
    # no copy of, because a re-sent older one read the same.
    task, answer = Message.user("fix the tests"), Message.assistant("Fixed them.")
    again = Message.user("fix the tests")
    summary = render_markdown(extractive_summary(
        [task, answer, again], max_tokens=2000, counter=COUNTER, copied=frozenset({task.id})))
    step = summary.split("## Next step", 1)[1]
    assert "Continue with the newest user request:\n\nfix the tests" in step
    referred = render_markdown(extractive_summary(
        [task, answer, again], max_tokens=2000, counter=COUNTER, copied=frozenset({again.id})))
    assert "Continue with the user's request that follows this summary." in referred
