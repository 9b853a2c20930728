"""A value the line reads at run time, evaluated as a number, may run a command.

sec22b: under ``--deny 'shell(rm *)'`` ``read x < list; (( x ))`` ran ``rm`` when ``list`` held
``a[$(rm victim)]``: bash evaluates a variable's value as an arithmetic expression wherever a
name stands in arithmetic context, and runs the ``$( )`` of an array subscript in it. Each
asked case below really deletes ``victim`` in bash (checked here); each kept case reads no
text at run time into arithmetic (a literal, a count, an environment variable, ``[``'s
``-gt``, which takes integers only).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import action_under_deny_rm

ASKED = [
    "read x <<< 'a[$(rm victim)]'; (( x ))", "read x < list; (( x ))",
    "x=$(cat list); (( x ))", "x=$(<list); (( x ))", "x=`cat list`; echo $((x + 1))",
    "echo $(( $(cat list) ))", "read x < list; echo $(( $x ))", "read x < list; echo $[x]",
    "read x < list; let x", "read x < list; let 'y=x'",
    "read x < list; for ((i=0; i<x; i++)); do :; done",
    # [[ ]]'s arithmetic comparisons and -v, test -v, [ -v ]
    "read x < list; [[ $x -eq 1 ]]", "read x < list; [[ 1 -lt \"$x\" ]]",
    "read x < list; [[ x -ge 1 ]]", "read x < list; [[ -v $x ]]",
    "read x < list; test -v \"$x\"", "read x < list; [ -v \"$x\" ]",
    # an indexed array's subscript, a substring offset, a name's subscript
    "read x < list; echo ${arr[x]}", "read x < list; echo ${arr[$x]}",
    "read x < list; s=abc; echo ${s:$x}", "read x < list; s=abc; echo ${s:x}",
    "read x < list; arr[x]=1", "read x < list; printf -v 'arr[x]' 1",
    "read x < list; set -- a b; echo ${@:x}",
    # declare -i: an assignment evaluates its value
    "read v < list; declare -i n; n=$v", "declare -i n; read n < list",
    "read x < list; declare -i n=$x", "read v < list; declare -i n; n+=$v",
    # through other variables and other readers
    "read x < list; y=$x; (( y ))", "read x < list; y=x; (( y ))",
    "mapfile arr < list; (( arr ))", "while read f; do (( f )); done < list",
    "for f in \"$(cat list)\"; do echo $((f)); done", "for f in *; do (( f )); done",
    "read x < list; printf -v y %s \"$x\"; (( y ))", "read < list; (( REPLY ))",
    "[[ $(cat list) =~ (.*) ]]; (( BASH_REMATCH[1] ))",
    "bash -c 'read x < list; (( x ))'", "[[ $(cat list) -eq 1 ]]",
    "read x < list; export x; bash -c $'(( \\x78 ))'", "bash -c $'read x < list; (( \\x78 ))'",
    # parameters a line sets: set --, a -c string's arguments
    "set -- \"$(cat list)\"; (( $1 ))", "bash -c 'echo $(( $1 ))' _ \"$(cat list)\"",
    "bash -c '(( $0 ))' \"$(cat list)\"",
    # quoted builtins, array literals, an associative array declared elsewhere, test's -a
    "'read' x < list; (( x ))", "read x < list; l\\et x", "read x < list; a=([x]=1)",
    "read x < list; declare -a a=([0]=1 [x]=2)", "read x < list; (declare -A m); echo ${m[x]}",
    "read x < list; [ -n 1 -a -v \"$x\" ]", "echo \"$(cat list)\"; (( _ ))",
    "read x < list; a=([0]=1 [" + "0+" * 600 + "x]=2)"]


@pytest.mark.parametrize("command", ASKED)
def test_a_value_read_at_run_time_evaluated_as_a_number_is_asked(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", ASKED)
def test_each_asked_case_runs_rm_in_bash(command: str, tmp_path: Path) -> None:
    (tmp_path / "list").write_text("a[$(rm victim)]\n")
    (tmp_path / "victim").write_text("keep")
    if "in *;" in command:
        (tmp_path / "list").rename(tmp_path / "a[$(rm victim)]")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10,
                   stdin=subprocess.DEVNULL, check=False)
    assert not (tmp_path / "victim").exists(), command


KEPT = [
    "n=$(wc -l < f); if (( n > 5 )); then echo big; fi", "n=$(ls | wc -l); echo $((n + 1))",
    "c=$(grep -c foo file.txt); (( c > 0 ))", "read count < f; [ \"$count\" -gt 0 ]",
    "read count < f; test \"$count\" -lt 3", "i=0; while [ $i -lt 5 ]; do i=$((i + 1)); done",
    "for i in 1 2 3; do echo $((i * 2)); done", "for i in $(seq 1 10); do echo $((i * 2)); done",
    "for i in {1..5}; do echo ${arr[i]}; done", "(( HOME ))", "echo $(( $(date +%s) - 5 ))",
    "x=5; y=x; (( y ))", "read x < list; echo \"$x\"", "read line < f; echo ${line:0:5}",
    "while read -r line; do [[ ${#line} -gt 80 ]] && echo long; done < f",
    "echo $(( RANDOM % 10 ))", "x=$(cat list); [[ $x == 1 ]]",
    "total=0; for f in *.txt; do n=$(wc -l < \"$f\"); total=$((total + n)); done",
    "rg 'list_books[^_]' src/", "grep -v \"$(cat list)\" f",
    "awk '{c[$1]++} END {for (k in c) print k, c[k]}' f", "n=$(ls | wc -l); (( n ))",
    "while read p; do grep -v \"$p\" f; done < pats"]


@pytest.mark.parametrize("command", KEPT)
def test_numbers_literals_and_the_environment_run_as_before(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command


def test_run_in_auto_mode_runs_no_rm_hidden_in_an_array_subscript(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = run_auto_denying_rm(fake_model, workdir, capsys, [
        "printf 'a[%s(rm -f v1)]' '$' | while read x; do (( x )); done",
        "x=$(printf 'a[%s(rm -f v2)]' '$'); [[ $x -eq 1 ]]",
        "printf 'a[%s(rm -f v3)]' '$' | { read x; test -v \"$x\"; }"])
    assert "evaluates" in err


NAMED_ONLY = ["read x < list; [[ -v x ]] && echo set", "read x < list; [ -v x ]",
              "read x < list; test -v x", "x=$(cat list); [[ -v x ]]",
              "read -r x < list; [[ -v x && -n $x ]]", "read x < list; [[ -v HOME ]]"]
"""``-v NAME`` asks whether NAME is set: bash never evaluates NAME's value (sh23)."""


@pytest.mark.parametrize("command", NAMED_ONLY)
def test_a_v_test_of_a_plain_name_runs_and_bash_runs_nothing_of_its_value(
        command: str, tmp_path: Path) -> None:
    (tmp_path / "list").write_text("a[$(rm victim)]\n")
    (tmp_path / "victim").write_text("keep")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10,
                   stdin=subprocess.DEVNULL, check=False)
    assert (tmp_path / "victim").exists(), command
    assert action_under_deny_rm(command) == "run", command
