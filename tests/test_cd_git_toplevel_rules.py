"""Under allow rules, ``cd "$(git rev-parse --show-toplevel)"`` is judged by the top it goes to.

Before, under ``shell(git*)``, ``shell(cd*)``, ``shell(make*)`` in smart_approve, ``cd "$(git
rev-parse --show-toplevel)" && make`` asked "$(…) may be outside the project" at the project's
own top. From a subdir (the top above the project) or outside a repository it still asks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(git*)", "shell(cd*)", "shell(make*)", "shell(cat*)"))
LINES = ['cd "$(git rev-parse --show-toplevel)" && make',
         "cd \"$(git rev-parse --show-toplevel)\" && make test",
         'cd "$(git rev-parse --show-toplevel)" && cat README.md']


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    (tmp_path / "repo" / "sub").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path / "repo"


@pytest.mark.parametrize("line", LINES)
def test_a_cd_to_the_project_top_runs(repo: Path, line: str) -> None:
    verdict = shell_verdict(RULES, line, "smart_approve", working_dir=repo)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize("line", LINES)
def test_a_cd_to_a_top_above_the_project_or_none_asks(repo: Path, line: str) -> None:
    for work in (repo / "sub", repo.parent / "outside"):
        verdict = shell_verdict(RULES, line, "smart_approve", working_dir=work)
        assert verdict.action == "ask", (work, verdict.reason)


def test_a_sensitive_file_at_the_top_still_asks(repo: Path) -> None:
    line = 'cd "$(git rev-parse --show-toplevel)" && cat .env'
    assert shell_verdict(RULES, line, "smart_approve", working_dir=repo).action == "ask"
