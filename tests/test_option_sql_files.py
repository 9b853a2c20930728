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
