"""Write targets under allow rules, judged as ``tee``'s are (round 28): ``curl -o out.html URL``
and ``wget -O f URL`` asked whatever the file; now the file is judged as a write target — it
asks in the git directory, a virtualenv or ``node_modules``, on a sensitive file or outside
the project — and ``curl -O``/``wget`` saving in the dir they run in judge that dir
(docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import action_under_deny_rm
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture


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
])
def test_a_download_into_the_project_runs(project: Path, command: str) -> None:
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
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert said in reason, reason
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
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert said in reason, reason
