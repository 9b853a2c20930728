"""A variable the command line sets, expanded in a string bash parses again, is code.

fix21f: under ``--deny 'shell(rm *)'`` ``Y='x; rm f'; eval "echo $Y"`` and ``D='. && rm f';
bash -c "cd $D && make"`` ran ``rm``: the outer bash puts the value into the text that eval
(``bash -c``, ``ssh``, ``xargs sh -c`` …) parses, so the value the line wrote is code the
rules did not read. Each asked case really deletes its file in bash; each kept case does not
(a value from the environment, or a single-quoted string the inner shell expands as a value).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import DENY_RM
from rules_support import action as verdict

from goosectx.permissions import PermissionRules

ALLOW_EVERYDAY = PermissionRules(allow=tuple(f"shell({p})" for p in (
    "cd *", "make*", "eval *", "bash *", "sh *", "echo *", "ssh *", "xargs *", "for *", "do *",
    "done", "read *", "ssh-agent *", "printf *", "Y=*", "D=*", "export *", "ls*")))


HIDDEN = [
    "Y='x; rm f'; eval \"echo $Y\"", "D='. && rm f'; bash -c \"cd $D && make\"",
    "read -r Y <<< 'x; rm f'; eval \"echo $Y\"", "for Y in 'x; rm f'; do eval \"echo $Y\"; done",
    "printf -v Y %s 'x; rm f'; sh -c \"echo $Y\"", "declare Y='x; rm f'; eval \"echo $Y\"",
    "mapfile -t A <<< 'x; rm f'; eval \"echo ${A[0]}\"", "set -- 'x; rm f'; eval \"echo $1\"",
    "Y='x; rm f'; echo a | xargs sh -c \"echo $Y\"", "Y='x; rm f'; eval echo $Y",
    "bash -c 'Y=\"x; rm f\"; eval \"echo $Y\"'", "getopts a: o -a 'x; rm f'; eval \"echo $OPTARG\"",
    "declare -n R=Y; Y='x; rm f'; eval \"echo $R\"", "export Y='x; rm f'; ssh h \"echo $Y\"",
    "local Y='x; rm f'; su -c \"echo $Y\"", "Y='x; rm f'; tmux new \"echo $Y\"",
    "Y='x; rm f'; timeout 5 sudo bash -c \"echo ${Y}\"",
    # a default value written in the line is put into the text the same way
    "eval \"echo ${Y:-x; rm f}\"", "bash -c \"echo ${Y-x && rm f}\"",
    "bash -c \"echo ${Y:+x; rm f}\"", "eval \"echo ${HOME/#/x; rm f; }\"",
    # set in the string itself, but before it is put together again (a loop) or outside too
    "for i in 1 2; do eval \"Y='x; rm f'; echo $Y\"; done", "Y='x; rm f'; bash -c \"Y=1; echo $Y\"",
    "eval \"Y='x; rm f'; echo $Y\"; eval \"Y='x; rm f'; echo $Y\"",
    # a name joined to its option, or quoted before its `=`
    "printf -vY %s 'x; rm f'; eval \"echo $Y\"", "read -raA <<< 'x; rm f'; eval \"echo ${A[*]}\"",
    "eval 'Y'=\\\"'x; rm f'\\\"; eval \"echo $Y\"",
    # values bash itself sets from the line's text
    "[[ 'x; rm f' =~ (.*) ]]; eval \"echo ${BASH_REMATCH[1]}\"", "echo 'x; rm f'; eval \"echo $_\"",
    "cd 'a; rm f'; eval \"cd ..; echo $PWD\"", "pushd 'a; rm f'; eval \"echo ${DIRSTACK[0]}\""]


@pytest.mark.parametrize("command", HIDDEN)
def test_a_value_the_line_sets_expanded_in_a_reparsed_string_is_asked(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command
    assert verdict(ALLOW_EVERYDAY, command, "approve") == "ask", command


KEPT = [  # a value from the environment, or one the inner shell expands as a value (`ls`, not
    # `make`, after such a cd: make runs the build file of a dir not known here, which asks);
    # an exported value naming rm is the deny backstop's (tests/test_deny_backstop.py)
    "bash -c \"cd $HOME && ls\"", "Y='x; rm f'; bash -c 'echo $Y'",
    "Y='x; ls f'; export Y; bash -c 'echo $Y'", "ssh h \"ls $REMOTE_DIR\"",
    "for f in *.c; do echo \"$f\"; done", "Y=1; eval \"echo \\$Y\"",
    "read -r Y; echo \"$Y\"", "D=build; cd \"$D\" && ls",
    "bash -c \"cd ${DIR:-.} && ls\"", "bash -c \"for f in $DIR/*; do echo \\$f; done\"",
    "ssh h \"ls ${REMOTE_DIR:-/srv}\"",
    "eval \"echo ${Y:-$(date)}\"", "bash -c \"cd ${HOME%/} && ls\""]


@pytest.mark.parametrize("command", KEPT)
def test_a_value_not_reparsed_or_not_set_by_the_line_runs_as_before(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


def test_eval_of_ssh_agent_output_is_read_as_before() -> None:
    assert verdict(DENY_RM, 'eval "$(ssh-agent -s)"') == "ask"  # its program is computed


def test_run_in_auto_mode_runs_no_rm_hidden_in_a_variable(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_auto_denying_rm(fake_model, workdir, capsys, [
        "Y='x; rm -f v1'; eval \"echo $Y\"", "D='. && rm -f v2'; bash -c \"cd $D && true\"",
        "read -r Y <<< 'x; rm -f v3'; eval \"echo $Y\"",
        "for Y in 'x; rm -f v4'; do sh -c \"echo $Y\"; done"])


def test_long_strings_are_read_in_one_pass() -> None:
    """A ``${`` never closed, repeated, took seconds (a regex backtracking); a long option
    cluster before the name (``read -rrr…A``) still sets a name."""
    started = time.monotonic()
    assert verdict(DENY_RM, 'eval "echo ' + "${a" * 20000 + '"') == "ask"
    assert verdict(DENY_RM, "read -" + "r" * 100 + "A <<< 'x; rm f'; eval \"echo $A\"") == "ask"
    assert time.monotonic() - started < 2
