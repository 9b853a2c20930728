"""An ask a permission rule makes says which rule and which command, and reads the rules once.

appb29: ``rm -rf build`` under ``--ask 'shell(rm *)'`` asked with no reason in the question
(the verdict's reason said only ``a permission rule asks: shell(rm *)``, and the question shows
``read_why`` alone); a line with several commands left the user to guess which one the rule
matched. And :func:`~goosectx.approval.decide` read the rules a second time when no clause
decided (``grep x | sort`` with no rule: every command's forms read twice).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx import approval
from goosectx.approval import ApprovalContext, decide
from goosectx.cli.approval_view import approval_question, plain_question
from goosectx.conversation import ToolRequest
from goosectx.permissions import PermissionRules

ASK_RM = PermissionRules(ask=("shell(rm *)",))


@pytest.mark.parametrize("mode", ["auto", "smart_approve", "approve"])
def test_the_ask_rule_and_the_command_it_matched_are_the_reason(mode: str) -> None:
    found = shell_verdict(ASK_RM, "ls && rm -rf build", mode)  # type: ignore[arg-type]
    assert found.action == "ask"
    assert found.reason == "`rm -rf build` matches ask rule shell(rm *)"
    assert found.asked_why == found.reason  # what the question says


def test_the_question_says_why_the_rule_asks() -> None:
    found = shell_verdict(ASK_RM, "rm -rf build")
    request = ToolRequest(id="1", name="shell", arguments={"command": "rm -rf build"})
    lines = plain_question(approval_question(request, 100, why=found.asked_why), whole=False)
    assert any("asked because `rm -rf build` matches ask rule shell(rm *)" in line
               for line in lines), lines


def test_several_ask_rules_are_all_named() -> None:
    rules = PermissionRules(ask=("shell(rm *)", "shell(rm -rf*)"))
    found = shell_verdict(rules, "rm -rf build")
    assert found.reason == "`rm -rf build` matches ask rules shell(rm *), shell(rm -rf*)"


def test_a_command_a_runner_starts_is_the_clause_named() -> None:
    found = shell_verdict(PermissionRules(deny=("shell(rm *)",)), "chroot / rm -rf x")
    assert found.action == "ask"
    assert "may start `rm -rf x`, which shell(rm *) names" in found.reason, found.reason
    assert found.asked_why == found.reason


def test_a_mode_ask_has_no_rule_reason_in_the_question() -> None:
    found = shell_verdict(PermissionRules(), "make", "smart_approve")
    assert found.action == "ask" and found.asked_why is None


@pytest.mark.parametrize(("command", "rules"), [
    ("grep x f | sort", PermissionRules()),
    ("grep x f | sort", PermissionRules(allow=("shell(grep*)",))),
    ("tar --index-file=idx -cf a.tar src", PermissionRules(deny=("shell(curl*)",))),
])
def test_the_rules_are_read_once_per_decision(monkeypatch: pytest.MonkeyPatch, command: str,
                                              rules: PermissionRules) -> None:
    calls: list[str] = []
    real = approval.match_rules

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(command)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(approval, "match_rules", counted)
    found = decide(ApprovalContext(mode="smart_approve", tool_name="shell", read_only=False,
                                   working_dir=Path("/work/proj"),
                                   arguments={"command": command}, rules=rules))
    assert found.action == "ask"
    assert len(calls) == 1


def test_a_reused_context_is_read_afresh_under_other_rules() -> None:
    ctx = ApprovalContext(mode="auto", tool_name="shell", read_only=False,
                          working_dir=Path("/work/proj"), arguments={"command": "rm x"},
                          rules=PermissionRules())
    assert decide(ctx).action == "run"
    assert decide(replace(ctx, rules=PermissionRules(deny=("shell(rm *)",)))).action == "deny"
