"""An allow rule for a wrapper covers the wrapper only: the command it runs needs its own rule.

``shell(find*)`` let ``find src -exec rm -rf {} +`` delete the project's sources unasked,
``shell(env*)`` let ``env sh -c "rm -rf src"`` and ``env python3 -c …`` run, and
``shell(timeout*)`` / ``shell(nice*)`` any program after them. Now the command a wrapper
(``env``, ``timeout``, ``nice``, ``xargs``, ``sudo`` …), ``find -exec``, ``fd -x``, ``rg --pre``
or a shell's ``-c`` string starts is matched against the allow rules as if it were a part of the
line of its own; when none covers it the question names it (docs/architecture.md §4).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("print(1)\n")
    return work


def _verdict(work: Path, command: str, rules: str) -> ApprovalVerdict:
    return shell_verdict(PermissionRules(allow=tuple(rules.split(","))), command,
                         "smart_approve", working_dir=work)


ASKED = [
    ("find src -exec rm -rf {} +", "shell(find*)", "find -exec runs rm"),
    ("find src -maxdepth 0 -exec python3 -c 'print(open(\".e\"+\"nv\").read())' \\;",
     "shell(find*)", "find -exec runs python3"),
    ("find . -name '*.pyc' -delete -o -execdir rm {} \\;", "shell(find*)", "find -execdir runs rm"),
    ("find . -ok rm {} \\;", "shell(find*)", "find -ok runs rm"),
    ("find . -exec wc -l {} + -exec rm {} +", "shell(find*),shell(wc*)", "find -exec runs rm"),
    ("find . -exec env rm {} +", "shell(find*),shell(env*)", "env runs rm"),
    ('env sh -c "rm -rf src"', "shell(env*)", "env runs sh"),
    ("env rm -f Makefile", "shell(env*)", "env runs rm"),
    ("env -i PATH=/bin python3 -c 'import os'", "shell(env*)", "env runs python3"),
    ("env -S 'rm -f Makefile'", "shell(env*)", "env runs rm"),
    ("find src -name '*.py' | xargs python3 -c 'print(1)'", "shell(find*),shell(xargs*)",
     "xargs runs python3"),
    ("find src | xargs perl -e 1", "shell(find*),shell(xargs*)", "xargs runs perl"),
    ("find src | xargs node -e 1", "shell(find*),shell(xargs*)", "xargs runs node"),
    ("find src | xargs tee out", "shell(find*),shell(xargs*)", "xargs runs tee"),
    ("find src | xargs -0 -n 1 rm", "shell(find*),shell(xargs*)", "xargs runs rm"),
    ("timeout 5 rm -rf src", "shell(timeout*)", "timeout runs rm"),
    ("timeout -s KILL 5 rm -rf src", "shell(timeout*)", "timeout runs rm"),
    ("nice rm -rf src", "shell(nice*)", "nice runs rm"),
    ("nice -n 10 rm -rf src", "shell(nice*)", "nice runs rm"),
    ("nohup rm -rf src", "shell(nohup*)", "nohup runs rm"),
    ("sudo rm -rf src", "shell(sudo*)", "sudo runs rm"),
    ("timeout 60 nice rm -rf src", "shell(timeout*),shell(nice*)", "nice runs rm"),
    ("fd . -x rm", "shell(fd*)", "fd -x runs rm"),
    ("rg --pre rm x", "shell(rg*)", "rg --pre runs rm"),
    ("bash -c 'rm -rf src'", "shell(bash*)", "bash runs rm"),
    ("timeout 60 pytest -q; rm -rf src", "shell(timeout*),shell(pytest*)", "rm"),
    ("watch -n1 rm -rf src", "shell(watch*)", "watch runs rm"),
    ("git -c alias.x='!rm -rf src' x", "shell(git*)", "git runs rm"),
    ("tar -xf x.tar --to-command='rm victim'", "shell(tar*)", "tar runs rm"),
]


@pytest.mark.parametrize(("command", "rules", "named"), ASKED,
                         ids=[f"{rules}: {command}" for command, rules, _ in ASKED])
def test_what_a_wrapper_runs_needs_its_own_allow_rule(work: Path, command: str, rules: str,
                                                      named: str) -> None:
    verdict = _verdict(work, command, rules)
    assert verdict.action == "ask", (command, verdict.reason)
    assert named in verdict.reason, verdict.reason


def test_the_question_names_the_started_program_and_the_rule(work: Path) -> None:
    reason = _verdict(work, "find src -exec rm -rf {} +", "shell(find*)").reason
    assert "find -exec runs rm, which no allow rule covers" in reason, reason
    assert "shell(find*)" in reason, reason


EVERYDAY = [
    ("find . -name '*.py' -exec wc -l {} +", "shell(find*),shell(wc*)"),
    ("find . -name '*.py' -exec wc -l {} \\;", "shell(find*),shell(wc*)"),
    ("find . -name '*.py' | xargs grep -n TODO", "shell(find*),shell(xargs*),shell(grep*)"),
    ("find . -name '*.py' -print0 | xargs -0 wc -l", "shell(find*),shell(xargs*),shell(wc*)"),
    ("find . -name '*.py'", "shell(find*)"),
    ("find . | xargs", "shell(find*),shell(xargs*)"),
    ("env", "shell(env*)"),
    ("env | sort", "shell(env*),shell(sort*)"),
    ("env -0", "shell(env*)"),
    ("printenv", "shell(printenv*)"),
    ("timeout 60 pytest -q", "shell(timeout*),shell(pytest*)"),
    ("nice -n 5 make test", "shell(nice*),shell(make*)"),
    ("env FOO=1 pytest -q", "shell(env*),shell(pytest*)"),
    ("fd -e py -x wc -l", "shell(fd*),shell(wc*)"),
    ("command -v python3", "shell(command*)"),
    ("git status", "shell(git status*)"),
    ("watch -n1 git status", "shell(watch*),shell(git status*)"),
    ("git -c color.ui=always log", "shell(git*)"),
]


@pytest.mark.parametrize(("command", "rules"), EVERYDAY,
                         ids=[f"{rules}: {command}" for command, rules in EVERYDAY])
def test_everyday_lines_run_with_the_rules_a_user_writes(work: Path, command: str,
                                                         rules: str) -> None:
    verdict = _verdict(work, command, rules)
    assert verdict.action == "run", (command, verdict.reason)


def test_the_started_commands_own_checks_still_ask(work: Path) -> None:
    """``xargs sed -i`` under ``shell(sed*)``: sed's own check (it writes in place) asks."""
    verdict = _verdict(work, "find src | xargs sed -i s/a/b/",
                       "shell(find*),shell(xargs*),shell(sed -n*)")
    assert verdict.action == "ask", verdict.reason
    verdict = _verdict(work, "find src -exec cat {} +", "shell(find*),shell(cat*)")
    assert verdict.action == "run", verdict.reason


def test_auto_mode_still_runs_what_no_rule_covers(work: Path) -> None:
    verdict = shell_verdict(PermissionRules(allow=("shell(find*)",)),
                            "find src -exec rm -rf {} +", "auto", working_dir=work)
    assert verdict.action == "run", verdict.reason


def test_a_deny_rule_still_denies_the_started_command(work: Path) -> None:
    rules = PermissionRules(allow=("shell(find*)", "shell(rm*)"), deny=("shell(rm *)",))
    verdict = shell_verdict(rules, "find src -exec rm -rf {} +", "smart_approve",
                            working_dir=work)
    assert verdict.action == "deny", verdict.reason


def test_a_command_variable_env_sets_for_the_program_it_runs_needs_a_rule(work: Path) -> None:
    """``env GIT_SSH_COMMAND=rm git fetch``: git runs ``rm``; ``export`` only stores it."""
    verdict = _verdict(work, "env GIT_SSH_COMMAND='rm -rf src' git fetch",
                       "shell(env*),shell(git*)")
    assert verdict.action == "ask", verdict.reason
    assert _verdict(work, "export EDITOR=nano", "shell(export*)").action == "run"


@pytest.mark.parametrize(("command", "expected"), [
    ("timeout --signal KILL 5 pytest -q", "run"), ("timeout --foreground 60 pytest -q", "run"),
    ("timeout --sig KILL 5 pytest", "run"), ("timeout --foreground 60 rm -rf src", "ask"),
    ("timeout --kill-after 3 60 rm -rf src", "ask"), ("env --chdir src pytest", "run"),
    ("env --chdir src rm -rf x", "ask"), ("find src -print0 | xargs --null wc -l", "run"),
    ("find src | xargs --max-args 1 rm", "ask"),
])
def test_a_wrappers_known_long_options_are_read_one_way(work: Path, command: str,
                                                        expected: str) -> None:
    """``timeout --foreground 60 pytest -q`` runs ``pytest``, not ``-q`` after a duration."""
    rules = "shell(timeout*),shell(pytest*),shell(env*),shell(find*),shell(xargs*),shell(wc*)"
    verdict = _verdict(work, command, rules)
    assert verdict.action == expected, (command, verdict.reason)


@pytest.mark.parametrize("command", [
    "env -C .git cat config", "sudo -D .git cat config", "env --chdir=.git cat config",
    "env -iC .git cat config",
])
def test_a_wrappers_chdir_moves_where_its_command_reads(work: Path, command: str) -> None:
    """paths27's note: ``env -C .git cat config`` printed ``.git/config`` under
    ``shell(env*)``, ``shell(cat*)`` — the sensitive-file check judged ``config`` in the
    project's dir."""
    (work / ".git").mkdir(exist_ok=True)
    (work / ".git" / "config").write_text("[remote]\n")
    verdict = _verdict(work, command, "shell(env*),shell(sudo*),shell(cat*)")
    assert verdict.action == "ask", verdict.reason
    assert "sensitive file" in verdict.reason, verdict.reason


def test_a_wrappers_chdir_into_the_project_runs(work: Path) -> None:
    (work / "src").mkdir(exist_ok=True)
    (work / "src" / "a.py").write_text("x = 1\n")
    verdict = _verdict(work, "env -C src cat a.py", "shell(env*),shell(cat*)")
    assert verdict.action == "run", verdict.reason
