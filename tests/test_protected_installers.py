"""An installer told to install into a protected dir (an option or its variable) asks.

Before, under ``--deny 'shell(rm *)'`` in auto mode, ``pip install -t .git x`` (``--target``,
``--prefix``, ``--root``, ``python3 -m pip``) and ``GOBIN=.git/hooks go install
…/pre-commit@latest`` ran, while ``uv pip install --target .git x`` asked: they write the git
directory (a hook). An install anywhere else still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_protected_writes_modelled import DENY
from test_protected_writes_modelled import project as project  # the fixture: .git/hooks, src

from goosectx.permissions import PermissionRules

ALLOW = PermissionRules(allow=("shell(pip*)", "shell(python3*)", "shell(go*)",
                               "shell(cargo*)", "shell(env*)", "shell(export*)"))


@pytest.mark.parametrize("command", [
    "pip install -t .git x", "pip install --target .git/hooks x", "pip install --target=.git x",
    "pip install --prefix .git x", "pip install --root .git x", "pip3 install -t.git/hooks x",
    "python3 -m pip install -t .git x", "pip -q install --pre -t .git x",
    "pip install -r req.txt --target .venv/lib/python3.12/site-packages x",
    "GOBIN=.git/hooks go install example.com/pre-commit@latest",
    "export GOBIN=.git/hooks; go install example.com/pre-commit@latest",
    "env GOBIN=.git/hooks go install example.com/pre-commit@latest",
    "GOPATH=.git go install example.com/x@latest",
    "PIP_TARGET=.git/hooks python3 -m pip install x",
    "CARGO_INSTALL_ROOT=.git cargo install x",
])
def test_an_install_into_a_protected_dir_asks(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert ".git" in verdict.reason or ".venv" in verdict.reason, verdict.reason
    allowed = shell_verdict(ALLOW, command, "smart_approve", working_dir=project)
    assert allowed.action == "ask", allowed.reason


@pytest.mark.parametrize("command", [
    "pip install x", "pip install --pre x", "pip install -r requirements.txt", "pip install -e .",
    "pip install -t lib x", "python3 -m pip install --upgrade pip", "go install ./...",
    "go build ./...", "cargo install --path .",
])
def test_an_everyday_install_still_runs(project: Path, command: str) -> None:
    assert shell_verdict(DENY, command, working_dir=project).action == "run"
    assert shell_verdict(ALLOW, command, "smart_approve", working_dir=project).action == "run"


def test_an_install_variable_naming_a_project_dir_still_runs(project: Path) -> None:
    for command in ("GOBIN=bin go install ./...", "PIP_TARGET=lib pip install x",
                    "env GOBIN=$PWD/bin go install ./..."):
        assert shell_verdict(DENY, command, working_dir=project).action == "run", command
