"""Write targets bash expands or a link leads through (round 28, gitw28): ``printf … >>
.gi[t]/config``, ``tee -a .{git,x}/config``, ``cp f .gi[t]/config``, ``mv x .g*t/config`` and
``tee -a hooksdir/../config`` (``hooksdir`` → ``.git/hooks``) ran in auto mode under a deny rule
and under the program's allow rule, as ``tee .git/config`` does not: a glob or brace in a write
target is expanded as the read checks expand it, and a ``..`` is also taken after the links
before it are followed (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict

from goosectx.permissions import PermissionRules


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A project with a git dir, a venv, node_modules and links into the git dir."""
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    for name in ("config", "HEAD", "index"):
        (work / ".git" / name).write_text("x\n")
    (work / ".git" / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    (work / ".venv" / "lib").mkdir(parents=True)
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (work / "node_modules" / "x").mkdir(parents=True)
    (work / "docs").mkdir()
    (work / "notes.txt").write_text("n\n")
    (work / "pre-commit").write_text("#!/bin/sh\n")
    (work / "hooksdir").symlink_to(".git/hooks")
    (work / "lnk2").symlink_to(".git/hooks/pre-commit.sample")
    return work


def asks_everywhere(work: Path, command: str, said: str, program: str) -> None:
    """It asks saying ``said`` in auto mode under a deny rule and under ``program``'s rule."""
    auto = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert auto.action == "ask", auto.reason
    assert said in auto.reason, auto.reason
    rules = PermissionRules(allow=(f"shell({program}*)",))
    smart = shell_verdict(rules, command, "smart_approve", working_dir=work)
    assert smart.action == "ask", smart.reason


def runs_under_its_rule(work: Path, command: str, program: str) -> None:
    rules = PermissionRules(allow=(f"shell({program}*)",))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=work)
    assert verdict.action == "run", verdict.reason
    assert shell_verdict(DENY_RM, command, "auto", working_dir=work).action == "run"


@pytest.mark.parametrize(("command", "said", "program"), [
    ("printf '[alias]' >> .gi[t]/config", "a redirection writes .git/config: git config", "printf"),
    ("tee -a .{git,x}/config", "tee writes .git/config: git config", "tee"),
    ("cp notes.txt .gi[t]/config", "cp writes .git/config", "cp"),
    ("dd of=.gi[t]/config", "dd writes .git/config", "dd"),
    ("mv notes.txt .g*t/config", "mv writes .git/config", "mv"),
    ("tee -a .gi[t]/HEAD", "tee writes .git/HEAD in the git directory", "tee"),
    ("truncate -s0 .gi[t]/index", "truncate writes .git/index in the git directory", "truncate"),
    ("tee .gi?/hooks/pre-commit.sample", "tee writes .git/hooks/pre-commit.sample: a hook", "tee"),
    ("tee -a .ven[v]/pyvenv.cfg", "tee writes .venv/pyvenv.cfg into the virtualenv .venv", "tee"),
    ("cd docs && tee -a ../.gi[t]/config", "tee writes .git/config", "tee"),
])
def test_a_glob_or_brace_naming_a_git_or_venv_file_asks(linked: Path, command: str, said: str,
                                                        program: str) -> None:
    asks_everywhere(linked, command, said, program)


@pytest.mark.parametrize(("command", "said", "program"), [
    ("tee -a hooksdir/../config", "tee writes .git/config: git config", "tee"),
    ("tee hooksdir/../hooks/pre-commit", "tee writes .git/hooks/pre-commit: a hook", "tee"),
    ("printf x > hooksdir/../HEAD", "a redirection writes .git/HEAD in the git dir", "printf"),
    ("cp notes.txt hooksdi[r]/../config", "cp writes .git/config", "cp"),
])
def test_a_dot_dot_after_a_link_is_taken_where_the_link_leads(linked: Path, command: str,
                                                              said: str, program: str) -> None:
    asks_everywhere(linked, command, said, program)


@pytest.mark.parametrize(("command", "program"), [
    ("tee -a *.txt", "tee"), ("tee docs/{a,b}.txt", "tee"), ("cp notes.txt doc[s]/", "cp"),
    ("tee -a docs/../notes.txt", "tee"), ("tee -a .venv/../notes.txt", "tee"),
    ("tee .gi[t]x/config", "tee"),  # matches nothing: bash writes the word as it is
])
def test_a_glob_brace_or_dot_dot_in_the_project_still_runs(linked: Path, command: str,
                                                            program: str) -> None:
    runs_under_its_rule(linked, command, program)
