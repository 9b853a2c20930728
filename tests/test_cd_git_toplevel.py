"""``cd "$(git rev-parse --show-toplevel)"`` goes to the work tree's top, a dir the rules know.

test29c: under ``--mode auto --deny 'shell(rm *)'`` an agent's everyday ``cd "$(git rev-parse
--show-toplevel)" && make test`` asked "make runs the build file of a dir the line goes to at
run time": the cd walk read every ``$(…)`` as unknown. The substitution is read as the nearest
dir holding ``.git`` above where the part runs; anything else computed stays unknown.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

DENY = PermissionRules(deny=("shell(rm *)", "shell(git push*)"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


@pytest.mark.parametrize("command", [
    'cd "$(git rev-parse --show-toplevel)" && make test',
    'cd src && cd "$(git rev-parse --show-toplevel)" && make',
    'cd "`git rev-parse --show-toplevel`" && just test',
])
def test_cd_to_the_top_of_the_work_tree_then_build_runs(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=repo)
    assert verdict.action == "run", (command, verdict.reason)


def test_the_top_is_where_the_git_dir_is_so_its_files_are_judged(repo: Path) -> None:
    verdict = shell_verdict(DENY, 'cd "$(git rev-parse --show-toplevel)" && tee .git/config < x',
                            "auto", working_dir=repo / "src")
    assert verdict.action == "ask" and ".git/config" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    'cd "$(dirname "$0")" && make', 'cd "$(git rev-parse --show-toplevel)/sub" && make',
    'GIT_WORK_TREE=/tmp cd "$(git rev-parse --show-toplevel)" && make',
])
def test_other_computed_dirs_still_ask(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=repo)
    assert verdict.action == "ask", (command, verdict.reason)


def test_outside_a_work_tree_the_top_is_unknown(tmp_path: Path) -> None:
    verdict = shell_verdict(DENY, 'cd "$(git rev-parse --show-toplevel)" && make', "auto",
                            working_dir=tmp_path)
    assert verdict.action == "ask", verdict.reason
