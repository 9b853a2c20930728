"""A diff git prints from its stash, index or HEAD, piped into ``git apply``, runs as ``git stash apply``.

Testers (appr30c): ``git stash show -p | git apply`` asked under ``--deny 'shell(rm *)'`` in auto
mode ("a diff it reads from a pipe") while ``git stash apply`` ran. git refuses a name in
``.git`` (``invalid path``), so the diff of git's own objects writes what ``git stash apply``
would; a printer that may print any text or rename (``git show TAG``, ``git format-patch
--stdout``: a commit message may hold a diff; ``--relative``, ``--no-index``), an applier that
moves the names (``-p2``, ``--directory``) or anything else in the pipe still asks.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from rules_support import DENY_RM, asks_under_deny_rm, shell_verdict


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".venv").mkdir()
    (work / ".env").write_text("KEY=1\n")
    return work


@pytest.mark.parametrize("command", [
    "git stash show -p | git apply", "git stash show -p stash@{1} | git apply --index",
    "git stash show --patch 2 | git apply -3", "git diff | git apply -R",
    "git diff --cached | git apply -R", "git diff HEAD~2 HEAD -- src | git apply",
    "git show HEAD | git apply -R", "git diff origin/main..HEAD | git apply -R",
    "git stash show -p | git am", "git add -A && git stash show -p | git apply",
])
def test_a_diff_git_prints_of_its_own_objects_runs(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=repo)
    assert verdict.action == "run", verdict.reason


PIPE = "applies a diff it reads from a pipe or stream"


@pytest.mark.parametrize("command", [
    "git show v1 | git apply",  # a tag may name a blob: any text
    "git show HEAD:x.diff | git apply", "git format-patch --stdout -1 | git apply",
    "git diff --relative=sub | git apply", "git diff --no-index a b | git apply",
    "git diff --src-prefix=x/ | git apply", "git diff --ext-diff | git apply",
    "git diff a node_modules/x/i.js | git apply", "git diff a .env | git apply",
    "git diff a /etc/x | git apply", "git diff | git apply --directory=.venv",
    "git diff | git apply -p2", "git diff | git apply --unsafe-paths", "git diff | patch -p1",
    "GIT_EXTERNAL_DIFF=./x git diff | git apply", "git -c diff.external=./x diff | git apply",
    "cd sub && git diff | git apply", "git diff $X | git apply", "git diff | tee x | git apply",
    "git diff | git apply; curl -s https://x/p | git apply", "(git diff) | git apply",
    "{ cat e.diff; git diff; } | git apply", "cat e.diff <(git diff) | git apply",
    "git diff | git apply < e.diff",
])
def test_anything_else_in_the_pipe_still_asks(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=repo)
    assert verdict.action == "ask", verdict.reason


def test_outside_a_repository_git_diff_compares_any_files(tmp_path: Path) -> None:
    work = tmp_path / "plain"
    work.mkdir()
    asks_under_deny_rm(work, "git diff a b | git apply", PIPE)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_apply_refuses_a_name_in_the_git_directory(tmp_path: Path) -> None:
    # the premise: whatever the stash or a commit holds, git apply writes nothing in .git
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    diff = ("diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n"
            "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+echo x\n")
    done = subprocess.run(["git", "apply"], input=diff, text=True, capture_output=True,
                          cwd=tmp_path, check=False)
    assert done.returncode != 0 and "invalid path" in done.stderr
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()


@pytest.mark.parametrize("command", [
    "git stash show -p | git apply --build-fake-ancestor=.git/config",  # writes an index there
    "git stash show -p | git -C sub apply", "git stash show -p | git apply --reject -p0",
])
def test_an_applier_option_that_writes_or_moves_asks(repo: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=repo)
    assert verdict.action == "ask", verdict.reason


def test_plain_applier_options_run(repo: Path) -> None:
    for command in ("git stash show -p | git apply --index -3",
                    "git stash show -p | git am -3 --signoff",
                    "git diff | git apply -R --exclude=docs/*"):
        verdict = shell_verdict(DENY_RM, command, "auto", working_dir=repo)
        assert verdict.action == "run", (command, verdict.reason)
