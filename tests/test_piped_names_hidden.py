"""``rg -l`` and ``fd`` piped to a reader list no dotfile unless told to: ``.env`` is not read.

appb29: ``rg -l foo | xargs wc -l`` under ``shell(rg*)``, ``shell(xargs*)``, ``shell(wc*)``
asked about ``.env`` (a lister's output was read as any name below its dirs), though rg and fd
skip hidden files and dirs unless ``--hidden`` / ``-u`` (``-H`` for fd), or a glob names one
(``rg -l x -g '.env'``). A lister that may print a hidden name, or a sensitive file that is no
dotfile, still asks.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_find_filters_listing import project as project  # the fixture: src/a.py and .env

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(rg*)", "shell(fd*)", "shell(xargs*)", "shell(wc*)",
                               "shell(cat*)", "shell(find*)", "shell(sort*)"))


@pytest.mark.parametrize("command", [
    "rg -l foo | xargs wc -l", "rg --files | xargs wc -l", "rg -l foo src | sort | xargs cat",
    "fd -e py | xargs wc -l", "fd . src | xargs cat", "wc -l $(rg -l foo)", "cat $(fd -e py)",
])
def test_a_lister_that_skips_dotfiles_reads_no_env(project: Path, command: str) -> None:
    found = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert found.action == "run", found.reason


@pytest.mark.parametrize("command", [
    "rg -l --hidden foo | xargs wc -l", "rg -uu -l foo | xargs wc -l",
    "rg -l foo -g '.env' | xargs wc -l", "fd -H env | xargs cat", "fd -u . | xargs cat",
    "fd --hidden -e env | xargs cat", "wc -l $(rg -l --hidden foo)",
    "find . | xargs wc -l",
])
def test_a_lister_that_may_print_a_dotfile_asks_naming_it(project: Path, command: str) -> None:
    found = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert found.action == "ask"
    assert found.read_why is not None and ".env" in found.read_why, found.read_why


def test_a_sensitive_file_that_is_no_dotfile_still_asks(project: Path) -> None:
    (project / "src" / "id_rsa").write_text("key\n")
    found = shell_verdict(RULES, "rg -l foo | xargs cat", "smart_approve", working_dir=project)
    assert found.action == "ask" and "id_rsa" in (found.read_why or ""), found.reason
