"""The fresh-eyes tester's D4: a worktree ``git grep -- '*.json'`` is judged by the files git
tracks, as ``git diff`` is, and ``git ls-files`` / ``git log --oneline|--stat`` with a pathspec
print names and commit subjects, no file's contents (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_git_diff_tracked_pathspecs import _action, _git
from test_git_diff_tracked_pathspecs import repo as repo  # the fixture


@pytest.mark.parametrize("command", [
    "git grep -n foo -- '*.json'", "git grep foo '*.yml'", "git grep -e foo -- '*.toml'",
    "git grep -n -A 2 foo -- '*.json'", "git grep --cached foo -- '*.json'",
    "git grep -il foo -- '*env'",  # .env is not tracked: git grep never reads it
])
def test_a_worktree_git_grep_of_globs_matching_no_tracked_secret_runs(repo: Path,
                                                                      command: str) -> None:
    assert _action(repo, command) == "run", command


@pytest.mark.parametrize("command", [
    "git grep foo HEAD -- '*.json'", "git grep -e foo main -- '*.json'",
    "git grep --untracked foo -- '*env'", "git grep --no-index foo -- '*env'",
    "git grep --recurse-submodules foo -- '*.json'", "git -C src grep foo -- '*.json'",
    "git grep foo HEAD~1 '*env'", "git grep -f pats HEAD -- '*env'",
])
def test_a_git_grep_beyond_the_index_still_asks(repo: Path, command: str) -> None:
    assert _action(repo, command) == "ask", command


def test_a_git_grep_glob_matching_a_tracked_env_asks(repo: Path) -> None:
    _git(repo, "add", "-f", ".env")
    assert _action(repo, "git grep K -- '*env'") == "ask"
    assert _action(repo, "git grep K -- '*.json'") == "run"


@pytest.mark.parametrize("command", [
    "git ls-files -- '*.env*'", "git ls-files .env", "git ls-files -co --exclude-standard '.e*'",
    "git log --oneline -- .env", "git log --stat -- .env", "git log --name-only -- '*.env'",
    "git log -n 3 --format='%h %s' -- .env", "git log --oneline --follow .env",
])
def test_names_and_subjects_of_a_sensitive_file_run(repo: Path, command: str) -> None:
    assert _action(repo, command) == "run", command


@pytest.mark.parametrize("command", [
    "git log -p -- .env", "git log --patch --oneline -- .env", "git log -u -- '*.env'",
    "git log -U1 -- .env", "git log -S K -- .env", "git log -GK -- .env",
    "git log --word-diff -- .env", "git log -L1,1:.env", "git log --raw -- .env",
    "git log --check -- .env", "git log --cc -- .env", "git log --oneline -m -- .env",
    "git log --oneline --output=x -- .env", "git ls-files -s -- .env",
    "git ls-files --format='%(objectname)' .env", "git ls-files -X .env",
])
def test_git_log_or_ls_files_that_may_print_contents_asks(repo: Path, command: str) -> None:
    assert _action(repo, command) == "ask", command
