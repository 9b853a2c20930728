"""Runners that set a priority, a CPU set or a limit before the command they run (round 31,
appr31c): ``chrt 5 env GIT_WORK_TREE=.git …`` and ``taskset 0x1 cp x .git/hooks/…`` asked
saying ``5 is not known to goosectx``: every word where a command might start was read as one,
chrt's priority too. A runner whose options are read (``chrt``, ``taskset``, ``numactl``,
``prlimit``, ``cpulimit``; ``ionice`` a wrapper) now has its command read where it starts, so the
reason names what it runs (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_reads_names_deletes import project as project  # the fixture

from goosectx.permissions import PermissionRules

HOOK = "cp writes .git/hooks/pre-commit: a hook is a command a later git runs"


@pytest.mark.parametrize("runner", [
    "chrt 5", "chrt -f 5", "chrt --rr 10", "taskset 0x1", "taskset -c 0,1", "ionice -c 3",
    "numactl --cpunodebind=0", "numactl -N 0 -m 0", "cpulimit -l 50", "cpulimit -l 50 --",
    "prlimit --nofile=1024", "prlimit -n1024 --as=1000000",
])
def test_the_reason_names_the_command_the_runner_runs(project: Path, runner: str) -> None:
    verdict = shell_verdict(DENY_RM, f"{runner} cp x .git/hooks/pre-commit", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert verdict.reason.startswith(HOOK), verdict.reason


@pytest.mark.parametrize("runner", ["chrt 5", "taskset 0x1", "numactl -N 0", "cpulimit -l 50",
                                    "prlimit --nofile=1024"])
def test_git_s_environment_through_a_runner_is_named(project: Path, runner: str) -> None:
    command = f"{runner} env GIT_WORK_TREE=.git git checkout -- hooks/pre-commit"
    reason = shell_verdict(DENY_RM, command, working_dir=project).reason
    assert reason.startswith("it sets GIT_WORK_TREE, as git --work-tree"), reason
    assert "is not known to goosectx" not in reason


@pytest.mark.parametrize("runner", ["chrt 5", "taskset 0x1", "cpulimit -l 50",
                                    "prlimit --nofile=1024", "numactl -N 0"])
def test_a_denied_command_under_a_runner_is_still_stopped(project: Path, runner: str) -> None:
    assert shell_verdict(DENY_RM, f"{runner} rm -rf x", working_dir=project).action != "run"


@pytest.mark.parametrize("command", [
    "taskset 0x1 make", "chrt -f 5 pytest -q", "numactl -N 0 cargo build",
    "cpulimit -l 50 npm test", "prlimit --nofile=4096 pytest", "taskset -p 0x1 1234",
    "prlimit -p 1234", "ionice -c 3 git status",
])
def test_everyday_commands_under_a_runner_still_run(project: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, working_dir=project).action == "run"


def test_the_runner_s_rule_and_the_command_s_rule_cover_it(project: Path) -> None:
    rules = PermissionRules(allow=("shell(cpulimit*)", "shell(pytest*)"))
    assert shell_verdict(rules, "cpulimit -l 50 pytest -q", "smart_approve",
                         working_dir=project).action == "run"
    alone = PermissionRules(allow=("shell(cpulimit*)",))
    assert shell_verdict(alone, "cpulimit -l 50 rm -rf x", "smart_approve",
                         working_dir=project).action == "ask"
