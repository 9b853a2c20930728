"""A user constraint is the sentence that states it, not the line it shares (DESIGN §4.5(4)).

test31b saw "Task: port the parser to rust." listed as a user constraint because "Never use
unsafe" shared its line, and a SWE-agent issue's title ("… fails when array arguments do not
appear in wrapped expr") listed as one for its "do not". Driven through a compaction: what the
model is told the user's rules are.
"""

from __future__ import annotations

import pytest
from compaction_support import make_session, words
from test_facts_current import compact, section

from goosectx.conversation import Message


def constraints(*requests: str) -> list[str]:
    """The "User constraints" a compaction lists for ``requests`` (each answered at length)."""
    messages: list[Message] = []
    for text in requests:
        messages += [Message.user(text), Message.assistant("ok " + words(400))]
    session = make_session([*messages, Message.user("go on")])
    return [line.removeprefix("- ") for line in
            section(compact(session), "User constraints").splitlines()]


def test_the_task_sharing_a_line_with_a_rule_is_not_a_rule() -> None:
    assert constraints("Task: port the parser to rust. Never use unsafe.") == [
        "Never use unsafe."]


def test_an_issue_title_and_text_saying_do_not_state_no_rule() -> None:
    issue = ("<pr_description>\nautowrap with cython backend fails when array arguments do not "
             "appear in wrapped expr\nWhen using the cython backend for autowrap, it appears "
             "that the code is not correctly generated when the function in question has array "
             "arguments that do not appear in the final expression.\n</pr_description>\n"
             "Make the minimal changes. You do not need to modify the tests.")
    assert constraints(issue) == ["Make the minimal changes. You do not need to modify the tests."]


@pytest.mark.parametrize("line", [
    "Never use unsafe.", "Do not modify the tests; run them with pytest.",
    "I don't want new dependencies.", "Tests must never touch the network.",
    "Tests never touch the network.",
    "Please don't add dependencies.", "Use tabs for indentation. Never touch secrets.cfg.",
    "Keep lines at 79 columns, and do not reformat other files.",
])
def test_real_rules_stay_whole(line: str) -> None:
    assert constraints(line) == [line]


def test_a_description_beside_a_rule_goes_an_order_stays() -> None:
    assert constraints("We are building a CLI. Only use the standard library. Add a --json "
                       "flag.") == ["Only use the standard library. Add a --json flag."]
