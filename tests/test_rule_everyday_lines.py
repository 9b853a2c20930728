"""Everyday lines testers expected to run under their rules (appr30); the risky neighbours ask.

``node --test`` asked under ``--deny 'shell(rm *)'`` as "a program it reads from its standard
input" (it runs the project's test files, as ``pytest`` does); under ``shell(git status*)``,
``git -C <the project> status`` asked; under ``shell(make*)``, ``set -o pipefail; make test``
asked for a rule covering ``set -o pipefail`` (bash's own setting: no program, no file); under
``shell(rsync*)``, ``rsync -avz --exclude .git ./ dev:/srv/app/`` asked as a read of ``.git``
(the exclude is a pattern, and rsync never enters ``.git``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, shell_verdict


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".git" / "config").write_text("[core]\n")
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text("x = 1\n")
    return work


@pytest.mark.parametrize("command", ["node --test", "node --test --watch",
                                     "node --test --test-reporter-destination=report.txt"])
def test_node_test_runs_under_a_deny_rule(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ("node", "standard input"), ("node -", "standard input"),
    ("node --test --test-reporter-destination=.git/hooks/pre-commit", "a hook"),
])
def test_node_reading_its_program_or_writing_a_hook_still_asks(project: Path, command: str,
                                                               said: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "ask" and said in verdict.reason, verdict.reason
