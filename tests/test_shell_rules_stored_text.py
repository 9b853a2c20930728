"""Shell rules see commands bash runs from text stored elsewhere, or ask about them.

fresh20b findings 2 and 3: a deny rule for ``rm`` let through ``bash -c -- 'rm x'``, prompt
expansion of a stored ``$(rm x)`` (``${x@P}``, ``PS4`` under ``set -x``), ``compgen -C`` /
``mapfile -C`` callbacks and a shell sourcing its commands from standard input or a process
substitution; allow rules for ``printf``, ``read`` and ``echo`` let ``printf -v x '$(rm x)';
echo ${x@P}`` run with no question. Each of these really deletes its file when let through.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm, run_cli
from rules_support import DENY_RM, shell_verdict
from rules_support import action as verdict

from goosectx.permissions import PermissionRules, suggested_rule

ALLOW_PLAIN = PermissionRules(allow=("shell(echo *)", "shell(printf *)", "shell(read *)",
                                     "shell(export *)", "shell(set *)", "shell(true*)",
                                     "shell(ls*)"))


HIDDEN_RMS = [  # {n}: the file each one deletes when bash runs it
    "bash -c -- 'rm -f v{n}'", "bash -c -x 'rm -f v{n}'", "sh -c - 'rm -f v{n}'",
    "x='$(rm -f v{n})'; echo ${x@P}", "x='$(rm -f v{n})'; cat <<EOF\n${x@P}\nEOF",
    "x='$(rm -f v{n})'; : $(( ${x@P} + 0 ))",
    "printf -v x '%s%s' 'a[' '$(rm -f v{n})]'; echo ${!x}",
    "compgen -C 'rm -f v{n}' x", "compgen -W a -C'rm -f v{n}' x",
    "mapfile -tC 'rm -f v{n};:' -c 1 <<< x", "PS4='$(rm -f v{n})'; set -x; :",
    "BASH_ENV='$(rm -f v{n})' bash -c true", ". /dev/stdin <<< 'rm -f v{n}'",
    "printf '%s\\n' 'rm -f v{n}' | source /dev/stdin", "source <(echo rm -f v{n})",
    "source -- /proc/self/fd/0 <<< 'rm -f v{n}'", "bash <(echo rm -f v{n})",
    "bash /dev/fd/3 3<<< 'rm -f v{n}'", "history -s 'rm -f v{n}'; fc -s",
    "python3 /dev/stdin <<< 'import os; os.remove(\"v{n}\")'",
]


def test_run_in_auto_mode_runs_none_of_the_rms_written_in_stored_text(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = [c.replace("{n}", str(i)) for i, c in enumerate(HIDDEN_RMS, 1)]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == len(commands)
    assert all("permission rule" in a or "needs approval" in a for a in answers), answers


def test_allow_rules_for_printf_read_and_echo_do_not_run_a_prompt_expansion(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["printf -v x '%s' '$(rm -f v1)'; echo ${x@P}", "read x <<< '$(rm -f v2)'; "
                "echo ${x@P}", "export PS4='$(rm -f v3)'; set -x; true",
                "printf -v x '%s' '$(rm -f v4)'; echo \"${x@P}\"",
                "printf -v PS4 '%s' '$(rm -f v5)'; set -x; true"]
    for i in range(1, 6):
        (workdir / f"v{i}").write_text("keep")
    fake_model.add(*({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]}
                     for c in commands), {"text": "done"})
    allow = [a for rule in ALLOW_PLAIN.allow for a in ("--allow", rule)]
    code, _out, err = run_cli(capsys, "run", "-t", "go", "--mode", "approve", *allow)
    assert code == 0, err
    assert sorted(p.name for p in workdir.iterdir()) == [f"v{i}" for i in range(1, 6)]
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == 5 and all("needs approval" in a for a in answers), answers


@pytest.mark.parametrize("command", [
    "bash -c -- 'rm x'", "bash -xc -- 'rm x'", "bash -c -o pipefail 'rm x'", "sh -c - 'rm x'",
    "compgen -C 'rm x' w", "complete -C 'rm x' w", "readarray -C 'rm x' a <<< x",
    "builtin eval 'rm x'", "command eval 'rm x'"])
def test_a_command_string_given_to_bash_or_a_builtin_is_matched_as_commands(command: str) -> None:
    assert verdict(DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", [
    "echo ${x@P}", 'echo "${x@P}"', "echo ${!x}", "echo ${!x@P}", "echo ${a[${!x}]}",
    "echo $(( ${x@P} ))", "echo ${x@\\\nP}", "PS4='\\w ' bash -xc ls", "PS4=~ bash -xc ls",
    "env 'PS4=$(x)' bash -xc ls", "printf -v PS4 x", "read PROMPT_COMMAND", "declare -n r=PS4",
    "source /dev/stdin", ". <(ls)", "source //dev/./stdin", ". /proc/$$/fd/0", "bash /dev/stdin", "bash - <<< ls", "fc -s", "fc -e vi 3",
    "bind -x '\"\\C-x\": ls'"])
def test_text_bash_runs_that_the_line_does_not_show_is_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command
    assert verdict(PermissionRules(allow=("shell(*)",)), command, "approve") == "ask", command


@pytest.mark.parametrize("command", [
    "perl -- /dev/fd/0", "python3 <(ls)", "node /dev/stdin", "awk -f /dev/stdin f",
    "gawk --file /dev/fd/3 f", "sed -f /dev/stdin f", "python3 -c \"$(cat x)\"", "perl -e \"$CODE\""])
def test_an_interpreter_reading_its_program_from_a_pipe_or_made_at_run_time_is_asked_about(
        command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command


def test_interpreters_whose_program_is_read_still_run_under_a_deny_rule() -> None:
    for command in ("awk -f prog.awk f", "sed -f script.sed f", "python3 -c 'print(1)' \"$X\"",
                    "perl -e 'print 1'"):
        assert verdict(DENY_RM, command) == "run", command


def test_plain_look_alikes_are_still_read_and_allowed() -> None:
    for command in ("echo ${!a[@]} ${!BASH*} ${x:-y} $PS1", "ls /dev/stdin", "echo PS4x=1"):
        assert verdict(ALLOW_PLAIN, command, "approve") == "run", command
    for command in ("ENV=prod ls", "fc -l", "python3 x.py", "bash script.sh", "compgen -W 'a b' a",
                    "bash -o pipefail -c 'ls'", "bash -x -c ls", "mapfile -t a < f"):
        assert verdict(DENY_RM, command) == "run", command


def test_no_command_prefix_rule_is_offered_for_a_builtin_that_runs_a_command_string() -> None:
    for command in ("compgen -C 'rm x' w", "mapfile -C 'rm x' a", "trap 'rm x' EXIT", "fc -s"):
        assert suggested_rule("shell", {"command": command}) is None, command
    # nor for a plain one: shell(compgen*) would allow `compgen -C 'rm x' w` (issue 18)
    assert suggested_rule("shell", {"command": "compgen -W 'a b' a"}) is None


@pytest.mark.parametrize("command", [
    "grep -rn ENV src", "grep -n BASH_ENV src/a.py", "echo PS1", "cat ENV",
    "echo PS0 PS2 PS4 PROMPT_COMMAND", "X=PS4 ls", "git log -S PS4"])
def test_a_prompt_variable_named_as_a_plain_word_is_no_assignment(command: str) -> None:
    assert verdict(PermissionRules(allow=("shell(*)",)), command, "smart_approve") == "run", command


@pytest.mark.parametrize("command", [
    "for PS4 in x; do set -x; done", "select PS4 in a; do :; done", "getopts ab PS4",
    "wait -p PS4", "command read PS4", "X=1 read -r ENV", "mapfile PS4 < f", "wait -np PS4",
    "local -n r=ENV", "eval read PS4", "bash -c 'read PS4'", "printf -vPS4 x",
    "printf -v PS1 '%s' x", "declare -gn r=PS4", "typeset -n PROMPT_COMMAND"])
def test_a_builtin_that_sets_the_variable_an_operand_names_still_asks(command: str) -> None:
    assert verdict(PermissionRules(allow=("shell(*)",)), command, "smart_approve") == "ask", command


# fresh28 finding 13: under --deny 'shell(rm *)', `declare -p PROMPT_COMMAND` and `typeset -p
# PS1` asked "it sets PS1, whose commands bash runs" (they print it), and so did `export PS4`,
# `declare PS1` and `local PS4`, while `export PS4='+ '` ran. A bare name gives the variable
# no new value: export/readonly/declare -x keep the one it has (goosectx's environment's, or
# one an earlier command of the line set, which is judged itself); local gives an unset copy.
@pytest.mark.parametrize("command", [
    "declare -p PROMPT_COMMAND", "typeset -p PS1", "export PS4", "declare PS1", "local PS4",
    "readonly PS4", "declare -x PS4", "export -n PS4", "declare -p PS0 PS2 ENV BASH_ENV",
    "typeset -f PS1", "printf '%s\n' PS1", "wait PS4", "export PS1; echo ok"])
def test_a_declaration_that_prints_or_keeps_a_prompt_variable_runs(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command
    assert verdict(PermissionRules(allow=("shell(*)",)), command, "smart_approve") == "run", command


def test_a_value_set_before_export_is_still_judged_where_it_is_set() -> None:
    for command in ("PS4='$(rm x)'; export PS4; bash -xc ls", "read PS4; export PS4",
                    "BASH_ENV=./x; export BASH_ENV; bash -c ls"):
        found = shell_verdict(DENY_RM, command)
        assert found.action == "ask", command
        assert "it sets " in found.reason and "export" not in found.reason.split(" in `")[1], (
            command, found.reason)


def test_export_of_a_bare_prompt_variable_runs_in_bash_with_its_old_value(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_auto_denying_rm(fake_model, workdir, capsys, [
        "declare -p PS4; export PS4; bash -xc 'echo traced'"])
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert "+ echo traced" in answers[0] and "needs approval" not in answers[0], answers
