"""A variable holding a command or program that the program after it runs is read as a command.

Before, ``run --mode auto --deny 'shell(rm *)'`` ran ``SHELL='rm f' gdb …``, ``GH_PAGER='rm
f' gh pr list``, ``RSYNC_RSH='rm f' rsync …``, ``FZF_DEFAULT_COMMAND='rm f' fzf`` and
``NODE_OPTIONS='--import=data:…' npm test``: only git's variables (``GIT_PAGER``, ``EDITOR``
…) and less's were read. A variable naming a shell or a plain setting still runs.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    "SHELL='rm f' gdb -batch -ex 'shell ls'", "SHELL=/bin/rm gdb -batch -ex run ./prog",
    "SHELL=rm vim -es -c wq f", "env SHELL=/bin/rm script -c ls", "export SHELL=/bin/rm",
    "GH_PAGER='rm f' gh pr list", "BROWSER='rm f' python3 -m webbrowser x",
    "RSYNC_RSH='rm f' rsync a host:b", "FZF_DEFAULT_COMMAND='rm f' fzf", "AWS_PAGER='rm f' aws s3 ls",
    "SUDO_EDITOR='rm f' sudoedit x", "KUBE_EDITOR='rm f' kubectl edit pod x",
    "PSQL_PAGER='rm f' psql -c 'select 1'", "SUDO_ASKPASS=/bin/rm sudo -A ls",
    "TAR_OPTIONS='--to-command=rm\\ f' tar xf a.tar", "MANOPT='-P rm' man ls",
    # what was read before still is
    "PAGER='rm f' git log", "GIT_PAGER='rm f' git log", "MANPAGER='rm f' man ls",
    "PAGER='rm f' man ls", "EDITOR='rm f' git commit", "VISUAL='rm f' git commit",
])
def test_a_variable_holding_rm_is_denied(command: str) -> None:
    assert action_under_deny_rm(command) == "deny"


@pytest.mark.parametrize("command", [
    "NODE_OPTIONS='--import=data:text/javascript,require(\"child_process\").execSync(\"rm f\")' npm test",
    "PERL5OPT='-Mstrict;system(\"rm f\")' perl x.pl", "export NODE_OPTIONS='--import=data:,x'",
    "PSQLRC=/tmp/x psql -c 'select 1'",
])
def test_code_every_node_or_perl_runs_is_asked(command: str) -> None:
    assert action_under_deny_rm(command) == "ask"


@pytest.mark.parametrize("command", [
    "SHELL=/bin/bash tmux", "SHELL=/usr/bin/zsh script -qc ls", "SHELL=$(which bash) tmux",
    "GH_PAGER=cat gh pr list", "AWS_PAGER='' aws s3 ls", "PAGER=cat git log",
    "BROWSER=firefox python3 -m webbrowser x", "NODE_OPTIONS=--max-old-space-size=4096 npm run build",
    "PERL5OPT=-MDevel::Cover prove -l", "TAR_OPTIONS=-v tar xf a.tar", "MANOPT=-a man ls", "LESS=-R less x", "MORE=-d more x", "GIT_EDITOR=true git commit", "FZF_DEFAULT_COMMAND='fd -t f' fzf",
])
def test_a_plain_setting_still_runs(command: str) -> None:
    assert action_under_deny_rm(command) == "run"


@pytest.mark.parametrize("command", ["LESS='+!rm f' less x", "LESS=$'+!rm f\\n' less x",
                                     "MORE='+!rm f' more x", "export MORE='+!rm f'; more x"])
def test_less_commands_given_in_its_variable_are_asked_as_on_its_command_line(command: str) -> None:
    assert action_under_deny_rm(command) == action_under_deny_rm("less '+!rm f' x") == "ask"
