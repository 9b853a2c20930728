"""The question about an awk or sed call beyond its trusted surface says why (docs/architecture.md
§4, permission rules).

Under ``shell(awk*)`` ``awk 'BEGIN{system("ls")}'`` asked with only "the call may change
something": the reader's reason (``awk's program runs a command (system, a pipe)``, ``sed's
script writes a file (w)``) is now the question's.
"""

from __future__ import annotations

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(awk*)", "shell(sed*)", "shell(gawk*)", "shell(cat*)"))


@pytest.mark.parametrize(("command", "said"), [
    ("awk 'BEGIN{system(\"ls\")}'", "awk's program runs a command (system, a pipe)"),
    ("awk '{print | \"sh\"}' f", "awk's program runs a command"),
    ("gawk '{print > \"out\"}' f", "awk's program writes a file (print >)"),
    ("awk -f prog.awk f", "awk's option -f is not one the rules read"),
    ("awk '{getline x < \"/etc/passwd\"}' f", "awk's program reads a file with getline <"),
    ("sed 's/a/b/e' f", "sed's script runs a command (e)"),
    ("sed 'w out' f", "sed's script writes a file (w)"),
    ("cat f | sed 's/a/b/w out'", "sed's script writes a file"),
    ("awk \"$PROG\" f", "its program is made at run time"),
])
def test_the_question_says_why_awk_or_sed_goes_beyond(command: str, said: str) -> None:
    verdict = shell_verdict(RULES, command, "smart_approve")
    assert verdict.action == "ask", command
    assert verdict.reason == f"smart_approve: {said}, which no allow rule covers" or (
        verdict.reason.startswith(f"smart_approve: {said}")), verdict.reason
    assert verdict.read_why is not None and said in verdict.read_why


@pytest.mark.parametrize("command", ["awk '{print $1}' f", "sed -n 1,5p f", "awk -F, '{n++} END {print n}' f"])
def test_what_stays_on_the_surface_still_runs(command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve").action == "run"


def test_without_an_allow_rule_nothing_changes() -> None:
    verdict = shell_verdict(PermissionRules(), "awk 'BEGIN{system(\"ls\")}'", "smart_approve")
    assert verdict.action == "ask"
