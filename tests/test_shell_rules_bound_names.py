"""Every way to set BASH_CMDS / BASH_ALIASES, and a nameref to them or a prompt, is asked about.

fresh21 #17 and review21 06/07: under ``--mode auto --deny 'shell(rm *)'`` only the plain
``BASH_CMDS[ls]=/bin/rm`` was asked about; ``read 'BASH_CMDS[ls]'``, ``printf -v``,
``mapfile`` and a nameref (``typeset -n r=BASH_CMDS; r=([ls]=/bin/rm); ls y``, ``declare -n
PS4=R``) bound ``ls`` to ``/bin/rm`` or set a prompt and ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import action_under_deny_rm as verdict

BINDS = [
    "read -r 'BASH_CMDS[ls]' <<< /bin/rm; ls f", "read BASH_ALIASES[ls] <<< 'rm f'",
    "printf -v 'BASH_CMDS[ls]' /bin/rm; ls f", "printf -vBASH_CMDS[ls] /bin/rm; ls f",
    "mapfile BASH_CMDS < list; ls f", "readarray -t BASH_ALIASES < list",
    "read -a BASH_CMDS <<< x", "declare BASH_CMDS[ls]=/bin/rm; ls f",
    "typeset -n r=BASH_CMDS; r=([ls]=/bin/rm); ls y", "declare -n r=BASH_CMDS; r[ls]=/bin/rm; ls y",
    "declare -n r='BASH_CMDS[ls]'; r=/bin/rm; ls y", "local -n r=BASH_ALIASES",
    "declare -n r=PROMPT_COMMAND; r='rm y'", "declare -gn r=BASH_ENV",
    "declare -n PS4=R; R='$(rm -rf y)'; set -x; :", "typeset -n PS4=R",
    "f() { local -n PS4=R; set -x; :; }; R='$(rm -rf y)'; f",
    "declare -n r; r=BASH_CMDS; r[ls]=/bin/rm; ls y",
]


@pytest.mark.parametrize("command", BINDS)
def test_setting_bash_cmds_any_way_or_a_nameref_to_it_is_asked(command: str) -> None:
    assert verdict(command) == "ask", command


EVERYDAY = ["read -r line < f", "printf -v out '%s' x", "mapfile -t lines < f",
            "declare -n ref=config", "local -n arr=items", "declare -A BASH_CMDS_SEEN=()",
            "unset BASH_CMDS", "read -r a b <<< 'x y'", "declare -n PS3=p", "declare -n r=PS3"]


@pytest.mark.parametrize("command", EVERYDAY)
def test_other_names_still_run(command: str) -> None:
    assert verdict(command) == "run", command


def test_run_keeps_the_file_bash_cmds_set_by_read_or_printf_would_remove(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["read -r 'BASH_CMDS[ls]' <<< /bin/rm; ls v1",
                "printf -v 'BASH_CMDS[ls]' /bin/rm; ls v2",
                "typeset -n r=BASH_CMDS; r=([ls]=/bin/rm); ls v3"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)


@pytest.mark.parametrize("command", [": ${BASH_CMDS[ls]:=/bin/rm}; ls f",
                                     ": ${BASH_CMDS[ls]=/bin/rm}; ls f",
                                     "echo \"${BASH_ALIASES[ls]:=rm f}\""])
def test_bash_cmds_set_in_an_expansion_is_asked(command: str) -> None:
    assert verdict(command) == "ask", command
