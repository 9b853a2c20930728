"""The write-target backstop (round 29): a program no table models that names the git directory,
a virtualenv, node_modules, a sensitive file or a path outside the project asks, under its own
allow rule and in auto mode under a deny rule, the reason naming the program and the path;
known programs keep their verdicts. Also the created names of ``git init|clone|bundle``,
``zip``/``tar -c``/``7z a``, curl's and wget's names from the URL, and removals of the git
directory (``cmake -E remove_directory .git``) (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, action_under_deny_rm, shell_verdict
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture

from goosectx.permissions import PermissionRules
from goosectx.unmodelled_writes import known


def _asks(work: Path, command: str, said: str, rules: PermissionRules | None = None) -> None:
    """It asks saying ``said`` under a rule per program, and in auto mode under a deny rule."""
    if rules is None:
        action, reason = _verdict(work, command)
    else:
        verdict = shell_verdict(rules, command, "smart_approve", working_dir=work)
        action, reason = verdict.action, verdict.reason
    assert action == "ask", reason
    assert said in reason, reason
    auto = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert auto.action in ("ask", "deny"), auto.reason


@pytest.mark.parametrize(("command", "said"), [
    ("cmake -E remove_directory .git", "cmake is not known to goosectx: it may write .git"),
    ("cmake -E rm -rf .git", "cmake is not known to goosectx: it may write .git"),
    ("mytool --out=.git/hooks/pre-commit", "mytool is not known to goosectx: it may write "
                                           ".git/hooks/pre-commit (a hook is a command"),
    ("mytool .venv/lib/python3.12/site-packages/x.pth", "mytool is not known to goosectx: it "
                                                         "may write .venv/lib/python3.12"),
    ("mytool node_modules/.bin/jest", "it may write node_modules/.bin/jest (installed code"),
    ("cd src && mytool ../.git/config", "it may write ../.git/config (git config may set"),
    ("mytool gen .env", "mytool is not known to goosectx: it may write .env, which is a "
                        "sensitive file"),
    ("mytool -o /etc/cron.d/x", "it may write /etc/cron.d/x, which is outside the project"),
    ("mytool ../notes.json", "it may write ../notes.json, which is outside the project"),
    # round 30: comma lists, a command's output as the dir, a variable the line sets
    ("mytool --paths=src/a.py,.git/config", "it is given .git/config (git config may set"),
    ("mytool -o a.txt,.git/hooks/pre-commit", "it may write .git/hooks/pre-commit (a hook"),
    ("mytool $(pwd)/.git/hooks/pre-commit", "it may write $(…)/.git/hooks/pre-commit (a hook"),
    ('mytool --out="$(git rev-parse --show-toplevel)/.git/config"', "it may write "
                                                                     "$(…)/.git/config"),
    ("mytool `pwd`/.env", "it may write `…`/.env, which is a sensitive file"),
    ("D=.git; mytool $D/config", "mytool is not known to goosectx: it may write $D/config (git "
                                 "config may set"),
    ('export H=.git/hooks && mytool "${H}/pre-commit"', "it may write ${H}/pre-commit (a hook"),
    ("for d in src .git; do mytool $d/config; done", "it may write $d/config (git config"),
    ("mytool $d/hooks/pre-commit", "it may write $d/hooks/pre-commit (a hook or git config is a "
                                   "command a later git runs)"),
])
def test_an_unmodelled_program_naming_a_protected_path_asks(project: Path, command: str,
                                                            said: str) -> None:
    _asks(project, command, said)


def test_the_git_dir_a_worktree_file_names_counts_too(tmp_path: Path) -> None:
    main = tmp_path / "main" / ".git" / "worktrees" / "wt"
    main.mkdir(parents=True)
    (main / "commondir").write_text("../..\n")
    work = tmp_path / "wt"
    work.mkdir()
    (work / ".git").write_text(f"gitdir: {main}\n")
    verdict = shell_verdict(DENY_RM, f"mytool {tmp_path}/main/.git/hooks/pre-commit", "auto",
                            working_dir=work)
    assert verdict.action == "ask", verdict.reason
    assert "mytool is not known to goosectx: it may write" in verdict.reason


def test_an_allow_rule_for_the_program_does_not_cover_it(project: Path) -> None:
    rules = PermissionRules(allow=("shell(cmake*)", "shell(rm*)"))
    _asks(project, "cmake -E remove_directory .git", "cmake is not known to goosectx", rules)
    _asks(project, "cmake -E rm -rf .git", "cmake is not known to goosectx", rules)


@pytest.mark.parametrize("command", [
    "cmake --build build", "cmake -S . -B build", "cd build && cmake ..", "mytool src/a.py",
    "mytool --verbose build/out.o", "mytool > /dev/null", "mytool --only=src,build x",
    "mytool --include=a,b,c src",
])
def test_an_unmodelled_program_on_project_paths_still_runs(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason
    assert action_under_deny_rm(command) == "run", command


@pytest.mark.parametrize("command", [
    "mytool $(pwd)/src/a.py", "D=src; mytool $D/a.py", "for d in src build; do mytool $d/x; done",
])
def test_a_run_time_dir_in_the_project_still_runs_in_auto_mode(project: Path,
                                                               command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize("command", [
    "mytool https://example.com/.env", 'mytool "$HOME"', "docker exec box mytool /w/.env",
    "ssh host mytool /etc/x", "kubectl exec pod -- mytool /etc/x",
])
def test_a_url_a_run_time_word_or_a_path_elsewhere_is_no_literal_write(project: Path,
                                                                      command: str) -> None:
    """No backstop: a URL, ``$HOME`` (bash's), a container's or another host's path; the read
    checks under an allow rule still judge these words as they did."""
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize(("command", "expected"), [
    ("cat .git/HEAD", "run"), ("ls .git", "run"), ("wc -l .git/HEAD", "run"),
    ("head -1 .git/HEAD", "run"), ("git status", "run"), ("git log --oneline", "run"),
    ("git diff HEAD", "run"), ("grep -n x .git/HEAD", "run"), ("cat /etc/hosts", "run"),
])
def test_known_read_only_programs_keep_their_verdicts(project: Path, command: str,
                                                      expected: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == expected
    assert known(command.split()[0])


@pytest.mark.parametrize(("command", "said"), [
    ("rm -rf .git", "rm removes the git directory .git, which holds the repository"),
    ("rmdir .git", "rmdir removes the git directory .git"),
    ("unlink .git/HEAD", "unlink removes .git/HEAD in the git directory"),
    ("git clone https://x/y .git", "git writes into the git directory .git"),
    ("git clone https://x/.venv", "git writes .venv into the virtualenv .venv"),
    ("git clone --separate-git-dir=.git/modules/x https://x/y d", "git writes .git/modules/x"),
    ("git init .git", "git writes into the git directory .git"),
    ("git init -b main .venv", "git writes .venv into the virtualenv .venv"),
    ("git bundle create .git/hooks/x HEAD", "git writes .git/hooks/x: a hook"),
    ("zip .git/hooks/pre-commit a.txt", "zip writes .git/hooks/pre-commit: a hook"),
    ("zip -q -r .git/hooks/x src", "zip writes .git/hooks/x: a hook"),
    ("tar -cf .git/hooks/x a.txt", "tar writes .git/hooks/x: a hook"),
    ("tar -czf .git/hooks/x a.txt", "tar writes .git/hooks/x: a hook"),
    ("tar czf .git/hooks/x a.txt", "tar writes .git/hooks/x: a hook"),
    ("tar --create --file=.git/index a.txt", "tar writes .git/index in the git directory"),
    ("7z a .git/hooks/x a.txt", "7z writes .git/hooks/x: a hook"),
    ("plutil -convert xml1 .git/config", "plutil writes .git/config: git config"),
    ("curl -O https://x/.env", "curl writes .env, the name its URL gives, which is a sensitive"),
    ("curl --remote-name https://x/y/.env.local", "curl writes .env.local, the name its URL"),
    ("wget https://x/.env", "wget writes .env, the name its URL gives"),
    ("wget -q https://x/a/%2Eenv", "wget writes .env, the name its URL gives"),
    ("wget -x https://x/.git/hooks/pre-commit", "wget writes x/.git/hooks/pre-commit: a hook"),
    ("wget -r -nH https://x/.git/config", ".git/config: git config may set"),
    ("curl -O --output-dir .git https://x/HEAD", "curl writes into the git directory .git"),
])
def test_a_created_name_or_removal_in_the_git_dir_asks(project: Path, command: str,
                                                       said: str) -> None:
    _asks(project, command, said)


@pytest.mark.parametrize("command", [
    "git clone https://x/y", "git clone https://x/y.git lib/y", "git init", "git init sub",
    "git bundle create x.bundle HEAD", "zip -r out.zip src", "tar czf out.tgz src",
    "tar -xzf a.tgz", "tar -tf a.tgz", "7z x a.7z", "7z a out.7z src", "curl -sSLO https://x/a.tgz",
    "wget https://x/a.tgz", "wget -q https://x/", "rm -rf build", "rmdir sub",
    "cd src && curl -O https://x/b.py",
])
def test_created_names_in_the_project_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


# round 31: line_assignments read a command's assignments only when they came first, so one
# after a reserved word (`then B=…`, `{ B=…; }`, `! B=…`, `do export B=…`, `time B=…`) was not
# seen and the path its variable made ran under a deny rule.
@pytest.mark.parametrize("command", [
    "if true; then B=.git/hooks; fi; cp x $B/pre-commit",
    "for f in a; do B=.git/hooks; done; cp x $B/pre-commit",
    "{ B=.git/hooks; }; cp x $B/pre-commit", "true && { B=.git/hooks; } && cp x $B/pre-commit",
    "while B=.git/hooks; do cp x $B/pre-commit; break; done",
    "if B=.git/hooks; then cp x $B/pre-commit; fi", "! B=.git/hooks; cp x $B/pre-commit",
    "time B=.git/hooks; cp x $B/pre-commit", "time -p B=.git/hooks; cp x $B/pre-commit",
    "A=1 true; B=.git/hooks; echo x > $B/pre-commit",
    "if true; then for B in .git/hooks; do cp x $B/pre-commit; done; fi",
    "eval B=.git/hooks; cp x $B/pre-commit", 'eval "B=.git/hooks"; cp x $B/pre-commit',
    "bash -c 'B=.git/hooks; cp x $B/pre-commit'",  # an inner line's own assignments
    "sudo sh -c 'if true; then B=.git/hooks; fi; cp x $B/pre-commit'",
])
def test_an_assignment_after_a_reserved_word_is_read(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask", command
    assert "writes .git/hooks/pre-commit: a hook is a command a later git runs" in (
        verdict.reason)


@pytest.mark.parametrize("command", [
    "if true; then export GIT_WORK_TREE=.git; fi; git checkout -- hooks/pre-commit",
    "if true; then GIT_WORK_TREE=.git; export GIT_WORK_TREE; fi; git checkout -- hooks/x",
    "eval export GIT_WORK_TREE=.git; git checkout -- hooks/x",
    "bash -c 'GIT_WORK_TREE=.git git checkout -- hooks/x'",
    "bash -c 'export GIT_WORK_TREE=.git; git checkout -- hooks/x'",
])
def test_git_s_environment_set_after_a_reserved_word_is_read(project: Path,
                                                             command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).reason.startswith(
        "it sets GIT_WORK_TREE, as git --work-tree")


@pytest.mark.parametrize("command", [
    "if true; then B=src; fi; cp x $B/main.py", "time make", "time -p pytest -q",
    "eval B=src; cp x $B/a.py", 'eval "echo hi"; cp x $B/a.py',
    "bash -c 'B=src; cp x $B/a.py'", "bash -c 'make && pytest -q'", "sh -c 'git status'",
    "echo | time B=.git/hooks; cp x $B/pre-commit",  # after | time is the program: no B
    "A=1 true B=.git/hooks; echo x > $B/pre-commit",  # B=… is true's argument: B not set
])
def test_reserved_words_before_harmless_assignments_still_run(project: Path,
                                                              command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"



# round 31 (appr31c, test31c finding 4): git's environment handed to a build tool or a shell
# script reaches the git inside it (GIT_WORK_TREE=.git make ran under a deny rule).
@pytest.mark.parametrize("command", [
    "GIT_WORK_TREE=.git make", "export GIT_WORK_TREE=.git; make", "GIT_WORK_TREE=.git bash s.sh",
    "GIT_WORK_TREE=.git npm test", "export GIT_INDEX_FILE=.venv/x.pth; pytest -q"])
def test_git_s_environment_handed_to_a_build_tool_or_script_is_judged(project: Path,
                                                                      command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask" and verdict.reason.startswith("it sets GIT_"), verdict.reason


@pytest.mark.parametrize("command", [
    "GIT_WORK_TREE=docs make", "make GIT_DIR_NAME=x", "GIT_INDEX_FILE=.git/index.tmp bash s.sh",
    "GIT_TRACE=1 make", "npm test"])
def test_git_s_everyday_environment_for_a_build_tool_still_runs(project: Path,
                                                                command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"
