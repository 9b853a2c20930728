"""``pee`` and ``nq`` run the command they are given, not one of many candidates (round 29):
``pee 'rm x' cat`` runs each operand as a line of ``sh -c``, ``nq rm x`` runs ``rm x``, so a
deny rule on ``rm`` denies them (it asked before) and an allow rule must cover each command
(docs/architecture.md §4)."""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, action, action_under_deny_rm

from goosectx.permissions import PermissionRules


@pytest.mark.parametrize("command", [
    "pee 'rm x'", "pee cat 'rm -f x'", "pee --ignore-sigpipe 'rm x' cat", "nq rm x",
    "nq -q rm -rf build", "nq -c -q rm x",
])
def test_a_deny_rule_denies_what_they_run(command: str) -> None:
    assert action_under_deny_rm(command) == "deny", command


@pytest.mark.parametrize("command", ["pee cat 'wc -l'", "nq make test", "nq -q sleep 1"])
def test_what_they_run_otherwise_still_runs_in_auto(command: str) -> None:
    assert action(DENY_RM, command) == "run", command


def test_an_allow_rule_must_cover_each_command_they_run() -> None:
    rules = PermissionRules(allow=("shell(pee*)", "shell(cat*)"))
    assert action(rules, "pee cat 'wc -l'", "smart_approve") == "ask"
    assert action(rules, "pee cat cat", "smart_approve") == "run"
