"""A database shell's own commands that run a program are asked about: psql, mysql, duckdb.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran ``psql -c '\\! rm f'``, ``mysql -e
'system rm f'`` and ``duckdb -c '.shell rm f'``: only sqlite3's dot-commands were read. The
queries agents run every day (``psql -c 'select 1'``, ``psql -c '\\dt'``, ``mysql -e 'show
tables'``, ``duckdb -c 'select 1'``) still run.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    # psql: \! and the meta-commands that pipe or read files, backquotes, COPY … PROGRAM
    "psql -c '\\! rm f'", "psql -d db -c '\\x \\! rm f'", "psql -Atc '\\! rm f'",
    "psql --command='\\! rm f'", "psql --comm '\\! rm f'", "psql -c '\\o |rm f'",
    "psql -c '\\set x `rm f`'", "psql -c \"copy t from program 'rm f'\"",
    "psql -c 'select 1 \\g |rm f'", "psql -f x.sql", "psql --file=x.sql", "psql -o '|rm f'",
    "echo '\\! rm f' | psql", "psql db <<< '\\! rm f'", "usql -c '\\! rm f'",
    "psql -c \"$SQL\"", "psql db",
    # mysql, mariadb: system / \! and the other client commands, standard input
    "mysql -e 'system rm f'", "mysql -e '\\! rm f'", "mysql -u root -e 'select 1; system rm f'",
    "mysql --execute='\\! rm f'", "mariadb -e 'SYSTEM rm f'", "mysql -e 'source x.sql'",
    "mysql -e 'pager rm f'", "mysql db < dump.sql", "echo 'system rm f' | mysql",
    "mysql --pager='rm f' db", "mysql -uroot -pSECRET -e 'system rm f'",
    # duckdb: .shell / .sh / .system, files, standard input
    "duckdb -c '.shell rm f'", "duckdb -c '.sh rm f'", "duckdb db.duckdb '.system rm f'",
    "duckdb -s '.sh rm f'", "duckdb -cmd '.shell rm f' db 'select 1'", "duckdb -f x.sql",
    "duckdb -init x.sql db", "echo '.shell rm f' | duckdb",
])
def test_a_database_shell_command_that_runs_a_program_is_asked(command: str) -> None:
    assert action_under_deny_rm(command) in ("ask", "deny")


@pytest.mark.parametrize("command", [
    "psql -c 'select 1'", "psql -d app -U postgres -c 'SELECT count(*) FROM users;'",
    "psql -c '\\dt'", "psql -c '\\d+ users'", "psql -Atc 'select version()'", "psql -l",
    "psql postgres://u@localhost/db -c \"select E'a\\\\nb'\"", "psql --version",
    "psql -h localhost -p 5432 -U app -c '\\l'", "psql -c '\\conninfo'",
    "mysql -e 'select 1'", "mysql -u root -e 'show databases'", "mysql -e 'select 1\\G'",
    "mysql -u root -pSECRET db -e \"select 'system rm f'\"", "mysql --version",
    "mysql -h 127.0.0.1 -P 3306 -u app -e 'SHOW TABLES' app", "mariadb -e 'select 1'",
    "duckdb -c 'select 1'", "duckdb db.duckdb 'select 1'", "duckdb -c .tables", "duckdb -version",
    "duckdb -csv -c \"select * from read_csv('x.csv')\"",
    "sqlite3 db 'select 1'", "sqlite3 db .tables",
])
def test_everyday_database_queries_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", [
    # sqlcmd: !! runs a shell command, :r reads a script, :out writes a file; -i a file; stdin
    "sqlcmd -Q '!! rm f'", "sqlcmd -S srv -q 'select 1\n!!rm f'", "sqlcmd -Q ':r x.sql'",
    "sqlcmd -Q ':out f.txt'", "sqlcmd -i x.sql", "sqlcmd -S srv", "echo '!!rm f' | sqlcmd",
    "sqlcmd -Q \"exec xp_cmdshell 'rm f'\"", "sqlcmd -Q \"$SQL\"", "sqlcmd -q 'select 1'",
    # clickhouse-client: files, executables, stdin
    "clickhouse-client -q \"select * from executable('rm.sh', 'TSV', 'x String')\"",
    "clickhouse-client --query \"select 1 into outfile 'f.txt'\"",
    "clickhouse-client --query=\"insert into t from infile 'x.csv' format CSV\"",
    "clickhouse-client --queries-file x.sql", "clickhouse-client", "clickhouse client",
    "echo 'select 1' | clickhouse-client", "clickhouse-client -q \"$SQL\"",
    "clickhouse-client -q \"select * from file('/etc/passwd')\"",
])
def test_sqlcmd_and_clickhouse_queries_that_may_run_or_read_a_file_are_asked(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "sqlcmd -S localhost -U sa -P x -Q 'select name from sys.databases'", "sqlcmd '-?'",
    "sqlcmd -Q 'SELECT @@VERSION' -h -1", "clickhouse-client -q 'select 1'",
    "clickhouse-client --query 'SHOW TABLES' --format PrettyCompact", "clickhouse-client --version",
    "clickhouse-client --host h --port 9000 --query='select count() from t'",
    "clickhouse client -q 'select 1'",
])
def test_everyday_sqlcmd_and_clickhouse_queries_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command
