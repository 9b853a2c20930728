"""In-place editors writing into the git dir or a venv (round 28, gitw28): ``sed
-i'.git/hooks/*' -n p pre-commit`` ran under ``shell(sed*)`` and in auto mode under a deny rule —
GNU sed keeps its backup where the suffix's ``*`` is the file's name, here a live hook — and
``perl -pi -e … .git/config``, ``ruby -i``, ``vim -c wq .git/config`` ran in auto mode; their
files and backups are now judged as write targets (docs/architecture.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_protected_write_expansions import asks_everywhere, runs_under_its_rule
from test_protected_write_expansions import linked as linked  # the fixture

from goosectx.sed_script import backups, in_place_files


@pytest.mark.parametrize(("command", "said"), [
    ("sed -i'.git/hooks/*' -n p pre-commit", "sed writes .git/hooks/pre-commit: a hook"),
    ("sed --in-place=.git/hooks/* -n p pre-commit", "sed writes .git/hooks/pre-commit: a hook"),
    ("sed -ni'.git/*' p notes.txt", "sed writes .git/notes.txt in the git directory"),
    ("sed -i'../.git/hooks/*' s/a/b/ docs/pre-commit", ".git/hooks/pre-commit: a hook"),
    ("sed -i 1d .git/HEAD", "sed writes .git/HEAD in the git directory"),
    ("sed -i s/a/b/ .venv/lib/x.pth", "sed writes .venv/lib/x.pth into the virtualenv .venv"),
    ("sed --follow-symlinks -i s/a/b/ lnk2", "sed writes .git/hooks/pre-commit.sample: a hook"),
    ("perl -pi -e s/a/b/ .git/config", "perl writes .git/config: git config"),
    ("perl -i -pe s/a/b/ .git/config", "perl writes .git/config: git config"),
    ("perl -pi'.git/hooks/*' -e 1 pre-commit", "perl writes .git/hooks/pre-commit: a hook"),
    ("perl -i.orig -pe s/a/b/ .venv/lib/x.pth", "perl writes .venv/lib/x.pth into the virtual"),
    ("ruby -i -pe '$_.upcase!' .git/config", "ruby writes .git/config: git config"),
    ("ruby -rset -i -pe 'x' .git/config", "ruby writes .git/config: git config"),
    ("perl -Mstrict -0777 -pi -e 1 .git/HEAD", "perl writes .git/HEAD in the git directory"),
    ("vim -c wq .git/config", "vim writes .git/config: git config"),
    ("ex -sc '%d|x' .git/HEAD", "ex writes .git/HEAD in the git directory"),
])
def test_an_in_place_edit_or_its_backup_into_the_git_dir_or_a_venv_asks(linked: Path,
                                                                         command: str,
                                                                         said: str) -> None:
    asks_everywhere(linked, command, said, command.split()[0])


@pytest.mark.parametrize(("command", "program"), [
    ("sed -i.bak s/a/b/ notes.txt", "sed"), ("sed -i'*.orig' s/a/b/ notes.txt", "sed"),
    ("sed -n 1p .git/HEAD", "sed"), ("perl -pi.bak -e 's/.git/x/' notes.txt", "perl"),
    ("perl -pe s/a/b/ .git/HEAD", "perl"), ("ruby -pi -e 'x' notes.txt", "ruby"),
    ("vim -c wq notes.txt", "vim"),
])
def test_in_place_edits_in_the_project_still_run(linked: Path, command: str,
                                                 program: str) -> None:
    runs_under_its_rule(linked, command, program)


def test_the_backup_names_follow_gnu_seds_rule() -> None:
    assert backups("docs/a.txt", ".bak") == ["docs/a.txt.bak"]
    assert backups("docs/a.txt", "old/*.orig") == ["old/a.txt.orig", "docs/old/a.txt.orig"]
    assert backups("a.txt", "") == []
    assert in_place_files("sed", ["-i~", "s/a/b/", "x"]) == ["x", "x~"]
    assert in_place_files("sed", ["-n", "p", "x"]) == []
