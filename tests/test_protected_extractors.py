"""Extractors and socat addresses that write into the git directory (approval round 7: RAN).

Under ``--mode auto --deny 'shell(rm *)'`` and under their own allow rule: ``7z x -oDIR``,
``unrar x A DIR/``, ``python3 -m zipfile|tarfile -e A DIR``, socat's ``CREATE:``/``OPEN:``/
``GOPEN:``/``FILE:`` addresses are judged as write targets (a hook or git config is a command
a later git runs); ``pax -r -s`` renames what it extracts, so it may write anywhere.
"""

from __future__ import annotations

import pytest
from rules_support import check_under_deny_rm, deny_rm_cases, shell_verdict

from goosectx.permissions import PermissionRules

ASKED = [
    "7z x x.7z -o.git/hooks", "7z x -o.git x.7z", "7zz x -o.git x.7z", "7za e x.7z -o.git/hooks",
    "unrar x x.rar .git/hooks/", "rar x x.rar .git/", "python3 -m zipfile -e x.zip .git",
    "python3 -m tarfile -e x.tar .git/hooks", "python3 -m tarfile --extract x.tar .git",
    "pax -r -f x.tar -s ',^,.git/,'", "pax -rf x.tar -s ',^,.git/,'",
    "socat - CREATE:.git/hooks/pre-commit,perm=0755", "socat - OPEN:.git/config,creat",
    "socat - GOPEN:.git/HEAD", "socat - FILE:.git/config", "socat - .git/config",
]
STILL_RUN = [
    "7z x x.7z -oout", "7z x x.7z", "7z a x.7z src", "unrar x x.rar out/", "unrar l x.rar",
    "python3 -m zipfile -e x.zip out", "python3 -m zipfile -l x.zip", "pax -r -f x.tar",
    "pax -w -f x.tar -s ',^,x/,' src", "socat - TCP:host:80", "socat - CREATE:out.txt",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases([], ASKED, STILL_RUN))
def test_an_extractor_writing_into_the_git_dir_is_asked_about(command: str,
                                                              expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize(("command", "reason"), [
    ("7z x x.7z -o.git/hooks", "7z writes .git/hooks: a hook is a command a later git runs"),
    ("unrar x x.rar .git/hooks/", "unrar writes .git/hooks"),
    ("python3 -m zipfile -e x.zip .git", "writes into the git directory .git"),
    ("socat - OPEN:.git/config,creat", "socat writes .git/config"),
    ("pax -r -f x.tar -s ',^,.git/,'", "pax -r -s renames the files it extracts"),
])
def test_their_own_allow_rule_does_not_cover_the_git_dir(command: str, reason: str) -> None:
    program = command.split()[0]
    rules = PermissionRules(allow=(f"shell({program} *)",))
    verdict = shell_verdict(rules, command, "smart")
    assert verdict.action == "ask", command
    assert reason in verdict.reason
