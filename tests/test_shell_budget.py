"""A shell line past what the approval checks read is asked about, saying why, not judged.

goosectx/shell_budget.py: 100,000 characters, 500 simple commands, 2,000 words. Below the
bound a long line is judged as any other (its here-document's substitutions read once); the
cost of the decision is measured by bench/shell_decision.py, not here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.approval import ApprovalContext, PermissionRules, decide
from goosectx.config import ApprovalMode
from goosectx.permissions import CANNOT_CHECK
from goosectx.shell_budget import MAX_CHARS, MAX_PARTS, MAX_WORDS, over_budget
from goosectx.shell_lexer import lex

ALLOW = PermissionRules(allow=("shell(cat*)", "shell(echo*)"))


def _decide(tmp_path: Path, command: str, rules: PermissionRules = ALLOW,
            mode: ApprovalMode = "smart_approve") -> tuple[str, str, bool]:
    verdict = decide(ApprovalContext(mode=mode, tool_name="shell", read_only=False,
                                     working_dir=tmp_path, arguments={"command": command},
                                     rules=rules, data_dir=tmp_path / "data"))
    return verdict.action, verdict.reason, verdict.rule_bound


def _here_document(lines: int) -> str:
    return "cat <<EOF\n" + "".join(f"line {k} $(echo x)\n" for k in range(lines)) + "EOF"


def test_a_long_here_document_inside_the_bound_is_judged(tmp_path: Path) -> None:
    assert _decide(tmp_path, _here_document(MAX_PARTS - 10))[0] == "run"
    action, reason, _bound = _decide(tmp_path, _here_document(MAX_PARTS - 10).replace(
        "echo x", "rm x", 1))
    assert action == "ask"  # its substitutions are still read, each
    assert "rm" in reason


def test_more_commands_than_the_bound_asks_saying_how_many(tmp_path: Path) -> None:
    action, reason, bound = _decide(tmp_path, _here_document(MAX_PARTS + 100))
    assert action == "ask"
    assert f"it has {MAX_PARTS + 101:,} commands, more than the {MAX_PARTS:,}" in reason
    assert reason.startswith("smart_approve: ")
    assert not bound  # no deny or ask rule: an answer or "always allow" may run it


def test_too_many_words_asks(tmp_path: Path) -> None:
    action, reason, _bound = _decide(tmp_path, "cat " + "src/*.py " * (MAX_WORDS + 5))
    assert action == "ask"
    assert f"{MAX_WORDS + 6:,} words" in reason


def test_too_many_characters_asks_without_reading(tmp_path: Path) -> None:
    command = "echo '" + "x" * MAX_CHARS + "'"
    action, reason, _bound = _decide(tmp_path, command)
    assert action == "ask"
    assert f"it has {len(command):,} characters" in reason
    assert over_budget("echo '" + "x" * (MAX_CHARS - 20) + "'") is None


def test_under_a_deny_rule_it_asks_and_no_mode_runs_it(tmp_path: Path) -> None:
    rules = PermissionRules(allow=("shell(cat*)",), deny=("shell(rm*)",))
    for mode in ("auto", "smart_approve"):
        action, reason, bound = _decide(tmp_path, "ls; " * (MAX_PARTS + 1) + "rm x", rules,
                                        mode)
        assert (action, bound) == ("ask", True)  # not denied unread, not run unchecked
        assert reason.endswith(CANNOT_CHECK)


def test_auto_mode_without_deny_or_ask_rules_runs_it(tmp_path: Path) -> None:
    action, reason, _bound = _decide(tmp_path, "ls; " * (MAX_PARTS + 1), mode="auto")
    assert (action, reason) == ("run", "auto mode: every tool call runs")


def test_chat_mode_still_denies(tmp_path: Path) -> None:
    assert _decide(tmp_path, "ls; " * (MAX_PARTS + 1), mode="chat")[0] == "deny"


@pytest.mark.parametrize("opened", ["((", "$(("])
def test_unclosed_double_parentheses_stop_being_scanned(opened: str) -> None:
    parts = lex(opened * 3000)  # each `((` scanned to the end would cost the square
    reasons = {p.unreadable for p in parts if p.unreadable}
    assert any("too many '(('" in r for r in reasons)


def test_a_few_unclosed_double_parentheses_keep_their_reason() -> None:
    reasons = {p.unreadable for p in lex("((ls) ); ((a) )") if p.unreadable}
    assert reasons == {"bash may read its (( as nested subshells"}
