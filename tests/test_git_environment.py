"""git's environment is judged as the options and redirections it mirrors.

approval round 11 HIGH 2: ``GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit`` (also
with ``export``) ran while ``git --work-tree=.git …`` asked; ``GIT_COMMON_DIR=/tmp/evil git
status`` ran while ``GIT_DIR=`` asked (its config's core.fsmonitor ran); ``GIT_TRACE=$PWD/.git/
config git status`` appended to the config and ``GIT_TRACE=<site-packages>/zz.pth`` planted a
.pth file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_protected_line_variables import PTH, venv_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a virtualenv."""
    return venv_project(tmp_path)


def _asked(work: Path, command: str) -> str:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert verdict.action == "ask", (command, verdict.reason)
    return verdict.reason


@pytest.mark.parametrize("command", [
    "GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit",
    "export GIT_WORK_TREE=.git; git checkout -f -- hooks/pre-commit",
    "env GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit",
    "env -u X GIT_WORK_TREE=.git git checkout -f -- hooks/pre-commit",
    "sudo -u root GIT_WORK_TREE=.git git checkout -- hooks/pre-commit",
])
def test_a_work_tree_in_the_git_directory_asks_as_the_option_does(project: Path,
                                                                   command: str) -> None:
    assert _asked(project, command).startswith(
        "it sets GIT_WORK_TREE, as git --work-tree: git writes into the git directory .git")


@pytest.mark.parametrize("command", [
    "GIT_COMMON_DIR=/tmp/evil git status", "export GIT_COMMON_DIR=/tmp/evil; git status"])
def test_another_common_dir_asks_as_another_git_dir_does(project: Path, command: str) -> None:
    assert _asked(project, command).startswith(
        "it sets GIT_COMMON_DIR, which names a repository whose config git reads")


@pytest.mark.parametrize(("command", "said"), [
    ("GIT_TRACE=$PWD/.git/config git status", "it sets GIT_TRACE, whose trace git appends to "
                                              "$PWD/.git/config: git writes $PWD/.git/config"),
    ("GIT_TRACE=.git/config git status", "it sets GIT_TRACE, whose trace"),
    ("export GIT_TRACE_PACKET=$PWD/.git/config; git fetch", "it sets GIT_TRACE_PACKET"),
    ("GIT_TRACE2_EVENT=.git/hooks/pre-commit git status", "it sets GIT_TRACE2_EVENT"),
    (f"GIT_TRACE_BARE=1 GIT_TRACE=$PWD/{PTH}/zz.pth git status", "it sets GIT_TRACE, whose"),
])
def test_a_trace_file_where_a_later_command_runs_asks(project: Path, command: str,
                                                      said: str) -> None:
    assert _asked(project, command).startswith(said)


def test_the_absolute_path_of_the_project_s_site_packages_asks(project: Path) -> None:
    assert "virtualenv" in _asked(project, f"GIT_TRACE={project}/{PTH}/zz.pth git status")


@pytest.mark.parametrize("command", [
    "GIT_TRACE=1 git status", "GIT_TRACE=2 git log", "GIT_TRACE=true git status",
    "GIT_TRACE=/tmp/git-trace.log git status", "GIT_WORK_TREE=. git status",
    "GIT_COMMON_DIR=.git git status", "git status",
])
def test_harmless_git_environments_still_run(project: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"


@pytest.mark.parametrize(("command", "expected"), [
    ("GIT_CONFIG_GLOBAL=/tmp/c git status", "ask"), ("GIT_CONFIG_SYSTEM=/tmp/c git status", "ask"),
    ("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='h'\" git status", "ask"),
    ("GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='rm -rf src'\" git status", "deny"),
    ("GIT_EXEC_PATH=/tmp/x git status", "ask"), ("GIT_SSH_COMMAND='rm -rf src' git fetch", "deny"),
    ("GIT_EDITOR='rm -rf src' git commit", "deny"), ("GIT_PAGER='rm -rf src' git log", "deny"),
    ("export GIT_EXTERNAL_DIFF='rm -rf src'; git diff", "deny"),
])
def test_variables_naming_config_or_commands_ask_or_deny(project: Path, command: str,
                                                         expected: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == expected


# approval round 31: git_environment re-read env's and sudo's words with a walker of its own
# that stopped at `--user root` (`sudo --user root GIT_WORK_TREE=.git git …` ran under a deny
# rule); the runners' one walker (shell_unwrap.handed) reads them now.
RUNNER_FORMS = [
    "sudo --user root", "sudo --user=root", "sudo -u root", "sudo -Eu root", "sudo -E",
    "sudo --preserve-env=PATH", "sudo --preserve-env", "sudo -h host", "sudo -g wheel -u root",
    "sudo --", "env", "env -i", "env -u X", "env --unset X", "env --unset=X", "env --",
    "env -C .", "env -", "env --ignore-environment", "doas", "doas -u root",
    "run0 --user root", "nice -n 5 sudo --user root", "nice -n 5 env", "timeout 5 env -u X",
    "timeout 5 sudo -u root", "nohup sudo --user root", "command env", "exec -a x env",
    "stdbuf -o0 env", "ionice -c 2 env", "setsid sudo --user root", "setsid env", "sudo env",
    "sudo --user root env --unset X", "xargs env", "flock /tmp/l env",
]


@pytest.mark.parametrize("runner", RUNNER_FORMS)
def test_a_work_tree_handed_on_by_any_runner_form_asks(project: Path, runner: str) -> None:
    assert _asked(project, f"{runner} GIT_WORK_TREE=.git git checkout -- hooks/pre-commit"
                  ).startswith("it sets GIT_WORK_TREE, as git --work-tree: git writes into")


@pytest.mark.parametrize("runner", [*RUNNER_FORMS, "run0 --setenv=GIT_TRACE=.git/config",
                                    "systemd-run -E GIT_TRACE=.git/config"])
def test_a_trace_file_handed_on_by_any_runner_form_asks(project: Path, runner: str) -> None:
    handed = "" if "GIT_TRACE" in runner else "GIT_TRACE=.git/config "
    assert _asked(project, f"{runner} {handed}git status").startswith(
        "it sets GIT_TRACE, whose trace git appends to .git/config")


@pytest.mark.parametrize("runner", ["chrt 5 env", "chrt -f 5 env", "taskset 1 env",
                                    "taskset -c 0 env"])
def test_a_work_tree_after_a_runner_with_a_positional_asks(project: Path, runner: str) -> None:
    _asked(project, f"{runner} GIT_WORK_TREE=.git git checkout -- hooks/pre-commit")


@pytest.mark.parametrize("command", [
    "sudo --user root git status", "sudo --user root GIT_WORK_TREE=. git status",
    "env -u X GIT_TRACE=1 git status", "nice -n 5 git status", "timeout 5 git log",
    "run0 --setenv=FOO=1 git status", "env -i PATH=/usr/bin git status",
    "sudo -Eu root GIT_TRACE=/tmp/t.log git status", "doas -u root git status",
])
def test_runners_handing_harmless_variables_to_git_still_run(project: Path,
                                                             command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"


@pytest.mark.parametrize("command", [
    "sudo -u root GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=rm git log",
    "env --unset X GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=rm git log",
    "env -C /tmp GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=rm git log",
    "doas GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=rm git log",
    "sudo GIT_CONFIG_PARAMETERS=\"'core.pager'='rm'\" git log",
    "sudo --user root GIT_PAGER='rm -rf src' git log", "run0 --setenv=GIT_SSH=rm git fetch",
    "systemd-run --setenv=GIT_SSH=rm git fetch", "systemd-run -E GIT_SSH=rm git fetch",
])
def test_a_command_variable_a_runner_hands_git_is_judged_by_the_rules(project: Path,
                                                                      command: str) -> None:
    """These ran: only env's leading NAME=VALUE words and a command's own were read as lines."""
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "deny"


# approval round 31: GIT_INDEX_FILE and GIT_OBJECT_DIRECTORY name the file and dir git writes;
# `GIT_INDEX_FILE=<site-packages>/zz.pth git add 'NAME'` ran under a deny rule (the index
# holds the names it was given, one of which may start a .pth line with `import`).
@pytest.mark.parametrize(("command", "said"), [
    ("GIT_INDEX_FILE=.git/hooks/pre-commit git add x",
     "it sets GIT_INDEX_FILE: git writes its index to .git/hooks/pre-commit: a hook is"),
    ("GIT_INDEX_FILE=.git/config git status",
     "it sets GIT_INDEX_FILE: git writes its index to .git/config: git config may set"),
    (f"GIT_INDEX_FILE={PTH}/zz.pth git add x",
     f"it sets GIT_INDEX_FILE: git writes its index to {PTH}/zz.pth in the virtualenv"),
    (f"GIT_INDEX_FILE=$PWD/{PTH}/zz.pth git add x", "it sets GIT_INDEX_FILE: git writes its"),
    ("export GIT_INDEX_FILE=node_modules/x/index.js; git add x",
     "it sets GIT_INDEX_FILE: git writes its index to node_modules/x/index.js in node_modules"),
    ("sudo --user root GIT_INDEX_FILE=.git/config git add x", "it sets GIT_INDEX_FILE"),
    ("env -u X GIT_INDEX_FILE=.git/config git add x", "it sets GIT_INDEX_FILE"),
    ("bash -c 'GIT_INDEX_FILE=.git/config git add x'", "it sets GIT_INDEX_FILE"),
    ("env -S 'GIT_INDEX_FILE=.git/config git add x'",  # -S's line: no NAME=VALUE word of env's
     "it sets GIT_INDEX_FILE: git writes its index to .git/config: git config"),
    ("sudo sh -c 'GIT_OBJECT_DIRECTORY=.git/hooks git add x'", "it sets GIT_OBJECT_DIRECTORY"),
    ("GIT_INDEX_FILE=.git/index.lock/../config git status",
     "it sets GIT_INDEX_FILE: git writes its index to .git/config"),
    ("GIT_OBJECT_DIRECTORY=.git/hooks git add x",
     "it sets GIT_OBJECT_DIRECTORY: git writes objects into .git/hooks: a hook is"),
    (f"GIT_OBJECT_DIRECTORY={PTH} git add x",
     f"it sets GIT_OBJECT_DIRECTORY: git writes objects into {PTH} in the virtualenv"),
])
def test_an_index_or_object_dir_where_a_later_command_runs_asks(project: Path, command: str,
                                                                said: str) -> None:
    assert _asked(project, command).startswith(said)


@pytest.mark.parametrize("command", [
    "GIT_INDEX_FILE=/tmp/idx git add x", "GIT_INDEX_FILE=.git/index git add x",
    "GIT_INDEX_FILE=.git/index.tmp git read-tree HEAD",
    "GIT_INDEX_FILE=./.git/index.tmp git read-tree HEAD",
    "GIT_INDEX_FILE=$PWD/.git/index.tmp git read-tree HEAD",
    "GIT_INDEX_FILE=$(mktemp) git read-tree HEAD", "tmp=$(mktemp); GIT_INDEX_FILE=$tmp git add -A",
    "GIT_INDEX_FILE=idx git add x", "GIT_OBJECT_DIRECTORY=/tmp/objs git status",
    "GIT_OBJECT_DIRECTORY=.git/objects git status",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES=/tmp/other/objects git status",
    "GIT_TRACE2=af_unix:/tmp/sock git status",
    "GIT_TRACE2_EVENT=af_unix:stream:/tmp/sock git status",
    "GIT_TRACE2_EVENT=af_unix:x/../.git/config git status",
])
def test_git_s_own_places_temporary_files_and_sockets_still_run(project: Path,
                                                               command: str) -> None:
    """git connects to a socket (af_unix:), creating no file; alternates are only read."""
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"


# round 31: a config key bash makes at run time (`git -c "$K=rm"`, GIT_CONFIG_KEY_0=$K) may be
# core.pager or an alias, whose value git runs: those ran under a deny rule.
@pytest.mark.parametrize(("command", "said"), [
    ('git -c "$K=rm" log', "git -c $K: a config key bash makes at run time"),
    ('git -c "core.$X=rm" log', "git -c core.$X: a config key bash makes at run time"),
    ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=$K GIT_CONFIG_VALUE_0=rm git log",
     "it sets GIT_CONFIG_KEY_0 to $K: a config key bash makes at run time"),
    ("sudo --user root GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=$K GIT_CONFIG_VALUE_0=x git log",
     "it sets GIT_CONFIG_KEY_0 to $K"),
    ("GIT_CONFIG_PARAMETERS=\"'$K'='rm'\" git log", "it sets GIT_CONFIG_PARAMETERS to $K"),
])
def test_a_config_key_made_at_run_time_asks(project: Path, command: str, said: str) -> None:
    assert _asked(project, command).startswith(said)


@pytest.mark.parametrize("command", [
    'git -c "user.name=$NAME" commit -m x', "git -c user.email=a@b commit -m x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=$N git commit -m x",
])
def test_a_literal_data_key_with_a_made_value_still_runs(project: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"
