"""A short-option cluster's glued file and git pathspecs, judged as the program reads them
(a fresh-eyes tester: ``grep -cf.env F`` read .env as patterns while ``grep -f.env F`` asked;
``git log -p -- '*.env'`` printed a once-committed .env while ``-- .env`` asked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture


@pytest.mark.parametrize("command", [
    "grep -cf.env src/a.py", "grep -hf.env src/a.py", "grep -if.env a.txt",  # H9
    "grep -nhf.env a.txt", "grep -c -f.env a.txt", "grep -cf/etc/passwd a.txt",
    "grep -nf ../notes.json a.txt",
])
def test_a_clustered_short_option_with_its_file_glued_is_judged_by_the_file(
        project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "grep -ci foo a.txt", "grep -rn x src", "grep -nw x a.txt", "tar -xzf x.tar",
    "tar -czf out.tar.gz src", "sort -k2n a.txt", "grep -A3 x a.txt",
])
def test_clusters_naming_no_sensitive_file_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "git log -p -- '*.env'", "git log -p -- ':(glob).e*'",  # H11a
    "git log -p '*.env'", "git diff HEAD~3 -- '.en?'", "git show HEAD~1 -- '*.pem'",
    "git log -p -- 'src/*'", "git grep KEY -- '*.local'", "git log -p -- '**/.ssh/*'",
    "git log -p -- '*.PEM'", "git log -p -- ':(icase)*.ENV'", "git log -p -- ':(top).env'",
    "git show HEAD:.env", "git show HEAD~2:config/.env", "git show :0:.env",
    "git cat-file -p HEAD:.env", "git log -p -- ':(attr:secret)'",
    "git log -p -- '\\.env'", "git log -p -- 'src/\\.e\\nv'",
])
def test_a_git_pathspec_or_commit_path_that_may_match_a_sensitive_file_asks(
        project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "git log -p -- src/a.py", "git diff -- '*.py'", "git log -p -- 'src/*.py'",
    "git diff HEAD~1 -- '*.md'", "git show HEAD:src/a.py", "git log -- ':!*.env'",
    "git log --oneline", "git commit -m 'fix: update readme'", "git diff --stat",
])
def test_common_git_pathspecs_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason
