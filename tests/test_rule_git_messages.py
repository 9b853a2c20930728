"""A git commit message is text, not a path: its ``$( )`` is judged as a command of its own.

fresh28 finding 10: under smart_approve with ``shell(git*)`` and ``shell(cat*)``, the commit
form agents use for every commit, ``git commit -m "$(cat <<'END'`` … ``END`` ``)"``, asked
"$(…) may be outside the project", as did ``git commit -m "$(echo hi)"``, ``git commit -m
"fix $(date +%F)"`` and ``git tag -a v1 -m "$(cat NOTES.md)"``: every word holding ``$(…)``
was judged as a path. A message option's value (commit, tag, merge, stash, notes,
commit-tree ``-m`` / ``--message``) names no file; ``-F`` / ``--file`` reads one; what the
substitution runs still needs its own rule and reads what it reads (``$(cat .env)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules

RULES = ("shell(git*)", "shell(cat*)", "shell(echo*)", "shell(date*)")
HEREDOC = "git commit -m \"$(cat <<'END'\nfix: the parser\n\nA body line.\nEND\n)\""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "NOTES.md").write_text("release notes\n")
    (tmp_path / ".env").write_text("API_KEY=x\n")
    return tmp_path


def _verdict(work: Path, command: str, *rules: str) -> ApprovalVerdict:
    return shell_verdict(PermissionRules(allow=rules or RULES), command, "smart_approve",
                         working_dir=work)


@pytest.mark.parametrize("command", [
    HEREDOC, 'git commit -m "$(echo hi)"', 'git commit -m "fix $(date +%F)"',
    'git tag -a v1 -m "$(cat NOTES.md)"', 'git commit --message="$(echo hi)"',
    'git commit --mess "$(echo hi)"', 'git commit -am "$(echo hi)"', 'git commit -m"$(echo hi)"',
    'git merge -m "$(echo hi)" feature', 'git stash push -m "$(echo hi)"',
    'git -C . commit -S -m "$(echo hi)"', 'git notes add -m "$(cat NOTES.md)" HEAD',
    'git commit -m "see ../other and /etc/hosts"', 'git commit -m "`cat NOTES.md`"',
    'git commit -m "HEAD:.env is read lazily"', "git commit -m .env"])
def test_a_message_holding_a_command_substitution_runs_under_the_rules(
        work: Path, command: str) -> None:
    found = _verdict(work, command)
    assert (found.action, found.reason.split(":")[0]) == ("run", "allowed by a permission rule"), (
        command, found.reason)


@pytest.mark.parametrize(("command", "why"), [
    ('git commit -m "$(cat .env)"', ".env is a sensitive file"),
    ("git commit -F .env", ".env is a sensitive file"),
    ("git commit --file=.env", ".env is a sensitive file"),
    ('git commit -m "$(cat /etc/hosts)"', "/etc/hosts is outside the project"),
    ('git commit -F "$(echo f)"', "$(…) may be outside the project"),
    ("git commit -m msg -- /etc/hosts", "/etc/hosts is outside the project"),
    ("git commit -mmsg /etc/hosts", "/etc/hosts is outside the project"),
    ("git commit -t /etc/hosts -m msg", "/etc/hosts is outside the project"),
    ("git checkout -m /etc/hosts", "/etc/hosts is outside the project"),
    ("git commit -m x HEAD:.env", "HEAD:.env names .env in a commit"),
    ("git commit -am 'HEAD:.env' -- '*.env'", "the pathspec *.env may match .env")])
def test_a_file_the_command_or_its_substitution_reads_is_still_asked_about(
        work: Path, command: str, why: str) -> None:
    found = _verdict(work, command)
    assert found.action == "ask" and why in found.reason, (command, found.reason)


def test_the_substituted_command_still_needs_its_own_rule(work: Path) -> None:
    found = _verdict(work, HEREDOC, "shell(git*)")
    assert found.action == "ask" and "cat is covered by no allow rule" in found.reason, found.reason
    found = _verdict(work, 'git commit -m "$(echo hi)"', "shell(git*)")
    assert found.action == "ask" and "echo hi is covered by no allow rule" in found.reason


def test_a_deny_rule_still_catches_the_command_of_a_message() -> None:
    found = shell_verdict(DENY_RM, 'git commit -m "$(rm -rf build)"')
    assert found.action == "deny", found.reason
    assert shell_verdict(DENY_RM, HEREDOC).action == "run"
