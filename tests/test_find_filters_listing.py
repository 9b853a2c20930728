"""A ``find`` fed to ``xargs`` or ``$(…)`` is judged by the names it can print: a conjunction
of plain tests prints only what its ``-name``/``-type f`` allow (the seventh tester: ``-not
-path './.venv/*'``, parentheses, ``-size`` asked ". (holding .env)"); ``-o``, a negated name or
group, or a test that cannot narrow to names still ask."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(grep*)", "shell(find*)", "shell(xargs*)", "shell(cat*)",
                               "shell(wc*)"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("def f(): pass\n")
    (work / ".env").write_text("K=1\n")
    return work


@pytest.mark.parametrize("command", [
    "grep -n def $(find . -type f -name '*.py' -not -path './.venv/*')",
    "find . \\( -name '*.py' \\) | xargs wc -l",
    "find . -type f -size -1k -name '*.py' | xargs cat",
    "find . ! -path './node_modules/*' -name '*.py' -print | xargs wc -l",
    "find . -maxdepth 3 -name '*.py' -empty -a -readable | xargs cat",
])
def test_a_conjunction_of_plain_tests_is_judged_by_its_names(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "run"


@pytest.mark.parametrize("command", [
    "find . -not -name '*.py' | xargs cat", "find . ! -type d | xargs cat",
    "find . -name '*.py' -o -name .env | xargs cat",
    "find . -not \\( -name '*.py' \\) | xargs cat", "find . -path '*env' | xargs cat",
    "find . -name '*.py' , -name .env | xargs cat",
])
def test_what_may_print_a_sensitive_name_still_asks(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "ask"


@pytest.mark.parametrize("command", [
    "find . -name '*.py' -exec wc -l {} +",  # README's example, in a project holding .env
    "find . -name '*.py' -exec wc -l {} \\;",
    "find . -type f -name '*.py' -not -path './.venv/*' -exec cat {} +",
    "find src . -maxdepth 2 -name '*.py' -execdir wc -l {} +",
])
def test_find_exec_reaches_only_the_names_its_tests_let_through(project: Path,
                                                                command: str) -> None:
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize("command", [
    "find . -exec cat {} +", "find . -name '.e*' -exec cat {} +",
    "find . -name '*.py' -o -exec cat {} +", "find . -not -name '*.py' -exec cat {} \\;",
    "find . -exec cat {} \\; -name '*.py'",  # the test after the action filters nothing
    "find . -name '*.py' -o -name .env -exec cat {} +",
])
def test_find_exec_that_may_reach_a_sensitive_file_still_asks(project: Path,
                                                              command: str) -> None:
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert ".env" in verdict.reason, verdict.reason


def test_find_exec_in_a_project_with_a_venv_runs(project: Path, tmp_path: Path) -> None:
    """test29c: in a project whose ``.venv/bin/python3`` leads outside it, README's ``find .
    -name '*.py' -exec wc -l {} +`` asked ". (holding .venv/bin/python3 → …) is outside"."""
    outside = tmp_path / "python3.11"
    outside.write_text("")
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "bin" / "python3").symlink_to(outside)
    for command in ("find . -name '*.py' -exec wc -l {} +", "find . -name '*.pyc' -delete"):
        verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
        assert verdict.action == "run", (command, verdict.reason)
    verdict = shell_verdict(RULES, "find . -name 'python*' -exec cat {} +", "smart_approve",
                            working_dir=project)
    assert verdict.action == "ask" and "outside the project" in verdict.reason, verdict.reason


def test_find_l_exec_through_a_link_to_an_outside_dir_still_asks(project: Path,
                                                                 tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "x.py").write_text("")
    (project / "extlib").symlink_to(tmp_path / "lib")
    verdict = shell_verdict(RULES, "find -L . -name '*.py' -exec wc -l {} +", "smart_approve",
                            working_dir=project)
    assert verdict.action == "ask" and "extlib" in verdict.reason, verdict.reason
