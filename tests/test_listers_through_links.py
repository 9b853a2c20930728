"""A lister that goes through dir links (``find -L``, ``ls -LR``, ``tree -l``, ``du -L``) lists
what lies outside the project: under allow rules for it, such a call asks; without the option
that follows links, or with no link leading out, it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(find*)", "shell(ls*)", "shell(tree*)", "shell(du*)"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("key\n")
    work = tmp_path / "proj"
    (work / "docs").mkdir(parents=True)
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text("x = 1\n")
    (work / "docs" / "keys").symlink_to(outside)
    return work


@pytest.mark.parametrize("command", [
    "find -L docs", "find -L . -name '*.py'", "find docs -follow", "ls -LR docs",
    "ls -lR --deref docs", "ls -R -L", "tree -l", "du -L docs",
    "find -L docs -exec ls {} +",
])
def test_a_lister_following_a_link_out_asks_naming_where_it_leads(project: Path,
                                                                  command: str) -> None:
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask"
    assert "outside" in verdict.reason and "keys" in verdict.reason


@pytest.mark.parametrize("command", [
    "find docs", "find . -name '*.py'", "ls -R docs", "ls -L docs", "ls -la docs", "tree",
    "du -sh docs", "find -L src", "ls -LR src", "tree -l src",
])
def test_listing_that_stays_on_this_side_of_the_link_runs(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "run"
