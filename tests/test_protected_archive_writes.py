"""Writers into the git dir, a venv or node_modules that nothing read (round 28, gitw28):
archivers' dirs (``tar -xf x.tar -C .git/hooks``, ``unzip -d``, ``cpio -D``/``-p``, ``ar x
--output=``), output files (``zip -O``, ``sdiff -o``, ``scp``, ``gpg -o``, ``openssl -out``,
``ssh-keygen -f``) and git's own (``git checkout-index --prefix=.git/hooks/ -a`` made a live
hook; ``--work-tree=``, ``worktree add``, ``format-patch -o``, ``[-C DIR] archive -o``) ran under their
program's rule and in auto mode under a deny rule. Their destination is now judged as a write
target, a dir as a write anywhere in it; elsewhere they run (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_protected_write_expansions import asks_everywhere, runs_under_its_rule
from test_protected_write_expansions import linked as linked  # the fixture


@pytest.mark.parametrize(("command", "said"), [
    ("tar -xf x.tar -C .git/hooks", "tar writes .git/hooks: a hook"),
    ("tar xf x.tar -C .git/hooks", "tar writes .git/hooks: a hook"),
    ("tar --extract -f x.tar --directory=.git", "tar writes into the git directory .git"),
    ("tar -xzf x.tgz -C .venv/lib", "tar writes .venv/lib into the virtualenv .venv"),
    ("unzip -d .git/hooks x.zip", "unzip writes .git/hooks: a hook"),
    ("unzip -o x.zip -d node_modules/x", "unzip writes node_modules/x into node_modules"),
    ("cpio -i -D .git/hooks", "cpio writes .git/hooks: a hook"),
    ("cpio -pd .git/hooks", "cpio writes .git/hooks: a hook"),
    ("ar x --output=.git/hooks lib.a", "ar writes .git/hooks: a hook"),
    ("zip -O .git/hooks/pre-commit in.zip", "zip writes .git/hooks/pre-commit: a hook"),
    ("sdiff -o .git/hooks/pre-commit a b", "sdiff writes .git/hooks/pre-commit: a hook"),
    ("scp host:x .git/hooks/pre-commit", "scp writes .git/hooks/pre-commit: a hook"),
    ("gpg -o .git/hooks/pre-commit -d y.gpg", "gpg writes .git/hooks/pre-commit: a hook"),
    ("openssl enc -d -out .git/config -in y", "openssl writes .git/config: git config"),
    ("ssh-keygen -q -f .git/hooks/x -N ''", "ssh-keygen writes .git/hooks/x: a hook"),
    ("git checkout-index --prefix=.git/hooks/ -a", "git writes .git/hooks: a hook"),
    ("git --work-tree=.git/hooks checkout HEAD -- .", "git writes .git/hooks: a hook"),
    ("git worktree add .git/hooks", "git writes .git/hooks: a hook"),
    ("git worktree add -b x .venv/lib", "git writes .venv/lib into the virtualenv"),
    ("git format-patch -o .git/hooks HEAD~1", "git writes .git/hooks: a hook"),
    ("git archive -o .git/hooks/pre-commit HEAD", "git writes .git/hooks/pre-commit: a hook"),
    ("git -C .git archive -o hooks/pre-commit HEAD", "git writes .git/hooks/pre-commit: a h"),
])
def test_an_archiver_or_output_file_into_the_git_dir_venv_or_node_modules_asks(
        linked: Path, command: str, said: str) -> None:
    asks_everywhere(linked, command, said, command.split()[0])


@pytest.mark.parametrize("command", [
    "tar -xf x.tar -C docs", "tar -czf out.tgz -C .git/hooks a.sample", "unzip -o x.zip -d docs",
    "cpio -i -D docs", "ar x --output=docs lib.a", "zip -O out.zip in.zip",
    "sdiff -o merged.txt a b", "scp host:x docs/", "gpg -o out.txt -d y.gpg",
    "openssl enc -d -out out.bin -in y", "ssh-keygen -t ed25519 -f docs/key -N ''",
    "git checkout-index --prefix=docs/ -a", "git --work-tree=docs checkout HEAD -- .",
    "git worktree add docs/wt", "git format-patch -o docs HEAD~1", "git archive -o o.tar HEAD",
    "git -C docs archive -o o.tar HEAD",
])
def test_the_same_writes_into_the_project_still_run(linked: Path, command: str) -> None:
    runs_under_its_rule(linked, command, command.split()[0])
