"""The one per-program option table (goosectx/option_table.py): each kind of entry still makes
the approval ask, read through the one lookup, with GNU prefixes, subcommands and ``--``."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import action_under_deny_rm, shell_verdict
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture

from goosectx.glob_words import glob_options
from goosectx.hidden_names import hidden_names
from goosectx.option_table import OPTIONS, Does, Hit, option_hits
from goosectx.permissions import PermissionRules
from goosectx.shell_words import Word


@pytest.mark.parametrize("command", [
    "python3 -m pytest --junit=Makefile",  # WRITES: a prefix of --junitxml / --junit-xml
    "git log -p --outp .git/HEAD",
    "git diff --no-ind docs .",  # WHOLE, by a prefix
    "git add --pathspec-from-file=list",  # LIST, on a subcommand's entry
    "git -C . rm --pathspec-f list",
    "git checkout --pathspec-from-file=-", "git restore --pathspec-from-file=l",
    "git stash push --pathspec-from-file=l",
    "md5sum -c SUMS", "sha256sum --check SUMS", "b2sum --ch SUMS", "sha1sum -wc SUMS",
    "du --files0=list",
    "find . -fprintf .git/hooks/pre-commit '%p'",  # OUTPUT into a hook
    "cp --target=.git/hooks pre-commit",  # INTO a hooks dir, by a prefix
    "install -t .git/hooks pre-push",
])
def test_each_kind_of_table_entry_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "md5sum a.txt", "sha256sum a.txt README.md", "git add src/a.py", "git rm --cached a.txt",
    "git checkout -- a.txt", "find . -name '*.py' -fprint /dev/stdout",
    "cp --target-directory=build a.txt", "pytest -q tests", "git log --oneline -- src",
    "sort -- --files0-from=x",  # after --: a file named so, no option
])
def test_the_forms_no_entry_matches_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "make -f /dev/stdin", "make --makef=/dev/stdin", "gmake --file /dev/stdin",
])
def test_a_program_file_entry_read_from_standard_input_asks_under_a_deny_rule(
        command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


def test_the_lookup_gives_the_option_its_value_and_the_subcommand() -> None:
    assert list(option_hits("find", [".", "-fprint", "out"])) == [
        Hit(Does.OUTPUT, "find", "-fprint", "out")]
    assert list(option_hits("git", ["-C", ".", "rm", "--pathspec-from=l"])) == [
        Hit(Does.LIST, "git rm", "--pathspec-from=l", "l")]
    assert list(option_hits("git", ["log", "--", "--output=x"])) == []
    assert list(option_hits("tar", ["cTf", "-", "x.tar"]))[0].does is Does.LIST
    assert list(option_hits("tar", ["-cf", "T"])) == []  # T is -f's value, not -T


@pytest.mark.parametrize("line", ["parallel --arg-f list cat", "parallel cat :::: list",
                                  "parallel -a list cat"])
def test_an_arguments_entry_makes_the_files_read_unknown(line: str) -> None:
    why = hidden_names([Word(w, w) for w in line.split()])
    assert why is not None and "arguments of its command from a file" in why


def test_every_kind_has_an_entry_and_every_entry_names_an_option() -> None:
    kinds = {entry.does for entries in OPTIONS.values() for entry in entries}
    assert kinds == set(Does)
    for name, entries in OPTIONS.items():
        for entry in entries:
            assert entry.longs or entry.words or entry.letters or entry.flags or entry.starts, name
            assert all(not f.startswith("-") and f == f.lower() for f in entry.flags), name
            assert all(o.startswith("--") for o in entry.longs), name


@pytest.mark.parametrize(("command", "expected"), [
    ("BASH_ENV=./rc bash -c 'cat *'", "ask"), ("export BASH_ENV=./rc; bash -c 'cat *'", "ask"),
    ("ENV=./rc sh -ic 'cat *'", "ask"), ("ENV=./rc bash --posix -i -c 'cat *'", "ask"),
    ("ENV=prod cat *", "run"), ("ENV=./rc sh -c 'cat *'", "run"),  # sh -c reads no ENV file
])
def test_a_startup_file_a_line_sets_asks_about_its_globs(project: Path, command: str,
                                                         expected: str) -> None:
    # the file BASH_ENV (any bash) or ENV (an interactive sh) names may `shopt -s dotglob`
    verdict = shell_verdict(PermissionRules(allow=("shell(*)",)), command, "smart_approve",
                            working_dir=project)
    assert verdict.action == expected, verdict.reason


def test_a_startup_file_counts_as_a_glob_option_source() -> None:
    # what a !command typed by the user is judged by (no permission rule there)
    assert glob_options("BASH_ENV=./rc bash -c 'cat *'")
    assert glob_options("ENV=./rc dash -i")
    assert not glob_options("ENV=prod cat *") and not glob_options("cat *")
