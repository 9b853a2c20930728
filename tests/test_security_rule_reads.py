"""An allow rule does not let a shell command read a sensitive file unasked (issue 27).

README: "An allow rule never overrides the sensitive-file list unless it names the path." —
for a shell command as for a ``text_editor view``: ``shell(cat*)`` runs ``cat notes.txt``
but asks about ``cat ~/.ssh/id_rsa .env``; a deny rule still denies, and ``auto`` without
a rule runs it as it runs every call.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import action, shell_verdict

from goosectx.permissions import PermissionRules

CAT = PermissionRules(allow=("shell(cat*)",))


@pytest.mark.parametrize("command", [
    "cat ~/.ssh/id_rsa .env", "cat .env", "cat notes.txt ~/.aws/credentials",
    "cat notes.txt; cat .env", "cat -- .git/config", "cat --file=.env"])
@pytest.mark.parametrize("mode", ["smart_approve", "approve"])
def test_an_allow_rule_does_not_run_a_sensitive_read(command: str, mode: str) -> None:
    assert action(CAT, command, mode) == "ask", command  # type: ignore[arg-type]


def test_an_allow_rule_still_runs_a_plain_read() -> None:
    assert shell_verdict(CAT, "cat notes.txt", "smart_approve").reason == (
        "allowed by a permission rule: shell(cat*)")


def test_a_rule_naming_the_path_allows_it_and_a_deny_rule_still_denies() -> None:
    named = PermissionRules(allow=("shell(cat .env)",))
    assert action(named, "cat .env", "smart_approve") == "run"
    assert action(named.plus("allow", "shell(cat*)"), "cat .env ~/.ssh/id_rsa",
                  "smart_approve") == "ask"  # the rule names .env, not the key
    denied = CAT.plus("deny", "shell(cat ~/.ssh/*)")
    assert action(denied, "cat ~/.ssh/id_rsa", "smart_approve") == "deny"


def test_auto_mode_still_runs_it_as_every_call(tmp_path: Path) -> None:
    assert action(CAT, "cat .env", "auto") == "run"
