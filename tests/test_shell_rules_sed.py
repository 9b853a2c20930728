"""A sed script's ``e`` command runs a shell command after any address GNU sed takes.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran ``sed '0~1e rm f' x``, ``sed '2!e rm
f'``, ``sed '/x/I e rm f'``, ``sed '1,+2e rm f'``: the script was searched for an ``e`` after
a plain line number or ``/re/`` only. sed's scripts are now walked as sed reads them; the
scripts agents write every day (``sed -n '1,5p'``, ``sed -i 's/a/b/g'``) still run.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    "sed '0~1e rm f' x", "sed '2!e rm f' x", "sed '/x/I e rm f' x", "sed '/x/Ie rm f' x",
    "sed '$e rm f' x", "sed '1,+2e rm f' x", "sed '1~2e rm f' x", "sed '1,~4e rm f' x",
    "sed '/a/,/b/M e rm f' x", "sed '1 ! e rm f' x", "sed '1!!e rm f' x",
    "sed '\\%x%I e rm f' x", "sed '0,/x/e rm f' x", "sed -n '/a/,$ {e rm f\n}' x",
    "sed 's/x/rm f/e' x", "sed 's|x|rm f|ge' x", "sed 's/[/]/rm f/e' x", "sed 's/x/y/;e' x",
    "sed -ne '1e rm f' x", "sed --expr='1e rm f' x", "sed -l 5 '1e rm f' x",
    "sed -E -e 's/a/b/' -e '3e rm f' x", "sed '1{p;e rm f\n}' x", "sed 'p;$!e rm f' x",
    "sed -s -n 's/^/rm /ep' x", "sed -z '2 !e rm f' x",
])
def test_an_e_command_after_any_address_is_not_run_unasked(command: str) -> None:
    assert action_under_deny_rm(command) in ("ask", "deny")


@pytest.mark.parametrize("command", [
    "sed -n '1,5p' x", "sed -i 's/a/b/g' f", "sed -n '1,200p' go.mod", "sed '/^$/d' f",
    "sed ':a;N;$!ba;s/\\n/ /g' f", "sed -E 's/([0-9]+)/<\\1>/g' f", "sed '1d;$d' f",
    "sed 's#/usr#/opt#g' f", "sed '$a\\\nnew line' f", "sed '1i header' f", "sed -n '$=' f",
    "sed -e '/foo/{' -e 'n' -e 'd' -e '}' f", "sed 'y/abc/xyz/' f", "sed 10q f",
    "sed 's/a/b/w out.txt' f", "sed '/x/r extra.txt' f", "sed -ie 's/a/b/' f",
    "sed --in-place=.bak 's/a/b/' f", "sed -f script.sed f", "sed -l 80 -n l f",
    "sed -z 's/\\n/,/g' f", "sed '/exit/d' f", "sed 's/e/E/g' f", "sed '/^#/!s/foo/bar/' f",
    "sed '0,/foo/s//bar/' f", "sed '2,5{s/a/b/;s/c/d/}' f", "sed -n '/re/{p;q}' f",
    "sed 's/[/]/x/' f", "sed -n '/[[:space:]]e/p' f", "sed '$!N;P;D' f", "sed 'p # e rm f' f",
    "sed -n '/start/,/end/p' f", "sed 's/x/y/I' f", "sed '1~3d' f", "sed -n '2,+3p' f",
    "sed -e 's/a/b/' -- f", "sed 'W out' f", "sed '1 w /tmp/head' f", "sed --sandbox '1e rm f' x",
    "sed -n '/x/I p' f", "sed 's/ *$//;s/^ *//' f", "sed '/a/ !d' f", "sed --version",
])
def test_everyday_sed_scripts_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", [
    "sed \"$x\" f", "sed -e \"s/a/$(cat y)/\" f", "sed -n \"${n}p\" f", "sed -e 's/a/b/' -e \"$S\" f",
    "sed --expression=\"$S\" f", "sed \"s/a/`cat y`/\" f", "sed -i \"$S\" f", "sed $S f",
    "sed -n \"$a,${b}p\" f", "gsed \"$x\" f",
])
def test_a_sed_script_bash_computes_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "sed 's/a/b/' \"$f\"", "sed -n '1,5p' \"$file\"", "sed -i 's/a/b/' $FILES",
    "sed -n '$p' f", "sed -f \"$dir/x.sed\" f", "sed -n \"$((n + 1))p\" f",
])
def test_a_sed_script_as_written_with_computed_files_still_runs(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command
