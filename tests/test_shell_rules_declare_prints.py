"""``declare -p`` prints: its operands are names, whatever they look like, and set nothing.

appb29: ``declare -p -n r=PS4`` and ``declare -p PS4='$(rm x)'`` asked under a shell deny rule
(read as a nameref to ``PS4`` and as an assignment of a prompt) though bash only prints
(``declare: PS4=…: not found``); ``typeset -f``/``-F`` print functions likewise. A leading
assignment (``PS4='…' declare -p PS4``) still sets the prompt, and ``export -p NAME=…`` is not
a print.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict

PRINTS = [
    "declare -p -n r=PS4", "declare -p PS4='$(rm x)'", "typeset -p PS1='$(rm x)'",
    "declare -pn r=PS4", "typeset -f PS4='$(rm x)'", "declare -F 'BASH_CMDS[ls]=/bin/rm'",
    "declare -p 'BASH_CMDS[ls]=/bin/rm'", "builtin declare -p PS4='$(rm x)'",
]
SETS = [
    "declare -n r=PS4", "declare PS4='$(rm x)'", "PS4='$(rm x)' declare -p PS4",
    "declare 'BASH_CMDS[ls]=/bin/rm'", "export -p PS4='$(rm x)'",
    "declare -p x; PS4='$(rm x)'", "local -n r=PS4",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases((), SETS, PRINTS))
def test_a_printing_declaration_sets_nothing(command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_the_nameref_is_still_named_when_it_is_set() -> None:
    found = shell_verdict(DENY_RM, "declare -n r=PS4")
    assert "PS4" in found.reason and found.action == "ask"
