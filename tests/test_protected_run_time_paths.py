"""A write target bash makes at run time that may be the git directory (approval round 7).

Under ``--mode auto --deny 'shell(rm *)'`` these RAN: a loop variable (``for d in .git; do tee
$d/config``), ``$(git rev-parse --git-dir)/hooks/x``, ``$GIT_DIR/hooks/x``. A variable or
``$( )`` followed by what a git directory holds (``config``, ``HEAD``, ``hooks/…``), or one
naming ``GIT_DIR`` / ``--git-dir``, is asked about; other computed targets still run.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict

ASKED = [
    "for d in .git; do tee $d/config < src/a.py; done",
    'cp src/a.py "$(git rev-parse --git-dir)/hooks/pre-commit"',
    "cp src/a.py $GIT_DIR/hooks/pre-commit", 'cp src/a.py "${GIT_DIR}/config"',
    "echo x > $d/HEAD", "cp src/a.py `git rev-parse --git-dir`/hooks/x",
    "cp src/a.py $d/hooks/", "cp src/a.py $GIT_COMMON_DIR/hooks/x",
]
STILL_RUN = [
    "cp src/a.py $OUT/a.py", "tee $HOME/.config/app/config < src/a.py",
    "echo x > $TMPDIR/out.txt", "for f in src/*.py; do cp $f build/; done",
    'cp src/a.py "$(mktemp -d)/x"', "cp src/a.py build/git-dir-notes/a",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases([], ASKED, STILL_RUN))
def test_a_run_time_target_that_may_be_the_git_dir_is_asked_about(command: str,
                                                                  expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_the_reason_names_the_run_time_path() -> None:
    verdict = shell_verdict(DENY_RM, "for d in .git; do tee $d/config < src/a.py; done")
    assert "tee writes $d/config, a path bash makes at run time" in verdict.reason
    assert "git directory" in verdict.reason
