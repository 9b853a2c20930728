"""``git -C DIR apply F`` reads ``DIR/F`` and writes below ``DIR``: the diff judged is that one.

Before, the diff was read in the dir the shell runs in: ``git -C sub apply y.diff`` with a
harmless ``./y.diff`` ran in auto under ``--deny 'shell(rm *)'`` while git applied
``sub/y.diff``, which writes a hook; and ``git -C sub apply ok.diff`` asked, ``ok.diff``
"cannot be read here".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

HOOK_DIFF = "--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+rm -rf src\n"
PLAIN_DIFF = "--- a/x.py\n+++ b/x.py\n@@ -0,0 +1 @@\n+x = 1\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "y.diff").write_text(PLAIN_DIFF)
    (tmp_path / "sub" / "y.diff").write_text(HOOK_DIFF)
    (tmp_path / "sub" / "ok.diff").write_text(PLAIN_DIFF)
    return tmp_path


@pytest.mark.parametrize("command", ["git -C sub apply y.diff", "git -C sub am y.diff",
                                     "git -c core.x=1 -C sub apply --index y.diff",
                                     "git -C . -C sub apply y.diff"])
def test_the_diff_git_reads_in_its_dir_is_judged(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, working_dir=repo)
    assert verdict.action == "ask", verdict.reason
    assert "hooks/pre-commit" in verdict.reason


@pytest.mark.parametrize("command", ["git -C sub apply ok.diff", "git apply y.diff",
                                     "git -C sub -C .. apply y.diff", "git apply sub/ok.diff"])
def test_a_harmless_diff_in_the_dir_git_reads_runs(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, working_dir=repo)
    assert verdict.action == "run", verdict.reason


def test_a_dir_made_at_run_time_cannot_be_read(repo: Path) -> None:
    verdict = shell_verdict(DENY_RM, 'git -C "$X" apply y.diff', working_dir=repo)
    assert verdict.action == "ask" and "cannot be read here" in verdict.reason


@pytest.mark.parametrize("command", ["git -C .git apply < hooks.diff",
                                     "{ git -C .git apply; } < hooks.diff",
                                     "sudo git -C .git apply < hooks.diff"])
def test_a_diff_on_git_input_names_files_below_its_dir(repo: Path, command: str) -> None:
    (repo / "hooks.diff").write_text(HOOK_DIFF.replace(".git/hooks", "hooks"))
    verdict = shell_verdict(DENY_RM, command, working_dir=repo)
    assert verdict.action == "ask", verdict.reason
    assert ".git/hooks/pre-commit" in verdict.reason
    assert shell_verdict(DENY_RM, "git -C sub apply < y.diff", working_dir=repo).action == "run"
