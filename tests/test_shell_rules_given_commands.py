"""Programs that run a command they are given, read for the rules (runx28's tester: all RAN).

Under ``--mode auto --deny 'shell(rm *)'``: socat's ``EXEC:``/``SYSTEM:`` address, ncat's and
nc's ``--sh-exec``/``-e``/``-c``, gpg's ``--photo-viewer``, ``gh alias set --shell`` (a stored
alias, as ``git config alias.x '!rm y'``), cmake's ``-E rm``/``remove_directory`` (read as
``rm``, as ``busybox rm x`` is) are denied; the runners ``pee``, ``nq``, ``xe``, ``rush``,
``systemd-nspawn`` and a library ssh-keygen or openssl loads are asked about.
"""

from __future__ import annotations

import pytest
from rules_support import check_under_deny_rm, deny_rm_cases, shell_verdict

from goosectx.permissions import PermissionRules
from goosectx.rule_offer import suggested_rule

DENIED = [
    'socat - EXEC:"rm x"', 'socat - SYSTEM:"rm x"', "socat TCP-LISTEN:80,fork EXEC:'rm x',pty",
    "socat - exec:rm", 'ncat --sh-exec "rm x"', 'ncat --sh-exec="rm x" host 1',
    'ncat -e "/bin/rm x"', 'ncat -c "rm x" host 1', "nc -e /bin/rm", "nc -lp 4444 -c 'rm x'",
    "cmake -E rm -rf x", "cmake -E remove_directory x", "cmake -E remove -f x",
    "gh alias set --shell x 'rm y'", "gh alias set x '!rm y'", "xe -s 'rm $1' < list",
    "gpg --photo-viewer 'rm x' --list-options show-photos -k",
    'pee "rm x"', "nq rm x",  # round 29: the command they run, read as such
]
ASKED = [
    "xe rm < list", 'rush "rm {}"', "systemd-nspawn rm x",
    "systemd-nspawn -D /srv/c rm x", "gh alias import aliases.yml", "ncat --lua-exec x.lua h 1",
    "openssl engine dynamic -pre SO_PATH:/tmp/x.so", "ssh-keygen -D ./x.so", "ssh-keygen -w x.so -K",
    # round 30: binutils' plugin is a library whose code runs
    "ar --plugin=./x.so t lib.a", "ar --plugin ./x.so rcs lib.a a.o", "nm --plugin=./x.so a.o",
    "ranlib --plugin ./x.so lib.a",
]
STILL_RUN = [
    "socat - TCP:host:80", "nc host 80", "pee cat 'wc -l'", "nq make", "rush 'echo {}'",
    "cmake -E copy a b", "cmake -E echo hi", "gh alias set co 'pr checkout'", "gh pr list",
    "gpg -k", "openssl x509 -in c.pem -noout -text", "ssh-keygen -lf key.pub",
    "ssh-keygen -t ed25519 -C me -f k", "ar rcs lib.a a.o", "ar t lib.a", "nm -C a.o",
    "ranlib lib.a",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(DENIED, ASKED, STILL_RUN))
def test_a_given_command_is_read_by_the_rules(command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize(("command", "program"), [
    ("nq make", "make"), ("socat - EXEC:'make x'", "make"), ("cmake -E rm -rf build", "rm"),
    ("gh alias set --shell x 'make y'", "make"), ("systemd-nspawn make", "make"),
])
def test_a_rule_for_the_runner_alone_does_not_cover_what_it_runs(command: str,
                                                                 program: str) -> None:
    name = command.split()[0]
    verdict = shell_verdict(PermissionRules(allow=(f"shell({name}*)",)), command, "ask")
    assert verdict.action == "ask", command
    assert f"runs {program}, which no allow rule covers" in verdict.reason
    both = PermissionRules(allow=(f"shell({name}*)", f"shell({program}*)"))
    assert shell_verdict(both, command, "ask").action == "run", command


@pytest.mark.parametrize(("command", "offered"), [
    ("git cat-file --batch-all-objects --batch", "shell(git cat-file --batch-all-objects --batch)"),
    ("docker inspect web", "shell(docker inspect web)"), ("socat - TCP:host:80", None),
    ("nc host 80", None), ("git status", "shell(git status*)"), ("docker ps -a", "shell(docker ps*)"),
])
def test_what_prints_every_secret_is_offered_as_it_is(command: str, offered: str | None) -> None:
    assert suggested_rule("shell", {"command": command}) == offered
