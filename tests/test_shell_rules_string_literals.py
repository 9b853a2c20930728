"""Words of a string literal are text, not code: node's ``\\u``, perl's ``do``, sqlite3's ``edit``.

sh23: ``node -e 'console.log("\\u00e9")'``, ``perl -e 'print "do it\\n"'`` and ``sqlite3 db
"select * from t where name = 'edit'"`` were asked about under ``run --mode auto --deny
'shell(rm *)'``, as their readers searched the whole code for an escape spelling ``eval``, a
``do FILE`` or the ``edit()`` function. A string literal the reader can delimit for sure is
now left out of that search; code whose strings it cannot delimit (a comment, a regex, a
template literal, perl's ``q()`` or interpolation) is searched whole, as before.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    "node -e 'console.log(\"\\u00e9\")'", "node -e \"console.log('caf\\u00e9'.length)\"",
    "node -p '\"a\\u0062c\" + \"\\\\\"'", "perl -e 'print \"do it\\n\"'",
    "perl -e \"print 'do not'\"", "perl -le 'print \"to do: \", 1'",
    "sqlite3 db \"select * from t where name = 'edit'\"",
    "sqlite3 db \"insert into log values ('edit', 1)\"", "sqlite3 db \"select 'please edit'\"",
    "sqlite3 db \"select 'it''s edit'\"",
])
def test_a_word_inside_a_string_literal_runs(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command


@pytest.mark.parametrize("command", [
    "node -e '\\u0065val(s)'", "node -e 'x = \"a\"; \\u0065val(s)'",
    "node -e 'x = `a`; \\u0065val(s)'", "node -e 'x = 1 // \"\n\\u0065val(s)'",
    "node -e 'x = /\"/; \\u0065val(s); y = /\"/'", "node -e 'x = \"a\\\\\"; \\u0065val(s); \"b\"'",
    "perl -e 'do \"x.pl\"'", "perl -e 'print \"x\"; do $f'", "perl -e \"print 'x'; do 'f.pl'\"",
    "perl -e 'print \"@{[ do \\\"x.pl\\\" ]}\"'", "perl -e 'print q(it\"s); do \"x.pl\"; \"\"'",
    "perl -e 'print \"a\\\\\"; do \"x.pl\"; \"\"'", "perl -e 'print $\"; do \"f\"; print \"\"'",
    "perl -e 'print 1 # \"\ndo \"x.pl\"; \"\"'",
    "perl -e \"\\$a'b; do 'f.pl'; \\$c'd\"",
    "sqlite3 db \"select edit('x', 'rm f')\"", "sqlite3 db \"select 'x' || edit('a', 'rm f')\"",
    "sqlite3 db \"select \\\"a'b\\\", edit('x','rm f'), 'c'\"", "sqlite3 db \"select 'edit'(1, 2)\"",
    "sqlite3 db \"select 'edit' /* x */ (1, 2)\"", "sqlite3 db \"select [a'b], edit(1,1), 'x'\"",
    "sqlite3 db \"select 1 -- it's\n, edit(1,1), 'x'\"",
])
def test_code_outside_a_string_literal_is_still_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) in ("ask", "deny"), command
