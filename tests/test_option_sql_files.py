"""The fresh-eyes tester's D1–D4: sqlite3's SQL that reads or writes any file, csplit's and
split's output prefix, compileall's walk and list, and git commands that print only names."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture


@pytest.mark.parametrize("command", [
    "sqlite3 :memory: \"select readfile('.env')\"",
    "sqlite3 :memory: \"SELECT ReadFile('../notes.json')\"",
    "sqlite3 :memory: 'select \"readfile\"(char(46,101,110,118))'",
    "sqlite3 :memory: \"select writefile('.git/HEAD','garbage')\"",
    "sqlite3 :memory: \"select name from fsdir('..')\"",
    "sqlite3 :memory: \"select * from zipfile('../x.zip')\"",
    "sqlite3 :memory: \"vacuum into '../outside.db'\"",
    "sqlite3 :memory: \"VACUUM main INTO '.git/hooks/pre-commit'\"",
    "sqlite3 :memory: \"vacuum/**/into '../o.db'\"",
    "sqlite3 :memory: \"attach '../o.db' as o; create table o.t(x)\"",
    "sqlite3 -cmd \"select writefile('x', 1)\" :memory: 'select 1'",
    "sqlite3 -safe :memory: \"vacuum into '../o.db'\"",
    "sqlite3 .git/hooks/pre-commit 'create table t(x)'",
])
def test_sqlite3_sql_that_reads_or_writes_another_file_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "sqlite3 data.db 'select 1'",
    "sqlite3 data.db \"select 'readfile(x)', 'vacuum into'\"",
    "sqlite3 data.db 'vacuum'",
    "sqlite3 data.db .tables",
])
def test_sqlite3_queries_on_a_project_database_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "csplit -s -f '' -b '.git/hooks/pre-commit%.0d' a.txt 3",
    "csplit -f .git/hooks/pre-commit a.txt 3",
    "csplit --prefix=.git/hooks/x a.txt 3",
    "csplit -f. -b './x%d' a.txt 3",  # the join is ../x
    "csplit -f '' -b '..%d/x' a.txt 3",
    "csplit -b '/tmp/x%d' a.txt 3",
    "split a.txt .git/hooks/pre-commit",
    "split -d -l 1 a.txt .git/x",
    "split -l1 -- a.txt ./.git/hooks/p",
])
def test_split_and_csplit_writing_into_git_or_outside_ask(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "csplit -f part README.md '/^## /' '{*}'",
    "csplit -s -z README.md '%^# %' '/x/+1' 2 '{3}'",
    "csplit -f out/part -b '%03d.md' README.md 3",
    "split -l 1 a.txt part-",
    "split a.txt",
])
def test_split_and_csplit_in_the_project_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


def test_a_csplit_file_operand_is_still_a_path(project: Path) -> None:
    action, reason = _verdict(project, "csplit -f part ../notes.json 3")
    assert action == "ask" and "outside the project" in reason, reason


def _link_out(project: Path, name: str, target: str = "conf.py") -> None:
    outside = project.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "conf.py").write_text('DB_PASSWORD = "x" +\n')
    (project / name).symlink_to(outside / target if target else outside)


def test_compileall_of_a_dir_holding_a_py_link_out_asks(project: Path) -> None:
    _link_out(project, "src/conf.py")
    for command in ("python3 -m compileall src", "python -m compileall -q -j 2 .",
                    "python3 -m compileall"):
        action, reason = _verdict(project, command)
        assert action == "ask" and "outside the project" in reason, (command, reason)


def test_compileall_does_not_enter_a_dir_link_nor_read_other_names(project: Path) -> None:
    _link_out(project, "src/linked", "")  # compileall skips a link to a dir
    _link_out(project, "src/conf.txt")
    action, reason = _verdict(project, "python3 -m compileall src")
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "python3 -m compileall -i list.txt",
    "python3 -m compileall -qi list.txt src",
    "python3 -m compileall -i - src",
    "python3 -m compileall",  # no operand: sys.path's dirs
])
def test_compileall_reading_a_list_or_sys_path_asks(project: Path, command: str) -> None:
    (project / "list.txt").write_text(str(project.parent / "outside.py") + "\n")
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "python3 -m compileall src", "python3 -m compileall -q -r 2 src/a.py", "python -m compileall ."])
def test_compileall_of_project_sources_runs(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason
