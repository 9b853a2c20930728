"""Write targets under allow rules, judged as ``tee``'s are (round 28): ``curl -o out.html URL``
and ``wget -O f URL`` asked whatever the file; now the file is judged as a write target — it
asks in the git directory, a virtualenv or ``node_modules``, on a sensitive file or outside
the project — and ``curl -O``/``wget`` saving in the dir they run in judge that dir. Also:
``touch``/``chmod``/``sed -i`` of a git file, a write after a ``cd`` to a dir not known here, a
worktree's ``.git`` file, words a make or npm script is handed in a ``cd``'s dir, and the
project venv's interpreter named relative to ``make -C`` or by ``$PWD`` (docs/architecture.md
§4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, action_under_deny_rm, shell_verdict
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture
from test_rule_redirects_links_reasons import _asks, _runs
from test_rule_redirects_links_reasons import work as work  # the fixture: a venv as venv makes

from goosectx.permissions import PermissionRules


def _asked(work: Path, command: str, said: str, in_auto: bool = True) -> None:
    """It asks saying ``said``; ``in_auto``: in auto mode under a deny rule only, too."""
    action, reason = _verdict(work, command)
    assert action == "ask", reason
    assert said in reason, reason
    assert not in_auto or action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "curl -o out.html https://example.com/",
    "curl -sSLo build/page.html https://example.com/",
    "curl --output=src/data.json https://example.com/",
    "curl -o - https://example.com/",
    "wget -O f https://example.com/",
    "wget -qO build/x.tgz https://example.com/x.tgz",
    "wget --output-document=page.html https://example.com/",
    "wget -P build https://example.com/x.tgz",
    "cd build && curl -O https://example.com/x.tgz",
    "cd src && wget https://example.com/x.tgz",
    "curl -O --output-dir build https://example.com/x.tgz",
    "cd .git && curl -sS https://example.com/",
    "cd .git && wget -qO- https://example.com/",
    "cd .git && curl -o - https://example.com/",
    "patch -o out.py a.txt fix.diff",
    "touch a.txt", "touch -d 2020-01-01 src/a.py", "chmod +x src/a.py", "chmod 644 a.txt",
    "sed -i s/a/b/ a.txt", "sed -n 1p .git/HEAD", "cd .git && cat HEAD",
    "cd src && make test ARGS=-oout.txt", "make test", "cd src && npm run lint -- -o x.json",
    "cd .git && cd .. && make test ARGS=-oHEAD",
])
def test_a_download_or_write_into_the_project_runs(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize(("command", "said"), [
    ("curl -o .git/hooks/pre-commit https://x/", "curl writes .git/hooks/pre-commit: a hook"),
    ("wget -O .venv/bin/pytest https://x/", "wget writes .venv/bin/pytest into the virtualenv"),
    ("curl -o node_modules/.bin/jest https://x/", "writes node_modules/.bin/jest into node_mod"),
    ("cd .git && curl -O https://x/HEAD", "curl writes into the git directory .git"),
    ("cd .git/hooks && curl -sSLO https://x/pre-commit", "curl writes .git/hooks: a hook"),
    ("cd .git && curl --remote-name-all https://x/config", "curl writes into the git directory"),
    ("cd .git/hooks && curl -OJ https://x/get", "curl writes .git/hooks: a hook"),
    ("cd .git && wget https://x/config", "wget writes into the git directory .git"),
    ("cd .git/hooks && wget -q -o log https://x/pre-commit", "wget writes .git/hooks: a hook"),
    ("curl -O --output-dir .git/hooks https://x/pre-commit", "curl writes .git/hooks: a hook"),
    ("wget -P .git/hooks https://x/pre-commit", "wget writes .git/hooks: a hook"),
    ("patch -o .git/hooks/pre-commit a.txt fix.diff", "patch writes .git/hooks/pre-commit"),
    ("patch -d .git -p1 -i fix.diff", "patch writes into the git directory .git"),
])
def test_a_download_where_a_later_command_runs_it_asks(project: Path, command: str,
                                                       said: str) -> None:
    _asked(project, command, said, in_auto=False)
    assert action_under_deny_rm(command) == "ask", command  # auto mode, deny rules only


@pytest.mark.parametrize(("command", "said"), [
    ("curl -o .env https://x/", ".env is a sensitive file"),
    ("wget --output-document=.env https://x/", "--output-document=.env is a sensitive file"),
    ("curl -o/etc/cron.d/x https://x/", "-o/etc/cron.d/x is outside the project"),
    ("wget -O ../x https://x/", "../x is outside the project"),
    ("cd .. && curl -O https://x/a", ".. is outside the project"),
    ("curl -O --output-dir /tmp https://x/a", "/tmp is outside the project"),
])
def test_a_download_to_a_sensitive_file_or_outside_asks(project: Path, command: str,
                                                        said: str) -> None:
    _asked(project, command, said, in_auto=False)


@pytest.mark.parametrize(("command", "said"), [
    ("touch .git/hooks/pre-commit", "touch writes .git/hooks/pre-commit: a hook"),
    ("chmod +x .git/hooks/pre-commit", "chmod changes the mode of .git/hooks/pre-commit: a hook"),
    ("chmod -R u+x .git", "chmod changes the mode of the git directory .git"),
    ("install -m 755 a.txt .git/hooks/pre-commit", "install writes .git/hooks/pre-commit: a"),
    ("ln -s ../../a.txt .git/hooks/pre-commit", "ln writes .git/hooks/pre-commit: a hook"),
    ("cp -r sub .git/", "cp writes into the git directory .git"),
    ("rsync a.txt .git/hooks/", "rsync writes .git/hooks: a hook"),
    ("sed -i s/a/b/ .git/config", "sed writes .git/config: git config may set a command"),
    ("sed -i.bak -e s/a/b/ a.txt .git/HEAD", "sed writes .git/HEAD in the git directory"),
    ("cd .git && sed -i s/a/b/ config", "sed writes .git/config: git config"),
])
def test_a_hook_or_git_file_made_changed_or_edited_in_place_asks(project: Path, command: str,
                                                                 said: str) -> None:
    _asked(project, command, said)


_HANDED = "it hands the git directory or a file in it to what"


@pytest.mark.parametrize("command", [
    "cd .git && make test ARGS=-oHEAD",
    "cd .git/hooks && npm run lint -- --output-file=pre-commit",
    "cd .git && make test PYTEST_ARGS=--basetemp=.",
    "cd src && npx jest --outputFile=../.git/HEAD",
    "make test ARGS=-o.git/HEAD",
])
def test_a_project_script_handed_a_git_file_from_a_cd_asks(project: Path, command: str) -> None:
    _asked(project, command, _HANDED)


@pytest.mark.parametrize(("command", "said"), [
    ('cd "$X" && tee HEAD', "tee writes HEAD after cd $X, in a dir not known here"),
    ("cd - && cp a.txt hooks/pre-commit", "cp writes hooks/pre-commit after cd -, in a dir not"),
    ('cd "$X" && echo x > config', "a redirection writes config after cd $X, in a dir not"),
    ("popd; touch HEAD", "touch writes HEAD after popd, in a dir not known here"),
    ('cd "$D" && curl -O https://x/pre-commit', "curl writes . after cd $D, in a dir not"),
])
def test_a_write_after_a_cd_to_an_unknown_dir_asks_in_auto_mode(project: Path, command: str,
                                                                said: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert said in verdict.reason, verdict.reason
    assert "it may be the git directory, a virtualenv or node_modules" in verdict.reason


@pytest.mark.parametrize("command", [
    'cd "$X" && cat HEAD', 'cd "$X" && tee /tmp/out.txt', "cd src && make test",
    'cd "$X" && echo x > /dev/null', "cd src && tee out.txt",
])  # cd "$X" && make test runs that dir's Makefile: test_shell_rules_build_elsewhere
def test_no_write_after_an_unknown_cd_runs_in_auto_mode(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.fixture
def worktree(tmp_path: Path) -> tuple[Path, Path]:
    """A worktree whose ``.git`` file names a bare repository's ``worktrees/wt`` dir."""
    repo = tmp_path / "repo.git"
    (repo / "hooks").mkdir(parents=True)
    (repo / "worktrees" / "wt").mkdir(parents=True)
    (repo / "worktrees" / "wt" / "commondir").write_text("../..\n")
    work = tmp_path / "wt"
    (work / "src").mkdir(parents=True)
    (work / ".git").write_text(f"gitdir: {repo}/worktrees/wt\n")
    return work, repo


@pytest.mark.parametrize(("written", "said"), [
    ("{repo}/hooks/pre-commit", "{repo}/hooks/pre-commit: a hook is a command a later git"),
    ("{repo}/config", "{repo}/config: git config may set"),
    ("{repo}/worktrees/wt/HEAD", "{repo}/worktrees/wt/HEAD in the git directory"),
    ("../../repo.git/hooks/post-checkout", "{repo}/hooks/post-checkout: a hook"),
])
def test_a_worktrees_git_directory_is_followed_from_its_git_file(
        worktree: tuple[Path, Path], written: str, said: str) -> None:
    work, repo = worktree
    command = f"tee {written.format(repo=repo)}"
    asked = shell_verdict(DENY_RM, command, "auto", working_dir=work / "src")
    assert asked.action == "ask", asked.reason
    assert said.format(repo=repo) in asked.reason, asked.reason
    verdict = shell_verdict(PermissionRules(allow=("shell(tee*)",)), command, "smart_approve",
                            working_dir=work / "src")
    assert verdict.action == "ask", verdict.reason


def test_a_worktrees_own_files_are_written_as_before(worktree: tuple[Path, Path]) -> None:
    work, _repo = worktree
    verdict = shell_verdict(PermissionRules(allow=("shell(tee*)",)), "tee src/out.txt",
                            "smart_approve", working_dir=work)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize("command", [
    "make -C src PYTHON=../.venv/bin/python test", "make -Csrc PYTHON=../.venv/bin/python3",
    "make --directory=src PYTHON=../.venv/bin/python", "make -sC src PY=../.venv/bin/python",
    "make PYTHON=$PWD/.venv/bin/python test", 'make "PYTHON=$PWD/.venv/bin/python3"',
    "make -C src PYTHON=$PWD/.venv/bin/python", "cd src && make PYTHON=$PWD/../.venv/bin/python",
    "make PYTHON=${PWD}/.venv/bin/python", "make -j4 -C src PYTHON=../.venv/bin/python",
])
def test_the_venv_interpreter_given_relative_to_make_c_or_by_pwd_runs(work: Path,
                                                                      command: str) -> None:
    _runs(work, command)


@pytest.mark.parametrize(("command", "said"), [
    ("make -C src PYTHON=.venv/bin/python", "outside the project"),  # src/.venv: none
    ("make PYTHON=../.venv/bin/python", "PYTHON=../.venv/bin/python is outside the project"),
    ('make -C "$D" PYTHON=../.venv/bin/python', "make runs the build file in $D, named at run "
                                                "time"),  # its Makefile is not known either
    ("make PYTHON=$HOME/.venv/bin/python", "outside the project"),
    ("make PYTHON=$(pwd)/.venv/bin/python", "make PYTHON= holds a command or shell syntax"),
    ("make -C src PYTHON=../outlink", "outside the project"),
])
def test_make_values_that_are_not_the_projects_venv_interpreter_still_ask(
        work: Path, command: str, said: str) -> None:
    _asks(work, command, said)
