"""Writes into the git directory, a virtualenv or ``node_modules`` under allow rules (the
fresh-eyes tester, round 27): a hook written through another spelling of its path (``tee
.git/./hooks/pre-commit``, ``cd .git/hooks && tee pre-commit``) ran unasked while ``tee
.git/hooks/pre-commit`` asked; ``tee .git/HEAD .git/index`` broke the repository; a ``.pth``
file in the project's virtualenv runs at every Python start (under an allowed ``pytest``).
Each asks, naming the file; a project file is written as before (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import action_under_deny_rm, shell_verdict

from goosectx.permissions import PermissionRules

_RULES = PermissionRules(allow=tuple(f"shell({p}*)" for p in (
    "tee", "cd", "pushd", "cp", "mv", "install", "ln", "rsync", "dd", "echo", "printf", "find",
    "cat", "sudo", "bash", "truncate", "env", "tar -tf")))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    for sub in (".git/hooks", ".git/info", ".git/refs/heads", ".git/objects/info", "src",
                "env/lib/python3.12/site-packages", "node_modules/.bin", "web/node_modules"):
        (work / sub).mkdir(parents=True)
    (work / ".git" / "HEAD").write_text("ref: refs/heads/master\n")
    (work / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a virtualenv named env
    (work / "src" / "a.py").write_text("print(1)\n")
    return work


def _verdict(work: Path, command: str) -> tuple[str, str]:
    verdict = shell_verdict(_RULES, command, "smart_approve", working_dir=work)
    return verdict.action, verdict.reason


@pytest.mark.parametrize(("command", "named"), [
    ("tee .git/./hooks/pre-commit", ".git/hooks/pre-commit"),
    ("tee .git//hooks/post-checkout </dev/null", ".git/hooks/post-checkout"),
    ("tee .git/info/../hooks/pre-push", ".git/hooks/pre-push"),
    ("tee ./.git/hooks/pre-push", ".git/hooks/pre-push"),
    ("cd .git/hooks && tee pre-commit", ".git/hooks/pre-commit"),
    ("cd .git && tee hooks/pre-commit", ".git/hooks/pre-commit"),
    ("cd src && tee ../.git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("cd .git; cd hooks && tee -a pre-rebase", ".git/hooks/pre-rebase"),
    ("cd .git && echo x > hooks/pre-commit", ".git/hooks/pre-commit"),
    ("cd .git/hooks && cp ../../src/a.py pre-commit", ".git/hooks/pre-commit"),
    ("cd .git && sudo tee hooks/pre-commit", ".git/hooks/pre-commit"),
    ("cd .git && bash -c 'tee hooks/pre-commit'", ".git/hooks/pre-commit"),
    ("bash -c 'cd .git/hooks && tee pre-commit'", ".git/hooks/pre-commit"),
    ("cd .git/hooks && find . -fprint pre-commit", ".git/hooks/pre-commit"),
    ("tar -tf x.tar --index-file=.git/./hooks/pre-commit", ".git/hooks/pre-commit"),
    ("cd .git && tar -tf x.tar --index-file=hooks/pre-commit", ".git/hooks/pre-commit"),
])
def test_a_hook_written_through_any_spelling_of_its_path_asks(project: Path, command: str,
                                                              named: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert f"writes {named}: a hook is a command a later git runs" in reason, reason


@pytest.mark.parametrize(("command", "named"), [
    ("tee .git/HEAD .git/index .git/refs/heads/master </dev/null", ".git/HEAD"),
    ("tee .git/packed-refs", ".git/packed-refs"),
    ("tee .git/commondir", ".git/commondir"),
    ("tee .git/objects/info/alternates", ".git/objects/info/alternates"),
    ("tee -a .git/info/attributes", ".git/info/attributes"),
    ("cd .git && tee HEAD", ".git/HEAD"),
    ("echo x > .git/refs/heads/master", ".git/refs/heads/master"),
    ("cp a .git/index", ".git/index"),
    ("dd of=.git/index", ".git/index"),
    ("cd .git/refs && mv x heads/master", ".git/refs/heads/master"),
    ("truncate -s 0 .git/index", ".git/index"),
    ("pushd .git && tee HEAD", ".git/HEAD"),
    ("cd .git/hooks/.. && tee HEAD", ".git/HEAD"),
    ("cd .git; tee HEAD", ".git/HEAD"),  # the cd may have worked
    ("env -C .git tee HEAD", ".git/HEAD"),
    ("env --chdir=.git/refs tee heads/master", ".git/refs/heads/master"),
    ("sudo -D .git tee HEAD", ".git/HEAD"),
    ("env -iC.git tee HEAD", ".git/HEAD"),
])
def test_a_write_into_the_git_directory_asks(project: Path, command: str, named: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert f"writes {named} in the git directory" in reason, reason


@pytest.mark.parametrize(("command", "named", "venv"), [
    ("tee env/lib/python3.12/site-packages/x.pth", "env/lib/python3.12/site-packages/x.pth",
     "env"),
    ("cd env/lib && tee python3.12/site-packages/x.pth",
     "env/lib/python3.12/site-packages/x.pth", "env"),
    ("tee .venv/lib/python3.11/site-packages/x.pth", ".venv/lib/python3.11/site-packages/x.pth",
     ".venv"),
    ("tee .venv/bin/activate", ".venv/bin/activate", ".venv"),
    ("cp x.py venv/lib/python3.11/site-packages/", "venv/lib/python3.11/site-packages", "venv"),
    ("echo 'import os' > .venv/./bin/pytest", ".venv/bin/pytest", ".venv"),
])
def test_a_write_into_a_virtualenv_asks(project: Path, command: str, named: str,
                                        venv: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert f"writes {named} into the virtualenv {venv}: code there runs" in reason, reason


@pytest.mark.parametrize(("command", "named"), [
    ("tee node_modules/.bin/jest", "node_modules/.bin/jest"),
    ("cd node_modules/.bin && tee jest", "node_modules/.bin/jest"),
    ("ln -sf ../../x.js web/node_modules/.bin/vite", "web/node_modules/.bin/vite"),
    ("rsync -a lib/ node_modules/left-pad/", "node_modules/left-pad"),
])
def test_a_write_into_node_modules_asks(project: Path, command: str, named: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert f"writes {named} into node_modules" in reason, reason


@pytest.mark.parametrize(("command", "said"), [
    ("mv .git/HEAD head.bak", "mv removes .git/HEAD in the git directory"),
    ("mv .git old-git", "mv removes the git directory .git, which holds the repository"),
    ("mv node_modules/.bin/jest x", "mv removes node_modules/.bin/jest in node_modules"),
])
def test_moving_a_file_out_of_the_git_directory_asks(project: Path, command: str,
                                                     said: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert said in reason, reason


def test_a_write_through_a_symlink_into_the_git_directory_asks(project: Path) -> None:
    (project / "h").symlink_to(".git/hooks")
    action, reason = _verdict(project, "tee h/pre-commit")
    assert action == "ask", reason
    assert "tee writes .git/hooks/pre-commit: a hook" in reason, reason


def test_cp_into_a_named_directory_names_the_directory(project: Path) -> None:
    action, reason = _verdict(project, "cd .git && cp -t hooks src/a.py")
    assert action == "ask", reason
    assert "cp writes .git/hooks: a hook is a command a later git runs" in reason, reason


def test_the_git_directory_gitdir_names_is_judged_too(project: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "repo.git").mkdir()
    monkeypatch.setenv("GIT_DIR", "repo.git")
    action, reason = _verdict(project, "tee repo.git/HEAD")
    assert action == "ask", reason
    assert "tee writes repo.git/HEAD in the git directory" in reason, reason


@pytest.mark.parametrize("command", [
    "tee .git/./hooks/pre-commit", "tee .git/info/../hooks/pre-push", "tee .git/HEAD",
    "tee .venv/bin/activate", "tee node_modules/.bin/jest", "echo x > .git//index",
    "cd .git/hooks && tee pre-commit",
])
def test_such_a_write_asks_under_a_deny_rule_in_auto_mode(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "tee out.txt", "tee src/out.txt </dev/null", "cp src/a.py b.py", "cd src && tee out.txt",
    "cd src && cp a.py b.py", "echo x | tee -a notes.md", "mv src/a.py src/b.py",
    "truncate -s 0 out.log", "cd .git && cd .. && tee out.txt", "env -C src tee out.txt",
    "sudo -D src tee out.txt", "env -u HOME tee out.txt", "cat .git/HEAD",
    "cd .git && cat HEAD", "tee envelope.txt",
    "tee src/venv_notes.txt", "cd env && cat pyvenv.cfg", "cp node_modules/x/a.js src/",
    "cd src && tee ../out.txt",
])
def test_a_project_file_is_written_as_before(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "echo x > src/a.py", "tee out.txt", "cp a b", "cd src && echo x > out.txt",
])
def test_a_project_file_is_written_as_before_under_a_deny_rule(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command
