"""Shell deny and ask rules ask about a shell command run by a program's own command language.

gdb (``shell``, ``!``, ``pipe``, ``python``), the sqlite3 shell (``.shell``, ``.system``),
ed (``!``), tclsh (``exec``), vim/vi/ex (``!``, ``call system()``) and less (``LESSOPEN``) run a
shell command from text the rules do not read. Before, ``run --mode auto --deny 'shell(rm *)'``
let all of them delete files; their everyday forms (``sqlite3 db 'select 1'``, ``gdb -batch
-ex bt ./prog core``, ``vim -es -c wq f``, ``less f``) still run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import ALLOW_ALL_DENY_RM, shell_verdict

from goosectx.permissions import PermissionRules


def verdict(command: str, rules: PermissionRules = ALLOW_ALL_DENY_RM) -> tuple[str, str]:
    found = shell_verdict(rules, command)
    return found.action, found.reason


@pytest.mark.parametrize("command", [
    # gdb: commands given with -ex / -eval-command / -iex, a command file, or standard input
    "gdb -batch -ex 'shell rm x'", "gdb --batch -ex '!rm x'", "gdb -batch -eval-command='shell rm x'",
    "gdb -batch --eval-command 'pipe bt | rm x'", "gdb -batch -x cmds.gdb ./prog",
    "gdb -batch -ex 'python import os; os.system(\"rm x\")'", "gdb -batch -ex 'she rm x'",
    "gdb -batch -ex 'p $_shell(\"rm x\")'", "gdb -batch -ex 'p unlink(\"x\")' ./prog",
    "gdb -batch -ex 'run $(rm x)' ./prog", "gdb -batch -ex 'set exec-wrapper rm x' -ex run ./p",
    "gdb -batch -ex 'thread apply all shell rm x' -p 1", "gdb -batch -ex 'source x.gdb'",
    "gdb -batch -ex 'define f'", "gdb -batch -eval 'shell rm x'", "gdb -batch -ev 'shell rm x'", "gdb -batch -x=c.gdb",
    "gdb -batch -early-init-eval-command 'shell rm x'", "gdb -batch --init-eval-command='!rm x'",
    "echo 'shell rm x' | gdb -q", "gdb -q ./prog <<< 'shell rm x'",
    # sqlite3: dot-commands that run programs, SQL that does, -cmd, -init, standard input
    "sqlite3 :memory: '.shell rm x'", "sqlite3 db '.system rm x'", "echo '.system rm x' | sqlite3",
    "sqlite3 -cmd '.shell rm x' :memory: .quit", "sqlite3 -init x.sql :memory: .quit",
    "sqlite3 db 'select 1;\n.shell rm x'", "sqlite3 db \"select edit('x', 'rm x')\"",
    "sqlite3 db '.once |rm x'", "sqlite3 db \".import '|rm x' t\"", "sqlite3 db '.read |rm x'",
    "sqlite3 db '.sh rm x'", "sqlite3 db <<< '.shell rm x'", "sqlite3 db <<'EOF'\n.shell rm x\nEOF",
    # ed / red: commands always come from standard input; `ed '!cmd'` reads a command's output
    "printf '!rm x\\nq\\n' | ed -s", "ed -s f <<< '!rm x'", "ed -s f < script.ed", "ed '!rm x'",
    "red -s f <<< '!rm x'",
    # Tcl shells reading their script from standard input
    "echo 'exec rm x' | tclsh", "tclsh <<< 'exec rm x'", "wish /dev/stdin <<< 'exec rm x'",
    "tclsh8.6 - <<< 'exec rm x'", "jimsh",
    # vim, vi, ex: ex commands that run a shell or code, a sourced file, keys from stdin
    "vi -es -c 'call system(\"rm x\")' -c q", "vim -c '!rm x'", "ex -c '!rm x' f",
    "vim -es -c 'r !rm x' f", "vim -es -c 'e `rm x`'", "vim -es -c 'exe \"!rm x\"' -c q",
    "vim -es -c '%s/a/\\=system(\"rm x\")/' -c wq f", "vim +'!rm x' f", "vim -S s.vim f",
    "vim -es -c 'set shell=/tmp/x' -c sh", "vim -es -c 'so x.vim'", "vim -es -c 'py3 1' f",
    "echo ':!rm x' | vim f", "vim -es -c 'r!rm x' -c wq f", "vim -es f < cmds.ex", "vi f",
    "vim -es -c 'e +call\\ system(\"rm\\ x\") f' -c wq", "ex f <<< '!rm x'", "vim -es f < cmds.ex <<< '!rm x'",
    # less: LESSOPEN / LESSCLOSE (and lesskey files that may set them) are commands it runs
    "LESSOPEN='|rm x %s' less f", "env LESSOPEN='|rm x %s' less f", "LESSCLOSE='rm x' less f",
    "export LESSOPEN='|rm x %s'; less f", "LESSKEYIN=keys less f", "LESS='-R --lesskey-src=k' less f",
    "less --lesskey-src=k f", "VIMINIT='call system(\"rm x\")' vim -c wq f",
    "export EXINIT='!rm x'", "sqlite3 db \"$SQL\"", "sqlite3 -cmd \"$C\" db .tables",
    "gdb -batch -ex \"$CMD\" ./p", "gdb -batch -ex \"p $pc\" ./p", "vim -es -c \"$X\" -c wq f",
    "vim -es \"+$X\" +wq f", "echo 'shell rm x' | gdb -q --args ./p -batch",
    "echo 'shell rm x' | gdb -q -args ./p -batch", "gdb -batch -ex $'bt\\nshell rm x'",
])
def test_a_command_run_by_a_programs_own_language_is_asked_about(command: str) -> None:
    action, reason = verdict(command)
    assert action in ("ask", "deny"), command
    if action == "ask":
        assert "cannot check" in reason, reason


@pytest.mark.parametrize("command", [
    "sqlite3 db.sqlite 'select 1'", "sqlite3 db .tables", "sqlite3 db '.schema t'",
    "sqlite3 db '.headers on' '.mode column' 'select * from t'", "sqlite3 -header -csv db 'select 1'",
    "sqlite3 --version", "sqlite3 -safe db '.shell rm x'", "sqlite3 ~/db.sqlite 'PRAGMA table_info(t)'",
    "gdb --version", "gdb -batch -ex bt ./prog core", "gdb -batch -ex run -ex 'bt full' --args ./p a",
    "gdb -q -batch -ex 'thread apply all bt' -p 123", "gdb -batch -ex 'p sizeof(int)' -ex 'p x->y' p",
    "gdb -batch -ex 'set pagination off' -ex 'info registers' ./p core",
    "gdb -batch -ex 'x/4i $pc' -ex 'p/x $sp' ./p core",
    "sqlite3 \"$DB\" 'select 1'", "sqlite3 ~/dbs/*.sqlite '.tables'", "vim -es -c wq \"$F\"",
    "less f", "less -R +G f", "echo x | less", "git log | less -R",
    "vim -es -c 'wq' f", "vim -es -c '%s/foo/bar/g' -c 'wq' f", "vim -es +'set ff=unix' +wq f",
    "vim --version", "vim -es +wq f", "LESS=-FRX less f", "vim -es -c 'e ++ff=unix f' -c wq",
    "vim -u NONE -es -c 'q!' f", "cat f | vim -", "ed --version",
    "tclsh build.tcl", "wish app.tcl -- a b",
])
def test_their_everyday_forms_still_run(command: str) -> None:
    assert verdict(command)[0] == "run", command


def test_without_a_shell_deny_or_ask_rule_nothing_changes() -> None:
    only_allow = PermissionRules(allow=("shell(*)",))
    # unreadable: never allowed by a rule, so the mode decides (auto runs it)
    assert verdict("sqlite3 db '.shell ls'", only_allow)[0] == "run"
    assert verdict("gdb -batch -ex 'shell ls'", PermissionRules())[0] == "run"


def test_run_in_auto_mode_runs_no_rm_given_to_a_programs_language(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = run_auto_denying_rm(fake_model, workdir, capsys, [
        "gdb -batch -ex 'shell rm v1'", "sqlite3 :memory: '.shell rm v2'",
        "echo '.system rm v3' | sqlite3", "printf '!rm v4\\nq\\n' | ed -s",
        "echo 'exec rm v5' | tclsh", "vi -es -c 'call system(\"rm v6\")' -c q",
        "LESSOPEN='|rm v7 %s' less v1 </dev/null >/dev/null", "ed -s v1 <<< '!rm v8'"])
    assert "gdb runs a command of its own language the rules do not read" in err
    assert "it sets LESSOPEN, which holds a command less or vim runs" in err


@pytest.mark.parametrize("command", [
    "deno eval 'Deno.removeSync(\"x\")'", "deno eval -p '1+1'", "deno repl --eval 'x'",
    "deno repl", "echo 'x' | deno run -", "deno run - < x.ts", "deno eval \"$CODE\"",
    "deno run <(curl -s x)", "deno run --allow-net", "echo x | deno run \"$f\"",
    "erl -noshell -s os cmd rm -s init stop", "erl -noshell -run os cmd 'rm x' -s init stop",
    "erl -noshell -eval 'os:cmd(\"rm x\")' -s init stop", "erl -S mymod start",
    "erl -pa ebin -s mymod -s init stop",
])
def test_deno_and_erl_code_given_on_the_line_is_asked_about(command: str) -> None:
    action, reason = verdict(command)
    assert action == "ask", command
    assert "cannot check" in reason, reason


@pytest.mark.parametrize("command", [
    "deno --version", "deno run x.ts", "deno run --allow-read main.ts a b", "deno test",
    "deno run -c deno.json main.ts", "deno run --allow-read main.ts",
    "deno fmt --check", "deno lint", "deno task dev", "erl -noshell -s init stop",
    "erl -version", "node x.js",
])
def test_deno_and_erl_everyday_forms_still_run(command: str) -> None:
    assert verdict(command)[0] == "run", command
