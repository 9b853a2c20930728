"""git's own options and operands naming a file it writes (round 31, appr31c): ``git read-tree
--index-output=.git/config HEAD``, ``fast-export|fast-import --export-marks=F``, ``fast-import
--export-pack-edges=F``, ``commit-graph|multi-pack-index --object-dir=D``, ``bugreport|diagnose
-o D`` and ``merge-file CURRENT BASE OTHER`` ran under a deny rule and under git's rule while
writing git config or a hook. What they name is now judged as a write target; elsewhere they run
(docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_protected_write_expansions import asks_everywhere, runs_under_its_rule
from test_protected_write_expansions import linked as linked  # the fixture


@pytest.mark.parametrize(("command", "said"), [
    ("git read-tree --index-output=.git/config HEAD", "git writes .git/config: git config"),
    ("git read-tree --index-output .git/config HEAD", "git writes .git/config: git config"),
    ("git read-tree --index-out=.git/hooks/pre-commit HEAD", "git writes .git/hooks/pre-commit"),
    ("git -C .git read-tree --index-output=config HEAD", "git writes .git/config: git config"),
    ("git fast-export --export-marks=.git/config HEAD", "git writes .git/config: git config"),
    ("git fast-import --export-marks=.git/hooks/pre-commit", "git writes .git/hooks/pre-commit"),
    ("git fast-import --export-pack-edges=.git/config", "git writes .git/config: git config"),
    ("git commit-graph write --object-dir .git/hooks", "git writes .git/hooks: a hook"),
    ("git commit-graph --object-dir=.git/hooks write", "git writes .git/hooks: a hook"),
    ("git multi-pack-index --object-dir=.git/hooks write", "git writes .git/hooks: a hook"),
    ("git bugreport -o .git/hooks", "git writes .git/hooks: a hook"),
    ("git diagnose --output-directory=.git/hooks", "git writes .git/hooks: a hook"),
    ("git merge-file .git/config base.cfg other.cfg", "git writes .git/config: git config"),
    ("git merge-file -L a -L b -L c .git/hooks/pre-commit x y", "git writes .git/hooks/pre-c"),
    ("git worktree move wt .git/hooks", "git writes .git/hooks: a hook"),
    ("git worktree move -f wt .git/config", "git writes .git/config"),
    # already judged before this round: kept so
    ("git bundle create .git/config HEAD", "git writes .git/config: git config"),
    ("git log --output=.git/config", "git writes .git/config: git config"),
    ("git diff --output=.git/hooks/pre-commit", "git writes .git/hooks/pre-commit: a hook"),
])
def test_a_git_option_or_operand_writing_git_config_or_a_hook_asks(
        linked: Path, command: str, said: str) -> None:
    asks_everywhere(linked, command, said, "git")


@pytest.mark.parametrize("command", [
    "git read-tree --index-output=docs/idx HEAD", "git fast-export --export-marks=marks HEAD",
    "git fast-import --export-marks=docs/marks", "git commit-graph write --reachable",
    "git bugreport -o docs", "git merge-file docs/a docs/b docs/c", "git worktree move wt docs/wt",
    "git status", "git diff", "git log --oneline -5", "git commit -m x",
])
def test_the_same_writes_into_the_project_still_run(linked: Path, command: str) -> None:
    runs_under_its_rule(linked, command, "git")


def test_merge_file_printing_its_merge_writes_nothing(linked: Path) -> None:
    command = "git merge-file -p .git/hooks/pre-commit.sample base.cfg other.cfg"
    assert shell_verdict(DENY_RM, command, working_dir=linked).action == "run"
    assert shell_verdict(DENY_RM, command.replace(" -p", ""), working_dir=linked).action == "ask"


def test_fast_import_taking_file_names_from_its_stream_asks(linked: Path) -> None:
    command = "git fast-import --allow-unsafe-features < stream"
    verdict = shell_verdict(DENY_RM, command, working_dir=linked)
    assert verdict.action == "ask" and "fast-import --allow-unsafe-features" in verdict.reason
    assert shell_verdict(DENY_RM, "git fast-import < stream", working_dir=linked).action == "run"


@pytest.mark.parametrize("command", [
    "git clone --config core.hooksPath=hooks src dst", "git clone --conf core.hooksPath=h src d",
    "git clone --config=core.hooksPath=hooks src dst", "git clone -ccore.hooksPath=hooks src d"])
def test_clone_s_config_option_is_read_as_git_s_c(linked: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, working_dir=linked)
    assert verdict.action == "ask" and "makes git run commands" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    "git clone --config core.sshCommand='rm -rf /' src dst",
    "git clone --config=alias.co='!rm -rf x' src dst; cd dst && git co"])
def test_a_command_clone_s_config_sets_is_judged_by_the_rules(linked: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, working_dir=linked).action == "deny"


def test_clone_s_everyday_config_still_runs(linked: Path) -> None:
    command = "git clone --config user.name=me --depth 1 https://x/y dst"
    assert shell_verdict(DENY_RM, command, working_dir=linked).action == "run"
