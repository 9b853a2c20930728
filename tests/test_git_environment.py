"""git's environment is judged as the options and redirections it mirrors.

approval round 11 HIGH 2: ``GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit`` (also
with ``export``) ran while ``git --work-tree=.git …`` asked; ``GIT_COMMON_DIR=/tmp/evil git
status`` ran while ``GIT_DIR=`` asked (its config's core.fsmonitor ran); ``GIT_TRACE=$PWD/.git/
config git status`` appended to the config and ``GIT_TRACE=<site-packages>/zz.pth`` planted a
.pth file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_protected_line_variables import PTH, venv_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a virtualenv."""
    return venv_project(tmp_path)


def _asked(work: Path, command: str) -> str:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert verdict.action == "ask", (command, verdict.reason)
    return verdict.reason


@pytest.mark.parametrize("command", [
    "GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit",
    "export GIT_WORK_TREE=.git; git checkout -f -- hooks/pre-commit",
    "env GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit",
    "env -u X GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit",
    "sudo -u root GIT_WORK_TREE=.git git checkout -- hooks/pre-commit",
])
def test_a_work_tree_in_the_git_directory_asks_as_the_option_does(project: Path,
                                                                   command: str) -> None:
    assert _asked(project, command).startswith(
        "it sets GIT_WORK_TREE, as git --work-tree: git writes into the git directory .git")


@pytest.mark.parametrize("command", [
    "GIT_COMMON_DIR=/tmp/evil git status", "export GIT_COMMON_DIR=/tmp/evil; git status"])
def test_another_common_dir_asks_as_another_git_dir_does(project: Path, command: str) -> None:
    assert _asked(project, command).startswith(
        "it sets GIT_COMMON_DIR, which names a repository whose config git reads")


@pytest.mark.parametrize(("command", "said"), [
    ("GIT_TRACE=$PWD/.git/config git status", "it sets GIT_TRACE, whose trace git appends to "
                                              "$PWD/.git/config: git writes $PWD/.git/config"),
    ("GIT_TRACE=.git/config git status", "it sets GIT_TRACE, whose trace"),
    ("export GIT_TRACE_PACKET=$PWD/.git/config; git fetch", "it sets GIT_TRACE_PACKET"),
    ("GIT_TRACE2_EVENT=.git/hooks/pre-commit git status", "it sets GIT_TRACE2_EVENT"),
    (f"GIT_TRACE_BARE=1 GIT_TRACE=$PWD/{PTH}/zz.pth git status", "it sets GIT_TRACE, whose"),
])
def test_a_trace_file_where_a_later_command_runs_asks(project: Path, command: str,
                                                      said: str) -> None:
    assert _asked(project, command).startswith(said)


def test_the_absolute_path_of_the_project_s_site_packages_asks(project: Path) -> None:
    assert "virtualenv" in _asked(project, f"GIT_TRACE={project}/{PTH}/zz.pth git status")


@pytest.mark.parametrize("command", [
    "GIT_TRACE=1 git status", "GIT_TRACE=2 git log", "GIT_TRACE=true git status",
    "GIT_TRACE=/tmp/git-trace.log git status", "GIT_WORK_TREE=. git status",
    "GIT_COMMON_DIR=.git git status", "git status",
])
def test_harmless_git_environments_still_run(project: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"


@pytest.mark.parametrize(("command", "expected"), [
    ("GIT_CONFIG_GLOBAL=/tmp/c git status", "ask"), ("GIT_CONFIG_SYSTEM=/tmp/c git status", "ask"),
    ("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='h'\" git status", "ask"),
    ("GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='rm -rf src'\" git status", "deny"),
    ("GIT_EXEC_PATH=/tmp/x git status", "ask"), ("GIT_SSH_COMMAND='rm -rf src' git fetch", "deny"),
    ("GIT_EDITOR='rm -rf src' git commit", "deny"), ("GIT_PAGER='rm -rf src' git log", "deny"),
    ("export GIT_EXTERNAL_DIFF='rm -rf src'; git diff", "deny"),
])
def test_variables_naming_config_or_commands_ask_or_deny(project: Path, command: str,
                                                         expected: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == expected
