"""No ``p`` rule for a program that runs what its arguments say (issue 18).

``shell(tar*)``, offered at the question of a harmless ``tar -tf x.tar``, allowed ``tar -xf
x.tar --to-command='rm victim'`` unasked. Every program the shell reading knows to run a
command, a program or code given in its arguments (its tables, walked here) gets no rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rules_support import action
from test_repl import CTRL_D, ENTER, World

from goosectx import (
    shell_builtins,
    shell_databases,
    shell_git,
    shell_jobs,
    shell_languages,
    shell_multicall,
    shell_options,
    shell_pagers,
    shell_runners,
    shell_terminals,
    shell_transfers,
    shell_unwrap,
    shell_variables,
    shell_wrappers,
)
from goosectx.permissions import PermissionRules
from goosectx.providers.scripted import ScriptedReply
from goosectx.rule_offer import suggested_rule


def _offered(command: str) -> str | None:
    return suggested_rule("shell", {"command": command})


def _programs() -> set[str]:
    """Every program a table of the shell reading lists as running what it is given."""
    runners = shell_runners
    found = (shell_builtins.SHELLS | shell_languages.COMMAND_LANGUAGES
             | shell_multicall.MULTICALL | shell_unwrap.WRAPPERS.keys()
             | shell_wrappers.STARTERS | shell_wrappers.FD | shell_terminals.TERMINALS
             | (runners.RUNNERS - runners.SUBCOMMAND_RUNNERS.keys())
             | (runners.LINE_RUNNERS - runners.SUBCOMMAND_RUNNERS.keys()) | set(runners.SU_LIKE)
             | runners._LINE_OPTIONS.keys() | runners._FILE_PROGRAMS.keys() | runners._AWK
             | runners._CODE_FLAGS.keys() | shell_options.COMMAND_OPTIONS.keys()
             | shell_options.PROGRAM_OPTIONS.keys() | shell_pagers.PAGERS
             | shell_databases.DATABASES | shell_transfers._VALUED.keys()
             | shell_jobs._VALUED.keys() | set(shell_variables.OPTION_VARIABLES.values())
             | shell_builtins._OPTION_VALUED.keys())
    return set(found) | {"gdb-multiarch", "cuda-gdb", "tclsh8.6", "wish", "jimsh", "ed", "red",
                         "vim", "nvim", "vi", "ex", "rview", "mongosh", "less", "man", "python3.12"}


def test_the_walk_finds_the_programs_of_issue_18() -> None:
    assert {"tar", "rsync", "zip", "sort", "man", "make", "sed", "scp", "less", "at"} <= _programs()


@pytest.mark.parametrize("program", sorted(_programs()))
def test_no_rule_is_offered_for_a_program_that_runs_what_it_is_given(program: str) -> None:
    assert _offered(f"{program} x") is None
    assert _offered(f"/usr/bin/{program} x") is None


@pytest.mark.parametrize("command", [
    "tar -tf x.tar", "make -j4 test", "gcc -c x.c", "x86_64-linux-gnu-gcc-12 -c x.c",
    "clang++ x.cc", "cargo build", "go test ./...", "npm test", "pip install -e .",
    "cmake -S . -B build", "apt-get install x", "dpkg -i x.deb", "ssh-agent bash",
    "docker --help", "git"])
def test_no_rule_for_build_tools_and_package_managers(command: str) -> None:
    assert _offered(command) is None


def test_git_subcommands_that_run_a_command_get_no_rule() -> None:
    for sub in {*shell_git._SUB_LONGS, *shell_git._SUB_SHORTS, "fetch", "pull", "push",
                "ls-remote", "archive", "config", "submodule", "bisect", "filter-branch"}:
        assert _offered(f"git {sub} x") is None, sub
    assert _offered("git status --short") == "shell(git status*)"
    assert _offered("git log --oneline") == "shell(git log --oneline)"


def test_a_harmless_program_is_still_offered_its_rule() -> None:
    assert _offered("ls -la") == "shell(ls*)"
    assert _offered("pytest -q tests/") == "shell(pytest*)"
    assert _offered("cat notes.txt") == "shell(cat*)"
    assert _offered("docker ps -a") == "shell(docker ps*)"


def test_the_rule_offered_for_tar_would_have_run_its_command() -> None:
    # Why no rule: an allow rule matches words only, so shell(tar*) covers --to-command.
    tar = PermissionRules(allow=("shell(tar*)",))
    assert action(tar, "tar -xf x.tar --to-command='rm victim'", "approve") == "run"
    assert _offered("tar -tf x.tar") is None


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_the_question_after_tar_offers_no_p_and_after_ls_it_does(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "tar -tf x.tar"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "ls"})]), "done")
    out = world.run("go" + ENTER + "p" + "y" + ENTER + "p" + CTRL_D)  # p is no answer to tar
    assert "always allow shell(tar" not in out
    assert out.count("shell: always allow shell(ls*) (until you exit)") == 1
    assert world.repl.agent.rules.allow == ("shell(ls*)",)


@pytest.mark.parametrize(("command", "exact"), [
    ("git log --oneline -5", "shell(git log --oneline -5)"),
    ("git diff", "shell(git diff)"), ("git show HEAD", "shell(git show HEAD)"),
    ("git format-patch -1", "shell(git format-patch -1)"),
    ("git shortlog -sn", "shell(git shortlog -sn)"), ("git stash list", "shell(git stash list)"),
    ("git blame x.py", "shell(git blame x.py)"), ("git rev-list HEAD", "shell(git rev-list HEAD)")])
def test_git_that_writes_a_file_through_its_options_is_offered_only_the_command(
        command: str, exact: str) -> None:
    # shell(git log*) allowed `git log -1 --output=$HOME/.bashrc`: the rule cannot grow now.
    assert _offered(command) == exact
    rules = PermissionRules(allow=(exact,))
    assert action(rules, command, "approve") == "run"
    assert action(rules, f"{command} --output=/home/u/.bashrc", "approve") == "ask"


def test_no_exact_rule_for_words_a_rule_cannot_spell() -> None:
    assert _offered("git log --format='%h %s'") is None  # a blank inside a word
    assert _offered("git diff 'src/*.py'") is None  # a glob character would match more


def test_a_saved_git_log_rule_is_still_honoured_as_written() -> None:
    rules = PermissionRules(allow=("shell(git log*)",))
    assert action(rules, "git log -1 --output=out.txt", "approve") == "run"


@pytest.mark.parametrize(("command", "exact"), [
    ("uv pip list", "shell(uv pip list)"), ("uv tool list", "shell(uv tool list)"),
    ("uv sync --frozen", "shell(uv sync --frozen)"), ("uv tree", "shell(uv tree)")])
def test_uv_is_offered_only_the_command(command: str, exact: str) -> None:
    # shell(uv pip*) allowed `uv pip install URL` (its build code), shell(uv tool*) `uv tool
    # run CMD`, and every uv command takes `--python PATH`, a program uv runs.
    assert _offered(command) == exact
    rules = PermissionRules(allow=(exact,))
    assert action(rules, command, "approve") == "run"
    assert action(rules, f"{command} --python /tmp/evil", "approve") == "ask"
    assert _offered("uv run pytest -q") == "shell(uv run pytest*)"


def test_harmless_git_subcommands_keep_their_prefix_rule() -> None:
    assert _offered("git status --short") == "shell(git status*)"
    assert _offered("git branch -a") == "shell(git branch*)"


@pytest.mark.parametrize(("command", "exact"), [
    ("poetry self show", "shell(poetry self show)"), ("poetry env info", "shell(poetry env info)"),
    ("poetry add requests", "shell(poetry add requests)"), ("pipenv graph", "shell(pipenv graph)")])
def test_poetry_and_pipenv_are_offered_only_the_command(command: str, exact: str) -> None:
    # shell(poetry self*) allowed `poetry self add URL` (a plugin's code, in every poetry
    # command), shell(poetry env*) `poetry env use PATH` (a program poetry runs), shell(poetry
    # add*) `poetry add URL` (its build code), pipenv any command `--python PATH`.
    assert _offered(command) == exact
    assert _offered("poetry run pytest -q") == "shell(poetry run pytest*)"
