"""A reader's or builder's output option naming a file or dir in the project runs under deny rules.

Testers (appr30): under ``--deny 'shell(rm *)'`` in auto mode ``tsc --outDir dist``, ``go test
-coverprofile=cover.out ./...``, ``sort -o out.txt in.txt`` … asked, "writes its output to the
file named dist … which the deny and ask rules cannot check": ``shell(rm *)`` has nothing to say
about a report or a build dir in the project. Such a file is judged as ``tee``'s is: the git
directory, a virtualenv, ``node_modules``, a sensitive file, a path outside the project or one
bash makes at run time still ask; an allow rule for the program still does not cover the write.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, asks_under_deny_rm, shell_verdict

from goosectx.permissions import PermissionRules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / "build").mkdir()
    (work / ".venv").mkdir()
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (work / ".env").write_text("KEY=1\n")
    return work


IN_PROJECT = [
    "go test -coverprofile=cover.out ./...", "go test ./... -coverprofile cover.out",
    "tsc --outDir dist", "tsc -outdir dist", "cargo build --target-dir build/target",
    "ruff check -o build/x", "ruff check --output-file=build/report.txt .",
    "mypy --junit-xml build/x.xml goosectx", "mypy --html-report build/html src",
    "sort -o out.txt in.txt", "sort -oout.txt in.txt", "eslint -o report.txt src",
    "pytest --junitxml=build/report.xml", "python -m pytest -q --junit-xml report.xml",
    "npx tsc --outDir dist", "cd build && sort -o out.txt ../in.txt",
]


@pytest.mark.parametrize("command", IN_PROJECT)
def test_an_output_file_in_the_project_runs_under_a_deny_rule(project: Path,
                                                               command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ("tsc --outDir .git/hooks", "a hook is a command a later git runs"),
    ("go test -coverprofile=.git/HEAD ./...", "git"),
    ("cargo build --target-dir .venv", "virtualenv"),
    ("tsc --outDir node_modules/x", "node_modules"),
    ("sort -o .env in.txt", "the file named .env"),
    ("tsc --outDir ../dist", "the directory named ../dist"),
    ("sort -o /etc/hosts in.txt", "the file named /etc/hosts"),
    ("cd build && sort -o ../../x in.txt", "the file named ../../x"),
    ("go test -coverprofile=~/cover.out ./...", "the file named ~/cover.out"),
    ("sort -o $OUT in.txt", "the file named $OUT"),
    ("sort -o '*.txt' in.txt", "the file named *.txt"),
    ('cd "$X" && sort -o out.txt in.txt', "in a dir not known here"),
    ("ssh dev sort -o out.txt in.txt", "the file named out.txt"),
    # a link the line makes into the git directory: the output through it lands there
    ("ln -s .git/hooks h; sort -o h/pre-commit in.txt", "ln links a name to .git/hooks"),
    ("ln -s .git/hooks h && tsc --outDir h", "ln links a name to .git/hooks"),
    ("ln -s .git/hooks h; tee h/pre-commit", "ln links a name to .git/hooks"),
])
def test_an_output_file_protected_or_outside_still_asks(project: Path, command: str,
                                                        said: str) -> None:
    asks_under_deny_rm(project, command, said)


def test_a_directory_is_named_as_one(project: Path) -> None:
    for command, said in (("tsc --outDir ../dist", "tsc --outDir writes its output into the "
                                                   "directory named ../dist"),
                          ("cargo build --target-dir /tmp/t", "cargo --target-dir writes its "
                                                              "output into the directory named"),
                          ("sort -o ../x in.txt", "sort -o writes its output to the file named")):
        verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
        assert said in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", ["sort -o out.txt in.txt", "tsc --outDir dist",
                                     "pytest --junitxml=Makefile"])
def test_an_allow_rule_for_the_program_still_does_not_cover_the_write(project: Path,
                                                                      command: str) -> None:
    rules = PermissionRules(allow=(f"shell({command.split()[0]}*)",))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask"
    assert "writes its output" in verdict.reason and "no allow rule covers" in verdict.reason
