"""No ``p`` prefix rule for a program that runs what its arguments say (issue 18).

``shell(tar*)``, offered at the question of a harmless ``tar -tf x.tar``, allowed ``tar -xf
x.tar --to-command='rm victim'`` unasked. Every program the shell reading knows to run a
command, a program or code given in its arguments (its tables, walked here) gets no prefix
rule: the build, package and cluster tools of ``rule_offer.OFFERS`` the command as it is,
the rest nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rules_support import action
from test_repl import CTRL_D, ENTER, World

from goosectx import (
    line_options,
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
from goosectx.rule_offer import COMPILER, OFFERS, PREFIX_PROGRAMS, suggested_rule


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
             | line_options.LINE_OPTIONS.keys() | runners._FILE_PROGRAMS.keys() | runners._AWK
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
def test_no_prefix_rule_is_offered_for_a_program_that_runs_what_it_is_given(program: str) -> None:
    # None, or for a build or package tool of OFFERS the command as it is: never a `*`.
    for command in (f"{program} x", f"/usr/bin/{program} x"):
        exact = program in OFFERS or COMPILER.fullmatch(program)
        assert _offered(command) == (f"shell({command})" if exact else None)


@pytest.mark.parametrize("command", [
    "tar -tf x.tar", "ssh-agent bash", "docker --help", "docker", "cargo", "git", "npx eslint .",
    "npm exec eslint", "pnpm dlx x", "make --eval=x"])
def test_no_rule_for_a_program_that_runs_anything_or_a_tool_without_its_subcommand(
        command: str) -> None:
    assert _offered(command) is None


@pytest.mark.parametrize("command", [
    "make -j4 test", "make test", "cargo build", "cargo test", "go test ./...", "go run .",
    "npm test", "npm run build", "npm run test:unit", "pnpm install", "yarn build",
    "pip install -e .", "cmake -S . -B build", "apt-get install x", "dpkg -i x.deb",
    "gcc -c x.c", "x86_64-linux-gnu-gcc-12 -c x.c", "clang++ x.cc", "rustc main.rs"])
def test_build_tools_and_package_managers_are_offered_the_command_as_it_is(command: str) -> None:
    # A Makefile, build.rs or package.json script runs any code, and a grown command any
    # program (make CC=…, cargo --config, npm --script-shell): the rule cannot grow.
    rule = f"shell({command})"
    assert _offered(command) == rule
    rules = PermissionRules(allow=(rule,))
    assert action(rules, command, "approve") == "run"
    assert action(rules, f"{command} CC=/tmp/evil", "approve") == "ask"


def test_git_subcommands_that_run_a_command_get_no_rule() -> None:
    for sub in {*shell_git._SUB_LONGS, *shell_git._SUB_SHORTS, "fetch", "pull", "push",
                "ls-remote", "archive", "config", "submodule", "bisect", "filter-branch"}:
        assert _offered(f"git {sub} x") is None, sub
    assert _offered("git status --short") == "shell(git status*)"
    assert _offered("git log --oneline") == "shell(git log --oneline)"


def test_a_harmless_program_is_still_offered_its_rule() -> None:
    assert _offered("ls -la") == "shell(ls*)"
    assert _offered("wc -l notes.txt") == "shell(wc*)"
    assert _offered("cat notes.txt") == "shell(cat*)"
    assert _offered("docker ps -a") == "shell(docker ps*)"


def test_the_rule_offered_for_tar_would_have_run_its_command() -> None:
    # Why no rule: shell(tar*) would be read as covering what --to-command runs. It covers
    # tar only (the command tar runs needs a rule of its own), yet none is offered.
    tar = PermissionRules(allow=("shell(tar*)",))
    assert action(tar, "tar -xf x.tar --to-command='rm victim'", "approve") == "ask"
    assert action(PermissionRules(allow=("shell(tar*)", "shell(rm*)")),
                  "tar -xf x.tar --to-command='rm victim'", "approve") == "run"
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
    assert action(rules, "git log -1 --stat src", "approve") == "run"
    # --output=FILE writes a file: it asks under any rule (option_writes, the fourth tester)
    assert action(rules, "git log -1 --output=out.txt", "approve") == "ask"


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
    assert _offered("uv run pytest -q") == "shell(uv run pytest -q)"  # pytest: OFFERS


@pytest.mark.parametrize(("command", "other"), [
    ("doppler secrets get API_KEY --plain", "doppler secrets delete API_KEY -y"),
    ("op item get login", "op item delete login"), ("op read op://v/i/f", "op read op://v/i/g"),
    ("conda install numpy", "conda install ./evil.tar.bz2"),
    ("ip addr show", "ip addr flush dev eth0"), ("asdf install python", "asdf install evil")])
def test_a_tool_with_a_run_subcommand_is_offered_only_the_command(command: str,
                                                                 other: str) -> None:
    # p at `doppler secrets get` offered shell(doppler secrets*): `doppler secrets delete -y`
    # then ran unasked (test30c); only tools goosectx knows the subcommands of get a prefix.
    offered = _offered(command)
    assert offered == f"shell({command})"
    assert action(PermissionRules(allow=(offered,)), other, "approve") == "ask"


def test_harmless_git_subcommands_keep_their_prefix_rule() -> None:
    assert _offered("git status --short") == "shell(git status*)"
    assert _offered("git rev-parse HEAD") == "shell(git rev-parse*)"
    assert _offered("git ls-files") == "shell(git ls-files*)"


def test_getent_is_offered_only_the_command() -> None:
    # shell(getent*) from `getent passwd` read the password hashes: `getent shadow`.
    assert _offered("getent passwd") == "shell(getent passwd)"


@pytest.mark.parametrize(("command", "exact"), [
    ("poetry self show", "shell(poetry self show)"), ("poetry env info", "shell(poetry env info)"),
    ("poetry add requests", "shell(poetry add requests)"), ("pipenv graph", "shell(pipenv graph)")])
def test_poetry_and_pipenv_are_offered_only_the_command(command: str, exact: str) -> None:
    # shell(poetry self*) allowed `poetry self add URL` (a plugin's code, in every poetry
    # command), shell(poetry env*) `poetry env use PATH` (a program poetry runs), shell(poetry
    # add*) `poetry add URL` (its build code), pipenv any command `--python PATH`.
    assert _offered(command) == exact
    assert _offered("poetry run pytest -q") == "shell(poetry run pytest -q)"


@pytest.mark.parametrize(("command", "offered", "grown"), [
    # docker build runs a Dockerfile's RUN steps: the command as it is, never shell(docker*)
    ("docker build -t app .", "shell(docker build -t app .)", "docker build -f /tmp/Evil ."),
    ("docker compose up", "shell(docker compose up)", "docker compose up -f /tmp/evil.yml"),
    ("docker cp c:/x out", "shell(docker cp c:/x out)", "docker cp c:/x /home/u/.bashrc"),
    ("podman ps", "shell(podman ps)", "podman ps --runtime=/tmp/evil"),
    # every kubectl / helm command takes --kubeconfig FILE, whose exec plugin is a command
    ("kubectl get pods", "shell(kubectl get pods)", "kubectl get pods --kubeconfig=evil.yaml"),
    ("kubectl apply -f x.yaml", "shell(kubectl apply -f x.yaml)", "kubectl apply -f y.yaml"),
    ("helm list", "shell(helm list)", "helm list --kubeconfig=evil.yaml"),
    ("terraform plan", "shell(terraform plan)", "terraform plan -out=/home/u/.bashrc"),
    # brew install runs a formula's Ruby code, any formula's or a local file's
    ("brew install jq", "shell(brew install jq)", "brew install ./evil.rb"),
    # gh pr checkout / merge change things, gh api calls any endpoint
    ("gh pr checkout 12", "shell(gh pr checkout 12)", "gh pr checkout 13"),
    ("gh pr merge 12", "shell(gh pr merge 12)", "gh pr merge 13 --admin"),
    ("gh api repos/o/r", "shell(gh api repos/o/r)", "gh api -X DELETE repos/o/r"),
    # nix build builds any expression (nix-build too)
    ("nix build .#app", "shell(nix build .#app)", "nix build --expr x"),
    ("nix-build default.nix", "shell(nix-build default.nix)", "nix-build evil.nix")])
def test_programs_that_run_code_are_offered_only_the_command(
        command: str, offered: str, grown: str) -> None:
    assert _offered(command) == offered
    rules = PermissionRules(allow=(offered,))
    assert action(rules, command, "approve") == "run"
    assert action(rules, grown, "approve") == "ask"


@pytest.mark.parametrize(("command", "offered", "not_allowed"), [
    ("docker ps -a", "shell(docker ps*)", "docker run --privileged -v /:/h x"),
    ("docker logs web", "shell(docker logs*)", "docker build ."),
    ("docker images", "shell(docker images*)", "docker cp c:/x /home/u/.bashrc"),
    ("docker-compose ps", "shell(docker-compose ps*)", "docker-compose up"),
    ("gh pr list --state open", "shell(gh pr list*)", "gh pr merge 3"),
    ("gh pr view 3", "shell(gh pr view*)", "gh pr checkout 3"),
    ("gh issue list", "shell(gh issue list*)", "gh issue close 3"),
    ("brew list", "shell(brew list*)", "brew install x")])
def test_read_only_subcommands_keep_their_prefix_rule(
        command: str, offered: str, not_allowed: str) -> None:
    assert _offered(command) == offered
    rules = PermissionRules(allow=(offered,))
    assert action(rules, f"{command} --no-trunc", "approve") == "run"
    assert action(rules, not_allowed, "approve") == "ask"


@pytest.mark.parametrize("command", [
    "docker run -it ubuntu", "docker exec web sh", "kubectl exec web -- sh",
    "kubectl run x --image=y", "kubectl debug web", "nix run nixpkgs#hello", "nix shell x",
    "nix develop", "nix-shell -p hello", "podman exec x sh"])
def test_programs_that_run_a_command_given_on_their_line_get_no_rule(command: str) -> None:
    assert _offered(command) is None


def test_no_program_of_the_table_is_offered_a_program_wide_rule() -> None:
    for program in OFFERS:
        for command in (f"{program} build", f"{program} x y", program):
            rule = _offered(command)
            assert rule != f"shell({program}*)", command


def test_the_question_after_make_test_offers_the_command_and_asks_again_when_it_grows(
        world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "make test"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "make test"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "make test CC=x"})]),
                       "done")
    out = world.run("go" + ENTER + "p" + "n" + ENTER + CTRL_D)  # p, then n at the third
    assert out.count("shell: always allow shell(make test) (until you exit)") == 1
    assert out.count("goosectx asks: run shell?") == 2  # the repeat ran unasked
    assert world.repl.agent.rules.allow == ("shell(make test)",)


@pytest.mark.parametrize(("command", "grown"), [
    ("pytest -q tests/", "pytest -q tests/ -p evil_plugin"),  # -p MODULE: its code is loaded
    ("pytest -q", "pytest -q -c /tmp/x/pytest.ini --rootdir /tmp/x"),  # and /tmp/x/conftest.py
    ("pytest -q", "pytest -q --pyargs evil"),
    ("py.test -x", "py.test -x -p evil"),
    ("pylint src", "pylint src --init-hook='import os; os.system(\"rm -rf v\")'"),
    ("mypy src", "mypy src --config-file /tmp/x/mypy.ini"),  # its plugins are code
    ("ruff check .", "ruff check . --output-file ~/.bashrc"),
    ("coverage report", "coverage run evil.py"),
    ("jest", "jest --config /tmp/x/jest.config.js")])
def test_test_runners_and_linters_are_offered_only_the_command(command: str, grown: str) -> None:
    # shell(pytest*), offered for `pytest -q`, allowed `pytest -p MODULE` (issue: approval
    # holes): the command as it is runs again unasked, one grown by an option asks.
    offered = _offered(command)
    assert offered == f"shell({command})"
    rules = PermissionRules(allow=(offered,))
    assert action(rules, command, "smart_approve") == "run"
    assert action(rules, grown, "smart_approve") == "ask"


@pytest.mark.parametrize(("command", "later"), [
    ("rm -rf build", "rm -rf src"),  # shell(rm*) would delete the project unasked
    ("cp notes.txt n2.txt", "cp notes.txt .git/hooks/pre-commit"),
    ("mv a.txt b.txt", "mv src /tmp/gone"),
    ("chmod +x run.sh", "chmod -R 777 ."),
    ("truncate -s 0 out.log", "truncate -s 0 main.py"),
    ("mkdir -p out", "mkdir -p .git/hooks"),
    ("uniq notes.txt", "uniq notes.txt main.py"),  # uniq IN OUT overwrites OUT
    ("touch a.txt", "touch -d 2000-01-01 main.py"),
    ("./build.sh --fast", "./build.sh --clean-all"),
    ("grep -n TODO notes.txt", "grep -r KEY ."),  # -r reads the project's .env
    ("diff a.txt b.txt", "diff -r . /tmp/x"),
    # The second tester's: p at `git clean -n` added shell(git clean*), then `git clean -fdx`
    # ran unasked and deleted an untracked .env and notes.
    ("git clean -n", "git clean -fdx"),  # the untracked .env and notes gone
    ("git reset HEAD f.txt", "git reset --hard"),  # uncommitted edits gone
    ("git checkout main", "git checkout -- ."),
    ("git restore --staged f.txt", "git restore ."),
    ("git branch -a", "git branch -D main"),
    ("git rm --cached f.txt", "git rm -rf ."),
    ("git add f.txt", "git add -A"),
    ("git stash list", "git stash drop")])
def test_a_program_that_writes_or_recurses_is_offered_only_the_command(
        command: str, later: str) -> None:
    # The tester's finding: p at `rm -rf build` added shell(rm*), and a later `rm -rf` of
    # anything ran unasked; likewise cp, mv, chmod, truncate, mkdir, uniq.
    offered = _offered(command)
    assert offered == f"shell({command})"
    rules = PermissionRules(allow=(offered,))
    assert action(rules, command, "smart_approve") == "run"
    assert action(rules, later, "smart_approve") == "ask"


@pytest.mark.parametrize("command", ["ls -la", "cat notes.txt", "head -5 a.txt", "wc -l a.txt",
                                     "echo hi", "pwd", "stat a.txt", "jq . a.json"])
def test_programs_that_only_read_keep_their_prefix_rule(command: str) -> None:
    program = command.split()[0]
    assert _offered(command) == f"shell({program}*)"
    assert program in PREFIX_PROGRAMS


def test_the_question_after_rm_offers_the_command_and_asks_at_another_rm(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "rm -rf build"})]),
                       ScriptedReply(tool_calls=[("shell", {"command": "rm -rf src"})]), "done")
    (world.workdir / "src").mkdir()
    out = world.run("go" + ENTER + "p" + "n" + ENTER + CTRL_D)
    assert "shell: always allow shell(rm -rf build) (until you exit)" in out
    assert "shell(rm*)" not in out
    assert out.count("goosectx asks: run shell?") == 2  # rm -rf src is asked about
    assert (world.workdir / "src").is_dir()
