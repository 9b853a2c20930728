"""A ``cd`` alone in its and-or list to a dir that is there works: the walk follows it.

Tester (appr30): under ``--deny 'shell(rm *)'`` ``cd build; cd ..; make`` asked "make runs the
build file in /tmp/…, outside the project": the walk took ``cd build;`` as one that may fail,
so ``cd ..`` might have left the project. A ``cd`` to a dir that exists, with nothing before it
in the line that may remove it, does not fail; after ``&&``/``||``, in a brace group or after a
command that may change the tree, the walk stays as careful as before (docs/architecture.md §4).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, asks_under_deny_rm, shell_verdict

from goosectx.shell_dirs import command_dirs

_HOOK = ("diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\n--- a/.git/hooks/pre-commit"
         "\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+rm x\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / "build").mkdir()
    (work / "src").mkdir()
    (work / "Makefile").write_text("all:\n")
    (work / "hook.diff").write_text(_HOOK)
    return work


def _dirs(command: str, work: Path, program: str) -> set[Path]:
    return {d for part, dirs in command_dirs(command, work) if part.words
            and part.words[0].value == program for d in dirs if isinstance(d, Path)}


@pytest.mark.parametrize("command", ["cd build; cd ..; make", "cd build\ncd ..\nmake",
                                     "cd build; cd ../src; cd ..; make test",
                                     "pwd; cd build; cd ..; make"])
def test_back_to_the_project_runs(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason
    assert _dirs(command, project, "make") == {project}


@pytest.mark.parametrize(("command", "where"), [
    ("cd nothere; cd ..; make", "outside the project"),  # cd nothere fails: .. is the parent
    ("mv build b; cd build; cd ..; make", "outside the project"),  # mv may remove build first
    ("cd build; cd ..; cd ..; make", "outside the project"),
    ("cd build || cd ..; make", "outside the project"),
])
def test_a_cd_that_may_fail_or_leave_still_asks(project: Path, command: str,
                                                where: str) -> None:
    asks_under_deny_rm(project, command, where)


def test_after_and_or_in_a_group_the_walk_keeps_both_dirs(project: Path) -> None:
    assert _dirs("cd build && ls; make", project, "make") == {project, project / "build"}
    assert _dirs("{ cd build; ls; }; make", project, "make") == {project, project / "build"}
    assert _dirs("cd build; make", project, "make") == {project / "build"}


@pytest.mark.parametrize("command", ["cd src; git apply ../hook.diff",
                                     "cd src; git am < ../hook.diff"])
def test_a_diff_applied_after_a_cd_still_asks_about_the_hook(project: Path,
                                                              command: str) -> None:
    """git takes the diff's names from the work tree's top: the walk's ``src`` alone still asks."""
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert "/hooks/pre-commit: a hook" in verdict.reason, verdict.reason
