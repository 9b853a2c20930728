"""``git apply --build-fake-ancestor=F`` writes F, an index of the diff's preimages (round 31).

It ran under a deny rule with F ``.git/config``, a hook or a ``.pth`` file in the virtualenv,
and with ``--check``/``--stat`` too (git builds the ancestor before it checks); F is judged as
a write, as ``patch ORIGINAL DIFF``'s ORIGINAL is (docs/architecture.md §4).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, asks_under_deny_rm, shell_verdict
from test_protected_line_variables import PTH, venv_project

from goosectx.diff_appliers import applied


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a virtualenv and a diff of a plain file."""
    work = venv_project(tmp_path)
    (work / "a.txt").write_text("one\n")
    (work / "x.diff").write_text("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n")
    return work


@pytest.mark.parametrize(("command", "said"), [
    ("git apply --build-fake-ancestor=.git/config x.diff", "git writes .git/config: git config"),
    ("git apply --build-fake-ancestor .git/hooks/pre-commit x.diff",
     "git writes .git/hooks/pre-commit: a hook is a command a later git runs"),
    (f"git apply --build-fake-ancestor={PTH}/x.pth x.diff",
     f"git writes {PTH}/x.pth into the virtualenv .venv"),
    ("git apply --build-f=.git/config x.diff", "git writes .git/config"),
    ("git apply --check --build-fake-ancestor=.git/config x.diff", "git writes .git/config"),
    ("git apply --stat --build-fake-ancestor=.git/config x.diff", "git writes .git/config"),
    ("sudo git apply --build-fake-ancestor=.git/config x.diff", "git writes .git/config"),
])
def test_a_fake_ancestor_where_a_later_command_runs_asks(project: Path, command: str,
                                                         said: str) -> None:
    asks_under_deny_rm(project, command, said)


@pytest.mark.parametrize("command", [
    "git apply x.diff", "git apply --build-fake-ancestor=/tmp/anc x.diff",
    "git apply --check x.diff", "git apply --stat x.diff",
    "git apply --check --build-fake-ancestor=/tmp/anc x.diff", "git apply --3way x.diff",
    "git diff | git apply --stat",
])
def test_applying_or_checking_a_plain_diff_still_runs(project: Path, command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"


def test_a_check_with_an_ancestor_writes_only_the_ancestor() -> None:
    """git apply --check writes none of the diff's files: only F is read as written."""
    how = applied("git", ["apply", "--check", "--build-fake-ancestor=anc", "x.diff"])
    assert how is not None
    assert (how.written, how.files) == (["anc"], [])
    assert applied("git", ["apply", "--check", "x.diff"]) is None
