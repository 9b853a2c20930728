"""Values a line gives a variable by ``read``, ``mapfile``, ``printf -v`` or an ``echo``/``printf``
substitution (round 31, appr31c): ``read B <<< .git/hooks; cp x $B/pre-commit``, ``printf -v B
%s .git/hooks; …`` and ``B=$(echo .git/hooks); …`` ran under a deny rule, the variable taken as
unknown. The value the line shows is now read; one it does not show stays unknown and runs as
before (``cp "$f" dist/``) (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict
from test_reads_names_deletes import project as project  # the fixture

HOOK = "writes .git/hooks/pre-commit: a hook is a command a later git runs"


@pytest.mark.parametrize("command", [
    "read B <<< .git/hooks; cp x $B/pre-commit",
    'read -r B <<< ".git/hooks"; cp x "$B/pre-commit"',
    'read -r A B <<< "x .git/hooks"; cp x "$B/pre-commit"',
    'read -ra A <<< ".git/hooks y"; cp x "$A/pre-commit"',
    'read -d "" B <<< .git/hooks; cp x "$B/pre-commit"',
    'D=.git; read B <<< "$D/hooks"; cp x "$B/pre-commit"',
    "mapfile -t A <<< .git/hooks; cp x $A/pre-commit",
    "readarray A <<< .git/hooks; tee $A/pre-commit < x",
    "printf -v B %s .git/hooks; cp x $B/pre-commit",
    "printf -v B '%s/%s' .git hooks; cp x $B/pre-commit",
    "printf -vB -- %s .git/hooks; cp x $B/pre-commit",
    "B=$(echo .git/hooks); cp x $B/pre-commit",
    "B=`echo .git/hooks`; cp x $B/pre-commit",
    "B=$(echo -n .git/hooks); cp x $B/pre-commit",
    "B=\"$(printf '%s' .git)/hooks\"; cp x \"$B/pre-commit\"",
    "X=$(echo a) B=$(echo .git/hooks); cp x $B/pre-commit",
    "export B=$(printf %s .git/hooks); cp x $B/pre-commit",
    "if true; then read B <<< .git/hooks; fi; echo x > $B/pre-commit",
    "IFS=:; read A B <<< 'x:.git/hooks'; cp x $B/pre-commit",  # split on the line's IFS
    "cp x $(echo .git/hooks)/pre-commit", "tee $(printf %s/%s .git hooks)/pre-commit < x",
    'cp x "$(git rev-parse --git-path hooks/pre-commit)"',
    "echo x > $(git rev-parse --git-path hooks/pre-commit)",
    "cp x ${d:-.git/hooks}/pre-commit", "cp x ${HOME:+.git/hooks}/pre-commit",
])
def test_a_value_read_printed_or_substituted_on_the_line_is_judged(project: Path,
                                                                   command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask", command
    assert HOOK in verdict.reason, verdict.reason


def test_git_s_environment_read_from_a_here_string_is_judged(project: Path) -> None:
    command = "read W <<< .git; export GIT_WORK_TREE=$W; git checkout -- hooks/x"
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).reason.startswith(
        "it sets GIT_WORK_TREE, as git --work-tree")


@pytest.mark.parametrize("command", [
    'f=$(ls | head -1); cp "$f" dist/', 'cp "$f" dist/', "B=$(mktemp -d); cp x $B/pre-commit",
    'read f <<< "$1"; cp "$f" dist/', "read B <<< dist; cp x $B/y",
    "B=$(echo dist); cp x $B/y", "printf -v B %s dist; cp x $B/y",
    "(echo .git/hooks); B=$(pwd); cp x $B/y",  # a subshell's output is no value of B
    "echo .git/hooks | read B; cp x $B/y",  # read in a pipeline: B is set in a subshell only
    "printf -v B %d 3; cp x out$B.txt", "read A B <<< '.git/hooks dist'; cp x $B/y",
    'cp x "$(pwd)/dist/"', "cp x $(echo dist)/y", 'cp "$(git rev-parse --show-toplevel)/a" b',
    "cp x ${OUT:-dist}/y", 'cp "$f" "${DEST:-build}/"', "git rev-parse --git-path hooks",
])
def test_a_value_the_line_does_not_show_or_an_everyday_one_still_runs(project: Path,
                                                                      command: str) -> None:
    assert shell_verdict(DENY_RM, command, "auto", working_dir=project).action == "run"
