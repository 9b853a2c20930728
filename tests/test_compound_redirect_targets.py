"""What follows ``done``/``fi``/``esac``/``}`` is a redirection's target, not a program.

test31c: ``while read -r f; do wc -l "$f"; done < <(git ls-files)`` asked in auto mode under
a deny rule, saying its program is named at run time — the lexer leaves the process
substitution as a word after ``done``, which was read as the program.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

DENY_RM = PermissionRules(deny=("shell(rm *)",))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


@pytest.mark.parametrize("command", [
    'while read -r f; do wc -l "$f"; done < <(git ls-files)',
    "for f in a b; do echo $f; done > out.txt",
    "if true; then echo ok; fi 2>/dev/null",
    "{ ls; } < <(git status --short)",
])
def test_a_redirection_after_a_compound_command_runs(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=repo)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize(("command", "action"), [
    ("while true; do wc -l x; done < <(rm x)", "deny"),  # the substitution's command
    ("while true; do :; done < <($X)", "ask"),
    ("for f in a; do echo; done > .git/hooks/pre-commit", "ask"),
    ("if true; then echo; fi > .git/config", "ask"),
])
def test_what_the_redirection_runs_or_writes_is_still_judged(repo: Path, command: str,
                                                             action: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=repo).action == action
