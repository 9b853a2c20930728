"""A git alias given any way git reads one is read as what it stands for (fresh22 git holes).

Under ``--mode auto --deny 'shell(git push*)'`` (README's example) each of these pushed: an
alias set in the environment (``GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p``,
``GIT_CONFIG_PARAMETERS``), an alias of an alias (``git -c alias.a=push -c alias.b=a b``), an
alias a ``git config`` earlier on the line writes (``git config alias.p push && git p``), and
``git push`` behind more than eight option words.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, action

from goosectx.permissions import PermissionRules

DENY_PUSH = PermissionRules(deny=("shell(git push*)",))

PUSHES = [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_VALUE_0=push GIT_CONFIG_KEY_0=alias.p git p",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push; git p",
    "GIT_CONFIG_PARAMETERS=\"'alias.p'='push'\" git p",
    "GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=alias.a GIT_CONFIG_VALUE_0=push "
    "GIT_CONFIG_KEY_1=alias.b GIT_CONFIG_VALUE_1=a git b",
    "git -c alias.a=push -c alias.b=a b", "git -c alias.a=push -c alias.b=a -c alias.c=b c",
    "git -c alias.a='push --force' -c alias.b=a b origin",
    "git -c alias.a=push -c alias.b=a -c alias.c=b -c alias.d=c -c alias.e=d e",
    "git -c a=1 -c b=2 -c c=3 -c d=4 -c e=5 push",
    "git config alias.p push && git p", "git config --global alias.p push; git p",
    "git config set alias.p push; git p", "git config alias.p 'push -f'",
    # an alias of an alias set elsewhere (the environment, a config file): every -c alias counts
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.b GIT_CONFIG_VALUE_0=a git -c alias.a=push b",
    "git config alias.b a; git -c alias.a=push b", "git -c alias.a=push b",
    "git -c 'alias.p=-p push' p", "git -c 'alias.a=--no-pager b' -c alias.b=push a",
    "git config -f .git/config alias.p push; git p", "git config --file ~/.gitconfig alias.p push",
    "git config --type string alias.p push", "git config set --comment c alias.p push",
]


@pytest.mark.parametrize("command", PUSHES)
def test_an_alias_for_push_is_denied(command: str) -> None:
    assert action(DENY_PUSH, command) == "deny", command


def test_an_alias_taken_from_a_variable_is_asked() -> None:
    assert action(DENY_PUSH, "V=push git --config-env=alias.p=V p") == "ask"


@pytest.mark.parametrize("command", [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm f' git x",
    "git -c 'alias.a=!rm f' -c alias.b=a b",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_VALUE_0='rm f' git commit -m y",  # whose key is not shown
])
def test_an_alias_for_a_command_line_is_read(command: str) -> None:
    assert action(DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0='rm f' git commit -m y",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0='rm f' git commit",
    "GIT_CONFIG_PARAMETERS=\"'user.name'='rm f'\" git commit -m y",
])
def test_a_value_of_a_key_that_runs_nothing_is_not_a_command(command: str) -> None:
    assert action(DENY_RM, command) == "run", command


@pytest.mark.parametrize("command", [
    "git -C sub status", "git log --oneline", "git -c user.name=x commit -m y",
    "git config user.email x", "git -c alias.a=status -c alias.b=a b",
    "git -c alias.a=b -c alias.b=a a", "git config alias.st status && git st",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0=status git st",
    "git stash push -m x", "git -c alias.p=push -c alias.p=status p",
])
def test_ordinary_git_still_runs(command: str) -> None:
    assert action(DENY_PUSH, command) == "run", command


@pytest.mark.parametrize("command", [
    "git config include.path /tmp/c; git log", "git config core.hooksPath h; git commit -m x",
    "git config --global protocol.ext.allow always", "git config set --local core.hooksPath h",
    "git config -f .git/config includeIf.onbranch:main.path /tmp/c",
])
def test_a_config_write_that_hides_what_git_runs_is_asked(command: str) -> None:
    # as git -c core.hooksPath=h commit is: a later git runs what the rules cannot read
    assert action(DENY_RM, command) == "ask", command


@pytest.mark.parametrize("command", [
    "git config core.hooksPath /dev/null", "git config --get include.path",
    "git config --unset core.hooksPath",
])
def test_reading_or_clearing_such_a_key_runs(command: str) -> None:
    assert action(DENY_RM, command) == "run", command


@pytest.mark.parametrize(("rules", "command"), [
    (DENY_RM, "GIT_SSH_COMMAND=r GIT_SSH_COMMAND+='m f' git fetch"),
    (DENY_RM, "export GIT_PAGER=r GIT_PAGER+='m f'; git log"),
    (DENY_PUSH, "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias GIT_CONFIG_KEY_0+=.p "
                "GIT_CONFIG_VALUE_0=push git p"),
    (DENY_PUSH, "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=pu "
                "GIT_CONFIG_VALUE_0+=sh git p"),
])
def test_a_value_appended_to_is_read_whole(rules: PermissionRules, command: str) -> None:
    # bash's NAME+=VALUE appends: git gets `rm f`, `alias.p`, `push`
    assert action(rules, command) == "deny", command


@pytest.mark.parametrize(("rules", "command", "verdict"), [
    (DENY_RM, "GIT_PAGER=r; GIT_PAGER+='m f' git log", "ask"),  # the value before: not read
    (DENY_PUSH, "GIT_CONFIG_KEY_0=alias; GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0+=.p "
                "GIT_CONFIG_VALUE_0=push git p", "deny"),  # a key not shown: any alias's
    (DENY_PUSH, "GIT_CONFIG_COUNT=1 GIT_CONFIG_VALUE_0=push git p", "deny"),
])
def test_a_value_appended_to_a_value_set_before_is_not_read_as_known(
        rules: PermissionRules, command: str, verdict: str) -> None:
    assert action(rules, command) == verdict, command
