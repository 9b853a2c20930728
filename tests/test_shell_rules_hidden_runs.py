"""Ways around the sed, database-shell and interpreter readers a review found, asked about.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran each command of the first list, and each
really deleted the file (GNU sed 4.9, sqlite3 3.40, psql 15, node 20, perl 5.36): a sed label
ends at a blank, sqlite3's ``edit`` hidden by a comment or quotes, sqlite3's ``-nonce`` value
read as the database, psql's ``-l`` ending the reading before ``-o '|cmd'``, a quote in a mysql
comment, node's many spellings of ``eval``, perl's ``do FILE``. A long line of code is decided
at once rather than after seconds of regex backtracking.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from rules_support import action_under_deny_rm

from goosectx.shell_scripts import runs_in_language
from goosectx.shell_sed import sed_runs


@pytest.mark.parametrize("command", [
    # sed: a label ends at a blank; the next command may follow without ';'
    "sed -n ':a e rm f' x", "sed -n 'T end e rm f' x", "sed -n 'v 4.2 e rm f' x",
    "sed -n 'b end e rm f' x", "sed -n ': a e rm f' x",
    # sqlite3: edit() hidden from a plain search
    "sqlite3 t.db \"select edit/**/(1,'rm f')\"", "sqlite3 t.db 'select \"edit\"(1,1)'",
    "sqlite3 t.db 'select [edit](1,1)'", "sqlite3 t.db 'select `edit`(1,1)'",
    "sqlite3 t.db 'select edit\n(1,1)'", "sqlite3 t.db 'select edit--x\n(1,1)'",
    # sqlite3: -nonce takes a value; with it -safe can be lifted
    "echo .shell rm f | sqlite3 -nonce X t.db", "sqlite3 -nonce X t.db",
    "sqlite3 -safe -nonce X t.db '.nonce X' '.shell rm f'",
    "sqlite3 -threadsafe 1 t.db",
    # psql: -l does not stop the options being read
    "psql -l -o '|rm f'", "psql --list --output='|rm f'", "psql -l -f x.sql",
    # mysql: a quote in a comment does not hide what follows
    "mysql -e \"# '\n\\! rm f\n# '\"", "mysql -e \"-- '\n\\! rm f\n-- '\"",
    "mysql -e \"/* ' */ system rm f\"",
    # node: eval in any spelling, the Function constructor reached another way
    "node -e '(0,eval)(String.fromCharCode(114,109))'", "node -e '\\u0065val(s)'",
    "node -e 'eval.call(null,s)'", "node -e '[].map.constructor(s)()'",
    "node -e 'Reflect.get(globalThis,\"ev\"+\"al\")(s)'", "node -e 'globalThis[\"ev\"+\"al\"](s)'",
    "node -p 'globalThis[k](s)'",
    # perl: do / require of a file runs code not shown
    "echo 'system q(rm f)' | perl -e 'do q(/dev/stdin)'", "perl -e 'do \"x.pl\"'",
    "perl -e 'require \"/dev/stdin\"'", "perl -e 'require $f'",
])
def test_a_hidden_way_to_run_a_program_is_asked(command: str) -> None:
    assert action_under_deny_rm(command) in ("ask", "deny")


@pytest.mark.parametrize("command", [
    "sed -n ':a;N;$!ba;p' x", "sed ':a;s/x/y/;ta' x", "sed -e :a -e '$!N;ba' x",
    "sed -n '/x/b end\np\n:end' x",
    "sqlite3 t.db 'select edited from t'",
    "sqlite3 -safe t.db '.tables'", "psql -l", "psql -l -h localhost",
    "mysql -e \"select 'x' # it's a comment\"",
    "node -e 'console.log(require(\"./package.json\").version)'",
    "node -p 'process.versions.node'", "node -e 'const a = [1,2]; console.log(a[0])'",
    "perl -ne 'print if /see/' f", "perl -ne 'print if /agree/' f", "perl -e 'use strict; 1'",
    "perl -MJSON -e 'require JSON; print 1'",
])
def test_everyday_commands_near_them_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.fixture
def five_seconds() -> Iterator[None]:
    def timeout(*_: object) -> None:
        raise TimeoutError("the decision took over 5 s: a regex backtracks")
    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(5)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("name", "code"), [
    ("perl", "open " * 40000), ("python", "getattr(" * 25000), ("node", "x" + "[" * 200000),
    ("perl", "/" + "m" * 200000), ("python", "__import__(" * 20000),
    ("node", "require(" * 25000),
])
def test_long_code_is_decided_at_once(five_seconds: None, name: str, code: str) -> None:
    runs_in_language(name, code)


def test_a_long_sed_script_is_decided_at_once(five_seconds: None) -> None:
    sed_runs("p;" * 100000)
