"""A recursive read naming a link to a dir reads what the link leads to (docs/architecture.md §4).

``grep -r KEY lib`` with ``lib → .git`` read ``.git/config`` under ``shell(grep*)``: the walk
judged the names below ``lib`` (``lib/config``), not below where it leads. Found by fp27 while
checking rg's globs; ``rg --hidden KEY lib`` and ``grep -R --include='*' KEY lib`` likewise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(grep*)", "shell(rg*)", "shell(cat*)", "shell(find*)",
                               "shell(cd*)", "shell(xargs*)"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src" / "deep").mkdir(parents=True)
    (work / "src" / "a.py").write_text("KEY = 1\n")
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text('[remote "o"]\nurl = https://ghp_x@github.com\n')
    (work / ".git" / "hooks").mkdir()
    os.symlink(".git", work / "lib")
    os.symlink("../.git/hooks", work / "src" / "h")
    os.symlink("src", work / "code")
    return work


@pytest.mark.parametrize("command", [
    "grep -r KEY lib", "grep -R KEY src lib", "grep -r KEY lib/", "rg --hidden KEY lib",
    "grep -R --include='*' KEY lib", "rg --hidden -g '*' KEY lib", "grep -r KEY lib/.",
    "find lib -exec cat {} +", "cd src && grep -r KEY ../lib",
])
def test_a_link_operand_to_a_secret_dir_asks(project: Path, command: str) -> None:
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask", command
    assert ".git/config" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    "grep -r KEY code", "grep -r KEY src/h", "rg KEY code", "grep -r KEY src",
])
def test_a_link_operand_to_a_plain_dir_runs(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "run"


@pytest.mark.parametrize("command", [
    "grep -R --include=config KEY src", "grep -R --include='*' KEY src",
    "grep -R --include='c*' -n KEY .",
])
def test_a_dir_link_below_a_filtered_walk_counts_by_where_it_leads(project: Path,
                                                                    command: str) -> None:
    """``src/g → ../.git`` below: with a filter set, ``grep -R`` still follows the link and
    reads ``.git/config`` (fp27's note, recursive_reads.py; grep -r does not follow it)."""
    os.symlink("../.git", project / "src" / "g")
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask", command


def test_a_filtered_walk_that_does_not_follow_links_runs(project: Path) -> None:
    os.symlink("../.git", project / "src" / "g")
    for command in ("grep -r --include=config KEY src",
                    "grep -R --include=config --exclude-dir=g KEY src"):
        assert shell_verdict(RULES, command, "smart_approve",
                             working_dir=project).action == "run", command
