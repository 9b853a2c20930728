"""A virtualenv made in the git directory is a write there, as ``tee .git/x`` is.

Before, under ``--deny 'shell(rm *)'`` in auto mode and under ``shell(*)`` in smart_approve,
``python3 -m venv .git`` and ``virtualenv .git/hooks`` ran: they write ``.git/bin``,
``.git/pyvenv.cfg`` … into the repository (``.git/hooks/bin/…`` too). A venv anywhere else
— ``.venv``, ``venv``, ``build/env`` — is the command's own to make and still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_protected_writes_modelled import DENY
from test_protected_writes_modelled import project as project  # the fixture: .git/hooks, src

from goosectx.permissions import PermissionRules


@pytest.mark.parametrize("command", [
    "python3 -m venv .git", "python -m venv --clear .git", "python3.12 -m venv .git/hooks",
    "virtualenv .git", "virtualenv -p python3 .git/hooks", "cd .git && python3 -m venv x",
    "uv run python -m venv .git",
])
def test_a_venv_in_the_git_dir_asks(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert ".git" in verdict.reason, verdict.reason
    allowed = shell_verdict(PermissionRules(allow=("shell(*)",)), command, "smart_approve",
                            working_dir=project)
    assert allowed.action == "ask", allowed.reason


@pytest.mark.parametrize("command", [
    "python3 -m venv .venv", "python -m venv venv", "python3 -m venv --upgrade-deps build/env",
    "virtualenv .venv", "virtualenv -p python3 .venv", "python3 -m venv --prompt git .venv",
])
def test_a_venv_elsewhere_still_runs(project: Path, command: str) -> None:
    assert shell_verdict(DENY, command, "auto", working_dir=project).action == "run"
    assert shell_verdict(PermissionRules(allow=("shell(*)",)), command, "smart_approve",
                         working_dir=project).action == "run"
