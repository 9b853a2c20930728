"""The dir pip download and pip wheel save into, and the archive ar writes, judged as targets.

test29d: under ``--deny 'shell(rm *)'`` in auto mode (and smart_approve with an allow rule for
the program) ``pip download -d .git/hooks x``, ``pip wheel -w .git/hooks .`` and ``ar rcs
.git/hooks/pre-commit a.o`` ran: the rules never read those as write targets. Everyday forms
still run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_protected_writes_modelled import DENY, HOOK
from test_protected_writes_modelled import project as project  # the fixture: .git/hooks, src

from goosectx.permissions import PermissionRules


def _allowing(command: str) -> PermissionRules:
    return PermissionRules(allow=(f"shell({command.split()[0]}*)",))


PIP_INTO = ["pip download -d .git/hooks x", "pip download --dest .git/hooks x",
            "pip download --dest=.git/hooks x", "pip3 download -d.git/hooks x",
            "pip wheel -w .git/hooks .", "pip wheel --wheel-dir .git/hooks .",
            "pip --log build/pip.log -q download -d .git/hooks x"]


@pytest.mark.parametrize("command", PIP_INTO)
def test_pip_saving_into_the_git_hooks_asks(project: Path, command: str) -> None:
    (project / "build").mkdir()
    for rules, mode in ((DENY, "auto"), (_allowing(command), "smart_approve")):
        verdict = shell_verdict(rules, command, mode, working_dir=project)
        assert verdict.action == "ask", (command, mode, verdict.reason)
        assert f"{command.split()[0]} writes .git/hooks: a hook" in verdict.reason, (
            verdict.reason)


def test_python_m_pip_wheel_into_the_git_hooks_asks(project: Path) -> None:
    verdict = shell_verdict(DENY, "python -m pip wheel -w .git/hooks .", "auto",
                            working_dir=project)
    assert verdict.action == "ask"
    assert "writes .git/hooks" in verdict.reason


@pytest.mark.parametrize("command", [
    "pip download -d dist x", "pip wheel -w dist .", "pip download -r requirements.txt -d dist",
    "pip wheel --wheel-dir=dist -r requirements.txt", "pip install -d"])
def test_pip_saving_into_a_project_dir_still_runs(project: Path, command: str) -> None:
    (project / "dist").mkdir()
    assert shell_verdict(_allowing(command), command, "smart_approve",
                         working_dir=project).action == "run", command
    assert shell_verdict(DENY, command, "auto", working_dir=project).action == "run"


@pytest.mark.parametrize(("command", "path"), [
    (f"ar rcs {HOOK} a.o", HOOK), (f"ar -rcs {HOOK} a.o", HOOK), ("ar r .git/config a.o",
                                                                 ".git/config"),
    ("ar --plugin x.so rcs .git/config a.o", ".git/config"),
    ("ar rb a.o .git/config b.o", ".git/config"), ("ar qN 2 .git/config a.o", ".git/config")])
def test_ar_writing_an_archive_in_the_git_dir_asks(project: Path, command: str,
                                                   path: str) -> None:
    for rules, mode in ((DENY, "auto"), (_allowing(command), "smart_approve")):
        verdict = shell_verdict(rules, command, mode, working_dir=project)
        assert verdict.action == "ask", (command, mode, verdict.reason)
        assert f"ar writes {path}" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    "ar rcs build/liba.a a.o", "ar -rcs build/liba.a a.o", "ar t build/liba.a",
    "ar rb a.o build/liba.a b.o"])
def test_ar_writing_a_project_archive_or_listing_still_runs(project: Path, command: str) -> None:
    (project / "build").mkdir()
    assert shell_verdict(_allowing(command), command, "smart_approve",
                         working_dir=project).action == "run", command
    assert shell_verdict(DENY, command, "auto", working_dir=project).action == "run"
