"""A ``cp`` that makes links (``-l``, ``-s``, ``-al``, ``--link``) from a protected source is ``ln``.

Before, under ``--deny 'shell(rm *)'`` in auto mode, ``cp -al .git g && echo '[alias] zz =
!rm -rf src' >> g/config`` ran (the hard link shares ``.git/config``: ``git zz`` then ran the
alias), as did ``cp -l .git/config cfg`` and ``cp -s $PWD/.git/config cfg``, while ``ln
.git/config cfg`` asked. A copy (no link option) still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_protected_writes_modelled import DENY
from test_protected_writes_modelled import project as project  # the fixture: .git/hooks, src

from goosectx.permissions import PermissionRules
from goosectx.protected_paths import copies_as_links


@pytest.mark.parametrize("command", [
    "cp -al .git g && echo '[alias] zz = !rm -rf src' >> g/config", "cp -l .git/config cfg",
    "cp -s $PWD/.git/config cfg", "cp -rs $PWD/.git g", "cp --link .git/config cfg",
    "cp --symbolic-link .git/hooks h", "cp -r --li .git g", "cp -fl .git/hooks/pre-commit x",
    "cp -S .bak -l .git/config cfg", "cp -l -t g .git/config",
])
def test_a_cp_linking_a_protected_source_asks_as_ln_does(project: Path, command: str) -> None:
    assert shell_verdict(DENY, "ln .git/config cfg", working_dir=project).action == "ask"
    verdict = shell_verdict(DENY, command, working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert "cp links a name to" in verdict.reason
    allowed = shell_verdict(PermissionRules(allow=("shell(cp*)", "shell(echo*)")), command,
                            "smart_approve", working_dir=project)
    assert allowed.action == "ask", allowed.reason


@pytest.mark.parametrize("command", [
    "cp .git/config cfg", "cp -r .git backup", "cp -a src dst", "cp -al src dst",
    "cp -S .l a.py b.py", "cp -t dst -- -l", "cp src/a.py b.py",
])
def test_a_copy_or_a_link_to_a_project_file_still_runs(project: Path, command: str) -> None:
    assert shell_verdict(DENY, command, working_dir=project).action == "run"


def test_the_link_options_are_read_as_getopt_reads_them() -> None:
    assert copies_as_links(["-al", "a", "b"]) and copies_as_links(["-Rs", "a", "b"])
    assert not copies_as_links(["-S", "ls", "a", "b"])  # -S takes the suffix "ls"
    assert not copies_as_links(["-tl", "a"])  # -t takes "l" as its dir
    assert not copies_as_links(["--", "-l", "b"])


def test_ln_into_a_dir_given_by_t_judges_every_source(project: Path) -> None:
    assert shell_verdict(DENY, "ln -t g .git/config", working_dir=project).action == "ask"
    assert shell_verdict(DENY, "ln -s -t bin ../tool", working_dir=project).action == "run"
