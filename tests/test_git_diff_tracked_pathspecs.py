"""``git diff -- '*.yml'`` is judged by the files git tracks (docs/architecture.md §4).

A worktree ``git diff`` (no revision, no ``--cached``) shows only files its index lists, so
a glob pathspec asks only when a sensitive file the index tracks may match it (a tracked
``.env``), not because ``.config/gh/hosts.yml`` could exist somewhere. Anything else — a
revision, ``--cached``, ``git log -p``, an index not read here, a line that may set
``GIT_INDEX_FILE`` — keeps asking as before.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.git_index import tracked_paths
from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(git*)", "shell(cd*)"))
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git binary here")


def _git(work: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=work,
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "ci.yml").write_text("a: 1\n")
    (work / "src" / "conf.json").write_text("{}\n")
    (work / "Cargo.toml").write_text("[package]\n")
    (work / ".env").write_text("K=1\n")  # untracked: git diff never shows it
    _git(work, "init", "-q")
    _git(work, "add", "ci.yml", "src", "Cargo.toml")
    _git(work, "commit", "-qm", "init")
    return work


def _action(work: Path, command: str) -> str:
    return shell_verdict(RULES, command, "smart_approve", working_dir=work).action


@pytest.mark.parametrize("command", [
    "git diff -- '*.yml'", "git diff -- '*.json'", "git diff -- '*.toml'",
    "git diff --stat -- '*.yml' '*.json'", "git diff '*.yml'", "git diff -w -- '*.toml'",
    "cd src && git diff -- '*.json'", "git diff -- ':(icase)*.YML'",
    "git diff -- '*env'",  # .env is not tracked: git diff never shows it
])
def test_a_worktree_diff_of_globs_matching_no_tracked_secret_runs(repo: Path,
                                                                  command: str) -> None:
    assert _action(repo, command) == "run", command


@pytest.mark.parametrize("command", [
    "git diff HEAD~1 -- '*.yml'", "git diff --cached -- '*.yml'", "git diff --staged '*.yml'",
    "git log -p -- '*.yml'", "git show HEAD -- '*.yml'", "git -C src diff -- '*.yml'",
    "GIT_INDEX_FILE=/tmp/x git diff -- '*.yml'", "git diff --cach -- '*.yml'",
    "git diff --no-index -- '*.yml'", "git diff main -- '*.json'", "git diff -S x -- '*.yml'",
    "git diff HEAD@{1} '*.yml'", "git --git-dir=.git diff -- '*.yml'",
])
def test_what_git_may_read_beyond_the_index_still_asks(repo: Path, command: str) -> None:
    assert _action(repo, command) == "ask", command


def test_a_tracked_secret_matching_the_glob_asks(repo: Path) -> None:
    (repo / "deploy").mkdir()
    (repo / "deploy" / "hosts.yml").write_text("x: 1\n")
    (repo / ".config" / "gh").mkdir(parents=True)
    (repo / ".config" / "gh" / "hosts.yml").write_text("oauth_token: x\n")
    _git(repo, "add", "-f", ".config/gh/hosts.yml", "deploy")
    assert _action(repo, "git diff -- '*.yml'") == "ask"
    assert _action(repo, "git diff -- '*.json'") == "run"


def test_a_tracked_env_asks(repo: Path) -> None:
    _git(repo, "add", "-f", ".env")
    assert _action(repo, "git diff -- '*env'") == "ask"
    assert _action(repo, "git diff -- '.e*'") == "ask"
    assert _action(repo, "git diff -- '*.yml'") == "run"


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_index_is_read_as_git_writes_it(repo: Path, version: str) -> None:
    _git(repo, "update-index", "--index-version", version)
    (repo / "src" / "deep").mkdir()
    (repo / "src" / "deep" / "x.py").write_text("")
    _git(repo, "add", "-N", "src/deep/x.py")  # intent to add: listed too
    listed = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True,
                            check=True).stdout.split()
    assert tracked_paths(repo / ".git") == tuple(listed)


def test_an_index_not_read_here_is_none(repo: Path) -> None:
    (repo / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09" + b"\0" * 30)
    assert tracked_paths(repo / ".git") is None
    (repo / ".git" / "index").unlink()
    assert tracked_paths(repo / ".git") == ()


def test_a_submodule_makes_the_index_unknown(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "hosts.yml").write_text("x: 1\n")
    _git(other, "init", "-q")
    _git(other, "add", ".")
    _git(other, "commit", "-qm", "o")
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "sub")
    assert tracked_paths(repo / ".git") is None
    assert _action(repo, "git diff --submodule=diff -- '*.yml'") == "ask"
