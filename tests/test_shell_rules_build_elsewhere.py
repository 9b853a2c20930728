"""A build tool after a ``cd`` to a dir not known here runs that dir's build file: it asks.

appb29: ``cd "$X" && make ARGS=-oHEAD`` ran in ``--mode auto --deny 'shell(rm *)'`` (and under
``shell(cd*),shell(make*)``): make reads the Makefile of whatever dir ``$X`` names, whose
recipes may run anything. A ``make`` in the project (``make``, ``cd src && make``) still runs
the project's own build file, as before.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict

from goosectx.permissions import PermissionRules

ASKED = [
    'cd "$X" && make ARGS=-oHEAD', "cd - && make test", 'cd "$X"; just build',
    'cd "$(mktemp -d)" && ninja', "cd /tmp && make", 'pushd "$D" && gmake all',
]
STILL_RUN = ["make", "cd src && make", "make -j4 test", 'cd "$X" && ls']


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases((), ASKED, STILL_RUN))
def test_a_build_file_elsewhere_is_asked_about(command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_the_reason_names_the_cd() -> None:
    found = shell_verdict(DENY_RM, 'cd "$X" && make ARGS=-oHEAD')
    assert found.reason.startswith("make runs the build file of a dir the line goes to at "
                                   "run time (cd $X)"), found.reason


def test_an_allow_rule_for_make_does_not_cover_it() -> None:
    rules = PermissionRules(allow=("shell(cd*)", "shell(make*)"))
    assert shell_verdict(rules, 'cd "$X" && make', "smart_approve").action == "ask"
    assert shell_verdict(rules, "cd src && make", "smart_approve").action == "run"
