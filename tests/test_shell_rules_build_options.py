"""A build tool's options naming the dir it runs in or its build file, judged as a ``cd`` is.

test29c HIGH 8: ``make -C "$X"``, ``make -C /tmp/other``, ``make -C/tmp/other``, ``make -f
../other/Makefile``, ``gmake -C``, ``just --justfile /tmp/other/justfile`` and ``just -d DIR``
ran in ``--mode auto --deny 'shell(rm *)'`` although ``cd /tmp/other && make`` asked: each runs
a build file the project does not hold. ``make -C build`` and ``ninja -C build`` still run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

from goosectx.permissions import PermissionRules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "build").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (work / "outlink").symlink_to(tmp_path / "other")
    return work


@pytest.mark.parametrize(("command", "said"), [
    ("make -C {other}", "make runs the build file in {other}, outside the project"),
    ("make -C{other}", "make runs the build file in {other}, outside the project"),
    ("make -sC {other} test", "make runs the build file in {other}, outside the project"),
    ("make --directory={other}", "make runs the build file in {other}, outside the project"),
    ("make --dir {other}", "make runs the build file in {other}, outside the project"),
    ("make -f ../other/Makefile", "make runs the build file ../other/Makefile, outside the "
                                  "project"),
    ("make --file={other}/Makefile", "make runs the build file {other}/Makefile, outside"),
    ("make --makefile ../other/x.mk", "make runs the build file ../other/x.mk, outside"),
    ("make -C outlink", "make runs the build file in outlink, outside the project"),
    ('make -C "$X"', "make runs the build file in $X, named at run time, which the rules "
                     "cannot read"),
    ("gmake -C {other}", "gmake runs the build file in {other}, outside the project"),
    ("bmake -C {other}", "bmake runs the build file in {other}, outside the project"),
    ("just --justfile {other}/justfile", "just runs the build file {other}/justfile, outside"),
    ("just -f {other}/justfile build", "just runs the build file {other}/justfile, outside"),
    ("just -d {other}", "just runs the build file in {other}, outside the project"),
    ("just --working-directory {other} build", "just runs the build file in {other}, outside"),
    ("ninja -C {other}", "ninja runs the build file in {other}, outside the project"),
    ("ninja -f ../other/build.ninja", "ninja runs the build file ../other/build.ninja, outside"),
])
def test_a_build_dir_or_file_elsewhere_asks(project: Path, command: str, said: str) -> None:
    other = str(project.parent / "other")
    command, said = command.format(other=other), said.format(other=other)
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask", (command, verdict.reason)
    assert verdict.reason.startswith(said), verdict.reason
    program = command.split()[0]
    rules = PermissionRules(allow=(f"shell({program}*)",))
    smart = shell_verdict(rules, command, "smart_approve", working_dir=project)
    assert smart.action == "ask", smart.reason
    assert said in smart.reason, smart.reason


@pytest.mark.parametrize("command", [
    "make -C build", "make -Cbuild test", "make -f Makefile -C build", "make -j4 -C build all",
    "make -C $PWD/build", "gmake --directory=build", "just -f justfile test", "just -d build",
    "ninja -C build", "ninja -d explain -C build", "ninja -j 8",
])
def test_a_build_in_the_project_still_runs(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", (command, verdict.reason)
    rules = PermissionRules(allow=(f"shell({command.split()[0]}*)",))
    assert shell_verdict(rules, command, "smart_approve", working_dir=project).action == "run"
