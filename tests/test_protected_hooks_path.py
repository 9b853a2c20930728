"""The hooks dir the repository's config names (``core.hooksPath``) is protected as ``.git/hooks``.

Before, with ``core.hooksPath = .githooks`` in ``.git/config`` (husky-style), ``echo x >
.githooks/pre-commit`` ran in auto under ``--deny 'shell(rm *)'``: the next ``git commit`` ran
it. A write elsewhere, and one there with no hooksPath set, still runs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

from goosectx.approval import ApprovalContext, decide


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (tmp_path / ".githooks").mkdir()
    (tmp_path / "src").mkdir()
    return tmp_path


def hooks_path(repo: Path, value: str) -> None:
    """``git config core.hooksPath VALUE`` (the file git writes; git itself in one test)."""
    config = repo / ".git" / "config"
    config.write_text(f"[core]\n\tbare = false\n\thooksPath = {value}\n")


@pytest.mark.parametrize("value", [".githooks", "./.githooks/", '".githooks" # husky', "{repo}/.githooks"])
@pytest.mark.parametrize("command", ["echo x > .githooks/pre-commit",
                                     "cp run.sh .githooks/pre-push", "cd src && tee ../.githooks/x"])
def test_a_write_into_the_configured_hooks_dir_asks(repo: Path, value: str,
                                                     command: str) -> None:
    hooks_path(repo, value.format(repo=repo))
    verdict = shell_verdict(DENY_RM, command, working_dir=repo)
    assert verdict.action == "ask", verdict.reason
    assert "core.hooksPath" in verdict.reason
    edit = decide(ApprovalContext(mode="auto", tool_name="text_editor", read_only=False,
                                  working_dir=repo, rules=DENY_RM, arguments={
                                      "command": "write", "path": ".githooks/pre-commit"}))
    assert edit.action == "ask", edit.reason


def test_a_changed_hooks_path_is_read_again(repo: Path) -> None:
    hooks_path(repo, ".githooks")
    assert shell_verdict(DENY_RM, "echo x > hooks2/pre-commit", working_dir=repo).action == "run"
    hooks_path(repo, "hooks2")
    assert shell_verdict(DENY_RM, "echo x > hooks2/pre-commit", working_dir=repo).action == "ask"


def test_writes_elsewhere_and_without_a_hooks_path_still_run(repo: Path) -> None:
    assert shell_verdict(DENY_RM, "echo x > .githooks/pre-commit",
                         working_dir=repo).action == "run"
    hooks_path(repo, ".githooks")
    for command in ("echo x > src/a.py", "echo x > githooks.md", "tee .githooks.txt"):
        assert shell_verdict(DENY_RM, command, working_dir=repo).action == "run", command


def test_a_hooks_path_of_the_project_itself_protects_only_hook_names(repo: Path) -> None:
    hooks_path(repo, ".")
    assert shell_verdict(DENY_RM, "echo x > pre-commit", working_dir=repo).action == "ask"
    assert shell_verdict(DENY_RM, "echo x > src/a.py", working_dir=repo).action == "run"
    assert shell_verdict(DENY_RM, "echo x > notes.md", working_dir=repo).action == "run"


def test_the_value_git_config_writes_is_read(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.hooksPath", "my hooks"],
                   check=True)
    verdict = shell_verdict(DENY_RM, "echo x > 'my hooks/pre-commit'", working_dir=tmp_path)
    assert verdict.action == "ask" and "core.hooksPath" in verdict.reason, verdict.reason
