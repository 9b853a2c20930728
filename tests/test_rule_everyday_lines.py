"""Everyday lines testers expected to run under their rules (appr30); the risky neighbours ask.

``node --test`` asked under ``--deny 'shell(rm *)'`` as "a program it reads from its standard
input" (it runs the project's test files, as ``pytest`` does); under ``shell(git status*)``,
``git -C <the project> status`` asked; under ``shell(make*)``, ``set -o pipefail; make test``
asked for a rule covering ``set -o pipefail`` (bash's own setting: no program, no file); under
``shell(rsync*)``, ``rsync -avz --exclude .git ./ dev:/srv/app/`` asked as a read of ``.git``
(the exclude is a pattern, and rsync never enters ``.git``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, asks_under_deny_rm, shell_verdict

from goosectx.permissions import PermissionRules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".git" / "config").write_text("[core]\n")
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text("x = 1\n")
    return work


def _smart(rule: str, command: str, work: Path) -> tuple[str, str]:
    verdict = shell_verdict(PermissionRules(allow=(rule,)), command, "smart_approve",
                            working_dir=work)
    return verdict.action, verdict.reason


@pytest.mark.parametrize("command", ["node --test", "node --test --watch",
                                     "node --test --test-reporter-destination=report.txt"])
def test_node_test_runs_under_a_deny_rule(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ("node", "standard input"), ("node -", "standard input"),
    ("node --test --test-reporter-destination=.git/hooks/pre-commit", "a hook"),
])
def test_node_reading_its_program_or_writing_a_hook_still_asks(project: Path, command: str,
                                                               said: str) -> None:
    asks_under_deny_rm(project, command, said)


def test_git_dash_c_the_project_is_git_in_it(project: Path) -> None:
    for command in (f"git -C {project} status", f"git -C {project}/ status -s",
                    "git -C . status"):
        assert _smart("shell(git status*)", command, project)[0] == "run", command
    for command in ("git -C /tmp status", f"git -C {project} push", "git -C src status"):
        action, reason = _smart("shell(git status*)", command, project)
        assert action == "ask" and "covered by no allow rule" in reason, (command, reason)


def test_bash_settings_need_no_rule_of_their_own(project: Path) -> None:
    for command in ("set -o pipefail; make test", "set -euo pipefail; make test",
                    "set -e\nmake test", "set +x; make"):
        assert _smart("shell(make*)", command, project) == (
            "run", "allowed by a permission rule: shell(make*)"), command
    for command, named in (("set; make test", "set is covered"),
                           ("set -o vi; make test", "set -o vi is covered"),
                           ("set -- a b; make test", "set -- a b is covered")):
        action, reason = _smart("shell(make*)", command, project)
        assert action == "ask" and named in reason, (command, reason)
    alone = _smart("shell(make*)", "set -e", project)
    assert alone[0] == "ask" and "allowed" not in alone[1], alone  # no rule allowed it
    denied = shell_verdict(PermissionRules(allow=("shell(make*)",), deny=("shell(set*)",)),
                           "set -o pipefail; make test", "auto", working_dir=project)
    assert denied.action == "deny", denied.reason


def test_rsync_excluding_git_runs_under_its_rule(project: Path) -> None:
    for command in ("rsync -avz --exclude .git ./ dev:/srv/app/",
                    "rsync -avz --exclude=.git/ ./ dev:/srv/app/"):
        assert _smart("shell(rsync*)", command, project)[0] == "run", command


@pytest.mark.parametrize(("command", "said"), [
    ("rsync -avz ./ dev:/srv/app/", "./ (holding .git/config) is a sensitive file"),
    ("rsync -avz --include .git --exclude .git ./ dev:/srv/app/", "holding .git/config"),
    ("rsync -avz --exclude '*' ./ dev:/srv/app/", "holding .git/config"),
    ("rsync -avz --exclude .git .git/ dev:/srv/app/", ".git/ (holding .git/config)"),
    ("rsync -avz --exclude .git ./ ../copy", "../copy is outside the project"),
])
def test_rsync_reaching_git_or_outside_still_asks(project: Path, command: str,
                                                  said: str) -> None:
    action, reason = _smart("shell(rsync*)", command, project)
    assert action == "ask" and said in reason, reason


def test_rsync_excluding_git_still_asks_about_a_dot_env(project: Path) -> None:
    (project / ".env").write_text("KEY=1\n")
    action, reason = _smart("shell(rsync*)", "rsync -avz --exclude .git ./ dev:/srv/", project)
    assert action == "ask" and "(holding .env)" in reason, reason
