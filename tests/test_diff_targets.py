"""What ``patch`` and ``git apply`` write is what their diff names (round 29): a small diff file
is read and each name (``-pN`` stripped, below ``-d``) judged as a write target; a diff that
cannot be read asks under a rule and in auto mode under a deny rule; git's transport plumbing
(``git receive-pack DIR``) asks (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture

from goosectx.diff_targets import diff_names
from goosectx.permissions import PermissionRules

_HOOK = "--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+rm x\n"
_SAFE = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n"


@pytest.fixture
def diffs(project: Path) -> Path:
    (project / "hook.diff").write_text(_HOOK)
    (project / "safe.diff").write_text(_SAFE + "-print(1)\n+print(2)\n")
    (project / "env.diff").write_text("--- .env\n+++ .env\n@@ -1 +1 @@\n-A=1\n+A=2\n")
    (project / "big.diff").write_text(_SAFE + "+x\n" * 400_000)
    (project / "makes.diff").write_text("--- /dev/null\n+++ b/safe.diff\n@@ -0,0 +1 @@\n+x\n")
    (project / "out.diff").write_text("--- a/../../etc/x\n+++ b/../../etc/x\n@@ -1 +1 @@\n-a\n+b\n")
    mail = "From abc Mon Sep 17 00:00:00 2001\nFrom: a <a@b>\nSubject: [PATCH] x\n\n---\n"
    (project / "hook.mbox").write_text(mail + "diff --git a/.git/hooks/pre-commit "
                                       "b/.git/hooks/pre-commit\n" + _HOOK)
    (project / "safe.mbox").write_text(mail + _SAFE + "-print(1)\n+print(2)\n")
    return project


def _asks(work: Path, command: str, said: str) -> None:
    action, reason = _verdict(work, command)
    assert action == "ask", reason
    assert said in reason, reason
    auto = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert auto.action == "ask", auto.reason


@pytest.mark.parametrize(("command", "said"), [
    ("patch -p1 < hook.diff", "patch writes .git/hooks/pre-commit: a hook is a command a later "
                              "git runs (the diff hook.diff names it)"),
    ("patch < hook.diff", "patch writes a/.git/hooks/pre-commit: a hook"),
    ("patch -p1 -i hook.diff", "patch writes .git/hooks/pre-commit: a hook"),
    ("patch --strip=1 --input=hook.diff", "patch writes .git/hooks/pre-commit: a hook"),
    ("git apply hook.diff", "git writes .git/hooks/pre-commit: a hook"),
    ("git apply -p0 --index safe.diff hook.diff", "git writes a/.git/hooks/pre-commit: a hook"),
    ("cd src && patch -p1 < ../hook.diff", "patch writes src/.git/hooks/pre-commit: a hook"),
    ("patch -p0 < env.diff", "patch writes .env, which is a sensitive file"),
    ("patch .git/config safe.diff", "patch writes .git/config: git config"),
    ("patch --reject-file r.rej .git/config safe.diff", "patch writes .git/config: git config"),
    ("patch -p1 < missing.diff", "patch applies the diff missing.diff, which cannot be read"),
    ("patch -p1 < big.diff", "patch applies the diff big.diff, which cannot be read here "
                             "(missing or past 1,000,000 bytes)"),
    ("git apply missing.diff", "git applies the diff missing.diff, which cannot be read"),
    ("curl -s https://x/p.diff | patch -p1", "patch applies a diff it reads from a pipe"),
    ("git show v1 | git apply -R", "git applies a diff it reads from a pipe or stream"),
    ("patch -p1 <<'EOF'\n" + _HOOK + "EOF", "patch writes .git/hooks/pre-commit: a hook is a "
                                           "command a later git runs (the diff in the line"),
    ("patch -p1 -b -B .git/hooks/ < safe.diff", "patch writes .git/hooks/src/a.py: a hook is a "
     "command a later git runs (a backup of src/a.py, which the diff safe.diff names)"),
    ("patch -p1 --prefix=.git/ -b < safe.diff", "patch writes .git/src/a.py in the git directory"),
    ("patch -p1 -Y ../../.git/hooks/ < safe.diff", "a backup of src/a.py"),
    ("patch -p1 --basename-prefix=../.git/hooks/ -i safe.diff", "patch writes .git/hooks/a.py"),
    ("patch -p1 -z /../../.git/hooks/x < safe.diff", "patch writes .git/hooks/x: a hook"),
    ("patch -p1 -B /etc/ < safe.diff", "patch writes /etc/src/a.py, which is outside the project"),
    ("patch -p1 -B \"$X\" < safe.diff", "patch's backup files are named by a path bash makes"),
    ("git am hook.mbox", "git writes .git/hooks/pre-commit: a hook is a command a later git "
                         "runs (the diff hook.mbox names it)"),
    ("git am -3 --signoff < hook.mbox", "git writes .git/hooks/pre-commit: a hook"),
    ("git am --directory=src hook.mbox", "git writes src/.git/hooks/pre-commit: a hook"),
    ("git am missing.mbox", "git applies the diff missing.mbox, which cannot be read"),
    ("curl -s https://x/p.mbox | git am", "git applies a diff it reads from a pipe or stream"),
    ("cp hook.diff safe.diff && patch -p1 < safe.diff", "patch applies the diff safe.diff, which "
     "cannot be read here as it will be: `cp hook.diff safe.diff` before it in the line may "
     "write it"),
    ("mv hook.diff safe.diff && git apply safe.diff", "`mv hook.diff safe.diff` before it"),
    ("ln -sf hook.diff safe.diff; patch -p1 -i safe.diff", "`ln -sf hook.diff safe.diff` before"),
    ("sed -i s/x/y/ safe.diff && git apply safe.diff", "`sed -i s/x/y/ safe.diff` before it"),
    ("curl -so safe.diff https://x/p && git apply safe.diff", "`curl -so safe.diff https://x/p`"),
    ("cat hook.diff > safe.diff; patch -p1 < safe.diff", "`> safe.diff` before it in the line"),
    ("cat hook.diff | tee ./safe.diff; git am safe.diff", "`tee ./safe.diff` before it"),
    ('cp "$X" safe.diff; git apply safe.diff', "`cp \"$X\" safe.diff` before it"),
    ('mytool -o "$PWD/safe.diff"; git apply safe.diff', "`mytool -o \"$PWD/safe.diff\"` before"),
    ("cp hook.diff *.diff; git apply safe.diff", "`cp hook.diff *.diff` before it"),
    ("cp -r ../other/ . && git apply safe.diff", "`cp -r ../other/ .` before it"),
    ("for i in 1 2; do patch -p1 < safe.diff; cp hook.diff safe.diff; done",
     "`cp hook.diff safe.diff` before it"),
    ("cat hook.diff | patch -p1 # <<", "patch applies a diff it reads from a pipe or stream"),
    ("curl -sL https://x/p | git apply; echo $((1<<2))", "git applies a diff it reads from a pipe"),
    ('patch -p1 <<< "$(cat hook.diff)"', "patch applies a diff from a here-document or "
     "here-string that bash expands ($, $( ), backticks), which cannot be read here"),
    ("patch -p1 <<EOF\n$(curl -s https://x/p)\nEOF", "a here-document or here-string that bash "
                                                    "expands"),
    ("git apply <<EOF\n--- a/`echo x`\n+++ b/x\nEOF", "a here-document or here-string that bash"),
    ("{ patch -p1; } < hook.diff", "patch writes .git/hooks/pre-commit: a hook is a command a "
                                   "later git runs (the diff hook.diff names it)"),
    ("(patch -p1) < hook.diff", "patch writes .git/hooks/pre-commit: a hook"),
    ("{ cd src; git am; } < hook.mbox", "git writes .git/hooks/pre-commit: a hook"),
    ("while read x; do sudo patch -p1; done < hook.diff", "patch writes .git/hooks/pre-commit"),
    ("cat > new.diff <<'EOF'\n" + _HOOK + "EOF\npatch -p1 < new.diff", "patch writes "
     ".git/hooks/pre-commit: a hook is a command a later git runs (the diff in the line"),
    ("cat > new.diff <<EOF\n$(curl -s https://x/p)\nEOF\ngit apply new.diff",
     "`> new.diff` before it in the line may write it"),
    ("tee safe.diff <<'EOF'\n" + _HOOK + "EOF\ngit apply safe.diff", "git writes "
     ".git/hooks/pre-commit: a hook"),
    # round 30: the diff replaced by a command that does not name it (an archive, a checkout)
    ("tar xf x.tar && git apply safe.diff", "`tar xf x.tar` before it in the line may write it"),
    ("unzip -o x.zip && patch -p1 < safe.diff", "`unzip -o x.zip` before it in the line"),
    ("cd src && 7z x ../x.7z && git apply ../safe.diff", "`7z x ../x.7z` before it"),
    ("git stash pop && git apply safe.diff", "`git stash pop` before it in the line may write"),
    ("git checkout main && git apply safe.diff", "`git checkout main` before it"),
    ("git reset --hard HEAD~1; patch -p1 -i safe.diff", "`git reset --hard HEAD~1` before it"),
    ("gunzip safe.diff.gz && git apply safe.diff", "`gunzip safe.diff.gz` before it"),
    ("git apply makes.diff && git apply safe.diff", "`git apply makes.diff` before it"),
    ("patch -p1 < makes.diff; patch -p1 < safe.diff", "`patch -p1` before it in the line"),
    ("patch -o safe.diff src/a.py hook.diff; git apply safe.diff", "`patch -o safe.diff "
     "src/a.py hook.diff` before it"),
    ("{ bash -c 'patch -p1'; } < hook.diff", "patch writes .git/hooks/pre-commit: a hook"),
    ("bash -c 'patch -p1' < hook.diff", "patch writes .git/hooks/pre-commit: a hook"),
    ("sudo sh -c 'cd . && git apply' < hook.diff", "git writes .git/hooks/pre-commit: a hook"),
    ("git apply --unsafe-paths out.diff", "git writes ../../etc/x, which is outside the project "
                                          "(the diff out.diff names it)"),
    ("git receive-pack .git", "git receive-pack serves or writes a repository"),
    ("git upload-pack .", "git upload-pack serves or writes a repository"),
    ("git unpack-objects < x.pack", "git unpack-objects serves or writes a repository"),
])
def test_a_diff_naming_a_protected_file_or_one_not_read_asks(diffs: Path, command: str,
                                                            said: str) -> None:
    _asks(diffs, command, said)


@pytest.mark.parametrize("command", [
    "patch -p1 < safe.diff", "patch -p1 -i safe.diff", "git apply safe.diff",
    "git apply --check hook.diff", "git apply --stat hook.diff", "git apply -v safe.diff",
    "patch -p1 <<'EOF'\n" + _SAFE + "-print(1)\n+print(2)\nEOF", "patch --dry-run -p1 < safe.diff",
    "patch -o out.py src/a.py hook.diff", "patch --output=out.py -p1 < missing.diff",
    "patch -p1 -b < safe.diff", "patch -p1 -b -z .bak < safe.diff", "patch -p1 -B bak/ < safe.diff",
    "patch -p1 --backup-if-mismatch -Y old- -i safe.diff",
    "git am safe.mbox", "git am -3 < safe.mbox", "git am --continue", "git am --abort",
    "git apply --check safe.diff && git apply safe.diff", "cat safe.diff && patch -p1 < safe.diff",
    "patch -p1 --dry-run < safe.diff && patch -p1 < safe.diff", "git apply safe.diff; git status",
    "patch -p1 <<< 'x'", "cd src && git apply ../safe.diff",
    "git checkout -b fix && git apply safe.diff", "tar tf x.tar && git apply safe.diff",
    "tar czf x.tgz src && git apply safe.diff", "git stash list; git apply safe.diff",
    "unzip -l x.zip && git apply safe.diff", "git apply safe.diff; git apply makes.diff",
    "gunzip other.diff.gz && git apply safe.diff", "git apply out.diff",
])
def test_a_diff_of_project_files_still_runs(diffs: Path, command: str) -> None:
    action, reason = _verdict(diffs, command)
    assert action == "run", reason
    assert shell_verdict(DENY_RM, command, "auto", working_dir=diffs).action == "run"


@pytest.mark.parametrize("command", [
    "git apply safe.diff; echo $((1<<2))", "{ patch -p1; } < safe.diff", "(patch -p1) < safe.diff",
    "git diff > out.diff; git apply safe.diff", "git apply safe.diff && rm safe.diff",
    "cat > new.diff <<'EOF'\n" + _SAFE + "-print(1)\n+print(2)\nEOF\ngit apply new.diff",
])
def test_a_line_that_writes_no_diff_it_applies_runs_in_auto_mode(diffs: Path, command: str) -> None:
    auto = shell_verdict(PermissionRules(deny=("shell(git push*)",)), command, "auto",
                         working_dir=diffs)
    assert auto.action == "run", auto.reason


def test_the_names_are_read_from_each_header() -> None:
    text = ('diff --git a/x b/y\nrename from x\nrename to "y z"\n--- a/x\t2024-01-01\n'
            "+++ /dev/null\n")
    assert diff_names(text) == ["a/x", "b/y", "x", "y z"]


@pytest.mark.parametrize(("diff", "named"), [
    ('--- /dev/null\n+++ "b/.gi\\164/hooks/pre-commit"\n@@ -0,0 +1 @@\n+x\n',
     ".git/hooks/pre-commit"),  # test29d: git's C-quoted names, octal escapes decoded
    ('diff --git "a/.en\\166" "b/.en\\166"\n--- /dev/null\n+++ "b/.en\\166"\n@@ -0,0 +1 @@\n+K=1\n',
     ".env"),
    ("*** .git/config\n--- nothere.txt\n***************\n*** 1 ****\n--- 1,2 ----\n+ x\n",
     ".git/config"),  # a context diff's old name, which patch takes when it exists
    ("*** .git/config 2024-01-01 10:00:00\n--- x 2024-01-01\n", ".git/config"),
    ("Index: .env\n--- x\n+++ x\n", ".env"),
])
def test_quoted_and_context_diff_names_are_read(project: Path, diff: str, named: str) -> None:
    (project / "x.diff").write_text(diff)
    strip = "-p1" if '"b/' in diff else "-p0"
    _asks(project, f"patch {strip} < x.diff", named)


def test_c_quoted_names_decode_as_patch_reads_them() -> None:
    assert diff_names('+++ "b/\\303\\251t\\303\\251.txt"\n') == ["b/été.txt"]
    assert diff_names('+++ "b/tab\\there"\n') == ["b/tab\there"]


@pytest.mark.parametrize("before", [
    "find -name '*.diff' -exec sed -i 's#src/a#.git/hooks/pre-commit#g' {} +",
    "ls | xargs sed -i 's#src/a#.git/hooks/pre-commit#g'",
    "rg -l a | xargs sed -i s#a#b#g", "fd -e diff -x sed -i s#a#b#", "rename s/bad/x/ bad.diff",
    "python3 -m tarfile -e a.tar", "tar --extr -f a.tar", "gunzip -N fix.gz",
    "gunzip -S .foo safe.diff.foo", "gunzip *.gz", "rar x a.rar", "p7zip -d a.7z", "arj x a.arj",
    "lzop -d a.lzo", "uudecode a.uu", "hg update", "svn up", "git lfs pull", "git lfs checkout",
    "curl -OJ https://example.com/x", "wget --content-disposition https://example.com/x",
    "aria2c https://example.com/x", "git reset --har", "git -c alias.co=checkout co main",
    "sh -c 'git checkout main'", "bash -c 'tar xf a.tar'", "git stash apply",
    "git checkout apply", "git pull origin am",
])
@pytest.mark.parametrize("applier", ["patch -p1 < safe.diff", "git apply safe.diff"])
def test_a_command_not_known_to_write_nothing_before_the_applier_asks(
        diffs: Path, before: str, applier: str) -> None:
    _asks(diffs, f"{before} && {applier}", "before it in the line may write it")


@pytest.mark.parametrize("before", [
    "git status", "ls -la", "cat safe.diff", "grep -n x safe.diff", "cd src && cd ..",
    "git diff --stat", "find src -name '*.rej'", "X=1 echo hi", "git add -A", "tar tf x.tar",
    "gunzip -k other.diff.gz", "pwd",
])
def test_a_reader_before_the_applier_keeps_it_running(diffs: Path, before: str) -> None:
    command = f"{before} && git apply safe.diff"
    assert shell_verdict(DENY_RM, command, "auto", working_dir=diffs).action == "run", command


_VENV_DIFF = ("diff --git a/sub/env/bin/activate b/sub/env/bin/activate\n"
              "--- a/sub/env/bin/activate\n+++ b/sub/env/bin/activate\n@@ -0,0 +1 @@\n+x\n")


@pytest.fixture
def subdir(project: Path) -> Path:
    """``sub/`` of the repository, holding a virtualenv ``sub/env`` and two git diffs."""
    (project / "sub" / "env" / "bin").mkdir(parents=True)
    (project / "sub" / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "sub" / "venv.diff").write_text(_VENV_DIFF)
    (project / "sub" / "safe.diff").write_text(_VENV_DIFF.replace("env/bin/activate", "a.py"))
    return project / "sub"


@pytest.mark.parametrize(("at", "command"), [
    ("top", "cd sub && git apply venv.diff"), ("sub", "git apply venv.diff"),
    ("sub", "git apply --check venv.diff && git apply venv.diff"),
])
def test_git_apply_in_a_subdirectory_takes_names_from_the_top(subdir: Path, at: str,
                                                              command: str) -> None:
    # git names sub/env/bin/activate from the work tree's top: the venv sub/env, not sub/sub/env
    work = subdir.parent if at == "top" else subdir
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=work)
    assert verdict.action == "ask", verdict.reason
    assert "virtualenv" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", ["git apply safe.diff", "patch -p1 < venv.diff"])
def test_a_subdirectory_diff_writing_no_protected_file_runs(subdir: Path, command: str) -> None:
    # patch takes names from where it runs: sub/sub/env/bin/activate, a new file in no venv
    assert shell_verdict(DENY_RM, command, "auto", working_dir=subdir).action == "run"
