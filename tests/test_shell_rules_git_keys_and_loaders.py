"""git settings and chain-loaders that ran a command past a deny rule (approval round 7).

Under ``--mode auto --deny 'shell(rm *)'``: ``git -c gpg.ssh.defaultKeyCommand=CMD`` runs CMD
(as ``gpg.ssh.program``) and is read by the rules; ``GIT_EXEC_PATH=DIR`` asks as ``git
--exec-path=DIR`` does; s6's chain-loaders and ``with-contenv`` are unwrapped as daemontools'
are, ``retry`` is a runner.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict

DENIED = [
    "git -c gpg.ssh.defaultKeyCommand='rm x' commit -S",
    "git config gpg.ssh.defaultKeyCommand 'rm x'", "with-contenv rm x",
    "s6-setuidgid u rm x", "s6-softlimit -m 100 rm x", "s6-setlock -t 5 lock rm x",
    "s6-envdir ./env rm x",
]
ASKED = ["GIT_EXEC_PATH=. git filter-branch", "export GIT_EXEC_PATH=.; git log", "retry rm x",
         "retry -t 3 rm x"]
STILL_RUN = ["git -c gpg.ssh.defaultKeyCommand='ssh-add -L' commit -S", "git commit -S -m x",
             "retry make", "with-contenv ls", "s6-setuidgid rm ls", "git log"]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(DENIED, ASKED, STILL_RUN))
def test_a_git_key_or_loader_is_read_by_the_rules(command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_git_exec_path_in_the_environment_says_why() -> None:
    verdict = shell_verdict(DENY_RM, "GIT_EXEC_PATH=. git filter-branch")
    assert "it sets GIT_EXEC_PATH: git runs its commands from a directory" in verdict.reason
