"""Options that make an allowed reading program write, empty or read whole directories ask
(the fourth tester: ``git diff --output=Makefile`` replaced a project file, ``pytest
--basetemp=.git`` deleted the repository, ``git diff --no-index tests .`` printed .env)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture


@pytest.mark.parametrize("command", [
    "git diff HEAD~1 --output=Makefile",
    "git diff --output src/a.py",
    "git log -p --outp=.git/HEAD",
    "git diff --no-index tests .",
    "git diff --no-index docs .git",
    "pytest --basetemp=.git",
    "pytest -q --junitxml=Makefile",
    "pytest --junit-xml=.git/hooks/post-checkout",
    "pytest --debug=src/a.py",
    "pytest --basetemp data",
    "pytest -o cache_dir=.git",
    "pytest -ocache_dir=.git",
    "pytest --override-ini=cache_dir=.git",
    "python -m pytest --basetemp=.git",
])
def test_an_option_that_writes_or_reads_whole_dirs_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "git diff HEAD~1", "git diff --stat", "git log -p -3", "git show HEAD:src/a.py",
    "pytest -q", "pytest -x tests/test_a.py", "pytest -k output", "python -m pytest -q",
])
def test_the_reading_forms_still_run(project: Path, command: str) -> None:
    assert _verdict(project, command)[0] == "run"
