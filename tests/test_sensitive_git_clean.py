"""``git clean`` reaches a sensitive file only where it may remove it.

Before, with ``.env`` in ``.gitignore``, ``git clean -n`` and ``git clean -fd`` under
``shell(git*)`` in smart_approve asked ". (holding .env) is a sensitive file": ``-n`` is a dry
run, and without ``-x`` git leaves ignored files alone. ``-x``/``-X``, and a ``.env`` no rule
ignores, still ask.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

GIT = PermissionRules(allow=("shell(git*)",))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".env").write_text("TOKEN=x\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    return tmp_path


def verdict(repo: Path, command: str) -> str:
    found = shell_verdict(GIT, command, "smart_approve", working_dir=repo)
    assert found.action == "run" or ".env" in found.reason, found.reason
    return found.action


@pytest.mark.parametrize("ignore", [".env\n", "*.env\n.env*\n", "/.env\n", "secrets/\n.env\n"])
def test_git_clean_without_x_leaves_an_ignored_env_alone(repo: Path, ignore: str) -> None:
    (repo / ".gitignore").write_text(ignore)
    if ignore.startswith("/"):  # a rule with a '/' is not read: still asked about
        assert verdict(repo, "git clean -fd") == "ask"
        return
    for command in ("git clean -fd", "git clean -f", "git clean -fd src"):
        assert verdict(repo, command) == "run", command
    for command in ("git clean -fdx", "git clean -fX", "git clean -f -x -d"):
        assert verdict(repo, command) == "ask", command


def test_a_dry_run_reaches_nothing(repo: Path) -> None:
    for command in ("git clean -n", "git clean -nfdx", "git clean --dry-run -x",
                    "git clean -fd --dry"):
        assert verdict(repo, command) == "run", command


@pytest.mark.parametrize("ignore", ["", "*.py\n", ".env\n!.env\n", "*\n!.e*\n"])
def test_an_env_no_rule_ignores_is_reached(repo: Path, ignore: str) -> None:
    (repo / ".gitignore").write_text(ignore)
    assert verdict(repo, "git clean -fd") == "ask"


def test_the_info_exclude_file_counts_and_gitignore_overrides_it(repo: Path) -> None:
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(".env\n")
    assert verdict(repo, "git clean -fd") == "run"
    (repo / ".gitignore").write_text("!.env\n")
    assert verdict(repo, "git clean -fd") == "ask"
