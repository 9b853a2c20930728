"""A runner's known options are read, so the question names the command it really starts.

appb29: ``parallel -j 4 pytest`` asked ``parallel runs 4`` under ``shell(parallel*)`` (every
word where a command may start was read as one), and ``shell(parallel*),shell(pytest*)`` did
not run it; ``uvx -p 3.12 ruff`` asked ``uvx runs 3.12``; and ``uvx -p NAME`` /
``uvx --python NAME`` were not judged by uv's version check as ``uv run -p NAME`` is (``bash``
is no Python version: uv runs the program of that name as its interpreter).
"""

from __future__ import annotations

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules


def _verdict(command: str, allow: str) -> tuple[str, str]:
    found = shell_verdict(PermissionRules(allow=tuple(allow.split(","))), command,
                          "smart_approve")
    return found.action, found.read_why or found.reason


NAMED = [
    ("parallel -j 4 pytest", "shell(parallel*)", "parallel runs pytest"),
    ("parallel --jobs 4 --joblog log make {} ::: a b", "shell(parallel*)", "parallel runs make"),
    ("parallel -j4 -k rm {} ::: a", "shell(parallel*)", "parallel runs rm"),
    ("parallel -j 4 ::: 'rm -rf src'", "shell(parallel*)", "parallel runs rm"),
    ("sem -j 2 --id x rm -rf src", "shell(sem*)", "sem runs rm"),
    ("uvx -p 3.12 rm", "shell(uvx*)", "uvx runs rm"),
    ("uvx --python 3.12 --from black black .", "shell(uvx*)", "uvx runs black"),
    ("chrt -f 10 rm x", "shell(chrt*)", "chrt runs rm"),
    ("ionice -c 3 rm x", "shell(ionice*)", "ionice runs rm"),
    ("flock -w 5 /tmp/l rm x", "shell(flock*)", "flock runs rm"),
    ("chronic rm x", "shell(chronic*)", "chronic runs rm"),
    ("xargs -n 1 -P 4 rm", "shell(xargs*)", "xargs runs rm"),
    ("uvx -p bash ruff", "shell(uvx*),shell(ruff*)", "bash is no Python version"),
    ("uvx --python evil ruff", "shell(uvx*),shell(ruff*)", "evil is no Python version"),
    ("uvx --python=./evil ruff", "shell(uvx*),shell(ruff*)",
     "./evil is the program uv runs as its interpreter"),
]


@pytest.mark.parametrize(("command", "allow", "named"), NAMED,
                         ids=[f"{allow}: {command}" for command, allow, _ in NAMED])
def test_the_question_names_what_the_runner_starts(command: str, allow: str,
                                                   named: str) -> None:
    action, why = _verdict(command, allow)
    assert action == "ask"
    assert why.startswith(named), why


COVERED = [
    ("parallel -j 4 pytest {} ::: a b", "shell(parallel*),shell(pytest*)"),
    ("parallel -k -j4 --joblog log.txt gzip ::: a b", "shell(parallel*),shell(gzip*)"),
    ("sem -j 2 --id x make", "shell(sem*),shell(make*)"),
    ("uvx -p 3.12 ruff check", "shell(uvx*),shell(ruff*)"),
    ("uvx --python 3.12 --from ruff ruff check .", "shell(uvx*),shell(ruff*)"),
    ("uvx --python cpython@3.12 ruff", "shell(uvx*),shell(ruff*)"),
]


@pytest.mark.parametrize(("command", "allow"), COVERED,
                         ids=[f"{allow}: {command}" for command, allow in COVERED])
def test_a_runner_and_its_command_both_covered_run(command: str, allow: str) -> None:
    assert _verdict(command, allow)[0] == "run"
