"""Array literals and plain prompt values run under a deny rule; what they could run does not.

fresh20c finding 1: with ``--mode auto --deny 'shell(rm *)'``, ``arr=(1 2 3)``, ``declare -a
a=(x y)``, ``local -a x=(a b)`` and ``files=(*.py)`` were denied in ``run`` (the list was read
as a subshell inside a command), while ``FOO=bar`` ran. Finding 6: ``PS4='+ ' bash -x
./build.sh`` and ``export PS1='> '`` were asked about although a plain-text prompt runs
nothing when bash expands it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm, run_cli
from rules_support import action_under_deny_rm as verdict


def test_run_under_a_deny_rule_runs_array_assignments_and_plain_prompts(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "a.txt").write_text("x")
    (workdir / "b.txt").write_text("x")
    commands = {'arr=(1 2 3); echo "sum $((arr[0] + arr[1] + arr[2]))"': "sum 6",
                'declare -a a=(x "y z"); echo "second ${a[1]}"': "second y z",
                'files=(*.txt); echo "found ${#files[@]}"': "found 2",
                "PS4='+ ' bash -xc 'echo traced'": "+ echo traced",
                "export PS1='> '; echo prompt set": "prompt set"}
    fake_model.add(*({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]}
                     for c in commands), {"text": "done"})
    code, _out, err = run_cli(capsys, "run", "-t", "go", "--mode", "auto",
                              "--deny", "shell(rm *)")
    assert code == 0, err
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == len(commands)
    for answer, expected in zip(answers, commands.values(), strict=True):
        assert expected in answer, answers


@pytest.mark.parametrize("command", [
    "arr=(1 2 3)", "declare -a arr=(1 2 3)", "local -a x=(a b)", "files=(*.py)", "a+=(x)",
    "typeset -a t=(1)", "export a=(1 2)", "readonly r=(1)", "declare -A m=([k]=v [j]='a b')",
    "a=(1 2) b=3 ls", "a=(\n  one # a comment\n  two\n)", "if true; then a=(x); fi",
    "declare -a a=($(ls))", "PS4='+ ' bash -x ./build.sh", "export PS1='> '",
    "PS1='(venv) > '", "declare -x PS0='' PS2='... '", "ENV=prod ls"])
def test_it_runs_like_foo_equals_bar(command: str) -> None:
    assert verdict(command) == "run", command


@pytest.mark.parametrize("command", [
    "a=($(rm x))", "a=(`rm x`)", "a=(<(rm x))", "a=(x) rm y", "a=(1 2) && rm x",
    "a=(x;rm y)", "a[0]=(rm x)", "echo a=(rm x)", "builtin declare a=(rm x)"])
def test_the_commands_inside_or_after_it_are_still_denied(command: str) -> None:
    assert verdict(command) == "deny", command


@pytest.mark.parametrize("command", [
    "PS4=($(ls))", "PS4=(x)", "PROMPT_COMMAND=(ls)", "declare -a PS1=(x)", "BASH_ENV=(x)",
    "BASH_CMDS=([ls]=/bin/rm)", "BASH_ALIASES=([ls]='rm -f')", "a=([$(ls)]=1)",
    "a=('a[$(rm x)]')", "a=(x", "a=(x)ls rm y", "PS1='\\u@\\h> '", "PS4=$X bash -x b",
    "PS4='`ls`' bash -x b", "PS1=~ bash -i", "PROMPT_COMMAND='ls'", "BASH_ENV=./x bash -c ls",
    "export PS1=$'\\t'"])
def test_what_bash_may_run_from_it_is_still_asked_about(command: str) -> None:
    assert verdict(command) == "ask", command


# corpus21: an assignment with no command word was asked about as "its program is named at
# run time" (LATEST=$(curl … | jq …), PATH="$HOME/.local/bin:$PATH" && uv sync), while
# `export FOO=$(ls)` and `declare -a a=($(ls))` ran. It runs no program but the commands of
# its substitutions, which are matched as parts of their own.
def test_run_under_a_deny_rule_runs_a_bare_assignment_of_a_computed_value(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = {'LATEST=$(echo v1.2 | tr -d v); echo "latest $LATEST"': "latest 1.2",
                'PATH="$HOME/bin:$PATH" && echo path set': "path set",
                'a=($(echo x y)); echo "count ${#a[@]}"': "count 2"}
    fake_model.add(*({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]}
                     for c in commands), {"text": "done"})
    code, _out, err = run_cli(capsys, "run", "-t", "go", "--mode", "auto",
                              "--deny", "shell(rm *)")
    assert code == 0, err
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == len(commands)
    for answer, expected in zip(answers, commands.values(), strict=True):
        assert expected in answer, answers


@pytest.mark.parametrize("command", [
    "FOO=$X", "X=${Y:-z}", "LATEST=$(curl -s https://x/y | jq -r .tag)", "a=($(ls))",
    'PATH="$HOME/.local/bin:$PATH" && uv sync', "X=`date` Y=$(pwd)", "X=*", "X={a,b}",
    "a[0]=$x", "PYTHONPATH=$PWD python -m pytest", "CC=$(which gcc) make -j4",
    "then X=$Y; fi", "bash -c 'X=$Y'"])
def test_an_assignment_of_a_computed_value_runs_like_export(command: str) -> None:
    assert verdict(command) == "run", command


@pytest.mark.parametrize("command", ["X=$(rm -rf y)", "X=`rm y`", "X=$Y rm z", "a=($(rm x))"])
def test_the_commands_it_computes_or_runs_are_still_denied(command: str) -> None:
    assert verdict(command) == "deny", command


@pytest.mark.parametrize("command", [
    "X=$Y $Z", "X=$(ls) $Z x", "PS1=$X", "PS4=$X bash -x b", "PROMPT_COMMAND=$X",
    "BASH_ENV=$X bash -c ls", "ENV=$X", "BASH_ALIASES[ls]=rm", "BASH_CMDS[ls]=$X",
    "BASH_ALIASES=$X", "declare BASH_CMDS[ls]=/bin/true", 'eval "X=$Y"', 'bash -c "X=$Y"',
    'ssh host "X=$Y"', "a[$x]=1", "a[`ls`]=1", "command X=$Y ls", "exec X=$Y",
    "find . -exec X=$Y {} ;"])
def test_what_it_may_run_is_still_asked_about(command: str) -> None:
    assert verdict(command) == "ask", command


# fresh21 finding 5: bash evaluates a declaration builtin's QUOTED `(…)` value as an array
# assignment (declare -a a='($(rm f))' runs rm: checked with real bash 5.2), and the rules let
# it through under --mode auto --deny 'shell(rm *)'.
def test_run_keeps_the_files_a_quoted_array_value_of_declare_would_remove(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["declare -a a='($(rm -f v1))'", 'declare -a "a=(\\$(rm -f v2))"',
                'typeset -a a="(\\`rm -f v3\\`)"', "readonly -a r='($(rm -f v4))'",
                "declare -ia n='(1+$(rm -f v5))'", "declare -A m='([k]=$(rm -f v6))'",
                "a=(); declare a='($(rm -f v7))'", "x='($(rm -f v8))'; declare -ga a=$x"]
    err = run_auto_denying_rm(fake_model, workdir, capsys, commands)
    assert err.count("evaluates") >= len(commands) - 1, err


@pytest.mark.parametrize("command", [
    "declare -a a='($(rm x))'", "declare -a a=\\(\\$\\(rm\\ x\\)\\)", "declare -g -a a='(`rm x`)'",
    "export -a a='($(rm x))'", "declare -x -a a='(<(rm x))'", "declare -a a+='($(rm x))'",
    "declare -a 'a=($(rm x))'", "declare -a -- a='($(rm x))'", "command declare -a a='($(rm x))'",
    "builtin typeset -a a='($(rm x))'", "command -p declare -a a='($(rm x))'",
    "builtin -- declare -a a='($(rm x))'", "local a='( $(rm x) )'", "declare -a a=$'(\\x24(rm x))'",
    "declare -a a=\"$x\""])
def test_a_quoted_array_value_that_can_run_a_command_is_asked_about(command: str) -> None:
    assert verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "declare -a a='(x y)'", "declare -A m='([k]=v)'", "local x=$1", "local dir=\"$(pwd)\"",
    "declare -x FOO=$BAR", "local -a arr=(\"$@\")", "declare -a a=()", "declare a=' ($x)'",
    "export PATH=\"$HOME/bin:$PATH\""])
def test_other_declarations_still_run(command: str) -> None:
    assert verdict(command) == "run", command


# review21 finding 7: `declare -n PS4=R` makes PS4 a nameref, so bash expands R's value as the
# prompt: `declare -n PS4=R; R='$(rm -rf y)'; set -x; :` ran under --deny 'shell(rm *)' (its
# word PS4=R looks plain), and real bash runs the rm.
def test_run_asks_about_a_prompt_variable_made_a_nameref(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["declare -n PS4=R; R='$(rm -f v1)'; set -x; :",
                "R='$(rm -f v2)'; typeset -gn PS4=R; set -x; :"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert ["needs approval" in a for a in answers] == [True, True], answers


@pytest.mark.parametrize("command", [
    "declare -n PS4=R", "typeset -n PS1=x", "local -n PROMPT_COMMAND=c", "declare -gn PS0=p",
    "declare -rn BASH_ENV=b", "declare -n ENV=e", "declare -n -- PS2=p",
    "declare -n PS4", "command declare -n PS4=R", "declare -n BASH_CMDS=c",
    "declare -i -n BASH_ALIASES=a", "declare -n r=x PS4='+ '"])
def test_a_prompt_or_startup_variable_made_a_nameref_is_asked_about(command: str) -> None:
    assert verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "declare -n ref=arr", "local -n out=result", "declare PS4='+ '", "typeset -r PS1='> '",
    "declare +n PS1='> '", "declare -n PS3=p"])
def test_other_namerefs_and_plain_prompts_still_run(command: str) -> None:
    assert verdict(command) == "run", command
