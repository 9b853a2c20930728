"""A coreutils multi-call binary or a prefixed coreutils name runs the utility it names.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran ``coreutils rm f``, ``coreutils
--coreutils-prog=rm f`` (GNU's and uutils' multi-call binaries), ``uu-rm f`` (uutils as
Arch and MacPorts install it) and ``grm f`` (Homebrew's GNU coreutils): only busybox and
toybox were read that way. Other programs keep running.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, action, action_under_deny_rm

from goosectx.permissions import PermissionRules, suggested_rule


@pytest.mark.parametrize("command", [
    "coreutils rm f", "coreutils --coreutils-prog=rm f", "/usr/bin/coreutils --coreutils-prog=rm f",
    "coreutils --coreutils-prog-shebang=rm f", "uu-coreutils rm f", "uu-rm f", "uu-rm -rf d",
    "/usr/bin/uu-rm f", "grm f", "gtimeout 5 rm f", "echo f | gxargs rm", "sudo coreutils rm f",
    "coreutils env rm f", "gfind . -exec rm {} +",
])
def test_a_multi_call_or_prefixed_rm_is_denied(command: str) -> None:
    assert action_under_deny_rm(command) == "deny"


@pytest.mark.parametrize("command", [
    "coreutils ls", "coreutils --help", "coreutils --version", "uu-ls -la", "gls -la",
    "gcc -o x x.c", "gh pr list", "grep rm f", "gdb --version", "gsed -n 1p f", "git rm --cached f",
])
def test_other_programs_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


def test_a_rule_allowing_coreutils_is_never_suggested() -> None:
    """``shell(coreutils*)`` would allow ``coreutils rm -rf ~`` unasked."""
    assert suggested_rule("shell", {"command": "coreutils ls"}) is None
    assert action(PermissionRules(allow=("shell(coreutils ls*)",), deny=DENY_RM.deny),
                  "coreutils ls -la", mode="default") == "run"


@pytest.mark.parametrize("command", [  # fresh22 #02: the dynamic loader runs the program it is given
    "/lib64/ld-linux-x86-64.so.2 /bin/rm f", "/lib/ld-linux-aarch64.so.1 rm f", "ld.so rm f",
    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path /x --preload y.so rm f",
    "/lib64/ld-linux-x86-64.so.2 --argv0 ls --inhibit-cache /bin/rm -f f", "ld64.so.2 rm f",
    "/lib/ld-musl-x86_64.so.1 --library-path=/x -- rm f", "/lib/ld-2.31.so --audit a.so rm f",
    "sudo /lib64/ld-linux-x86-64.so.2 /usr/bin/rm f",
])
def test_the_dynamic_loader_running_rm_is_denied(command: str) -> None:
    assert action_under_deny_rm(command) == "deny"


@pytest.mark.parametrize("command", [
    "/lib64/ld-linux-x86-64.so.2 --list /bin/ls", "ld.so --help", "ld.so --version",
    "/lib64/ld-linux-x86-64.so.2 --library-path /x ./a.out ls",
])  # ./a.out rm: a.out is a program goosectx does not know; test_deny_backstop asks
def test_the_dynamic_loader_running_another_program_runs(command: str) -> None:
    assert action_under_deny_rm(command) == "run"
