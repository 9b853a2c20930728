"""``find``'s ``-path``/``-wholename``/``-ipath`` narrow the names it prints, and a ``-newer``
file is compared by its times, never read (docs/architecture.md §4, permission rules).

Testers found ``cat $(find . -name '*.py' -newer .env)`` and ``cat $(find . -wholename
'*.py')`` asked about ``.env``: ``-newer``/``-anewer``/``-cnewer``/``-samefile``/``-newerXY``
stat their file; a path pattern ending in a plain suffix (``*.py``, ``*/src/a.py``) prints only
names ending so. A suffix that a sensitive name ends in, or none, still asks.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.find_words import find_patterns
from goosectx.permissions import PermissionRules
from goosectx.shell_lexer import lex

RULES = PermissionRules(allow=("shell(find*)", "shell(xargs*)", "shell(cat*)", "shell(grep*)",
                               "shell(wc*)"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src" / "deep").mkdir(parents=True)
    (work / "src" / "a.py").write_text("def f(): pass\n")
    (work / "src" / "deep" / "b.PY").write_text("x = 1\n")
    (work / ".env").write_text("K=1\n")
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[core]\n")
    return work


def _action(work: Path, command: str) -> str:
    return shell_verdict(RULES, command, "smart_approve", working_dir=work).action


@pytest.mark.parametrize("command", [
    "cat $(find . -name '*.py' -newer .env)", "cat $(find . -name '*.py' -anewer .env)",
    "cat $(find . -name '*.py' -cnewer .git/config)", "find . -name '*.py' -newer .env | xargs cat",
    "cat $(find . -name '*.py' ! -samefile .env)", "cat $(find . -name '*.py' -newermm .env)",
    "cat $(find . -wholename '*.py')", "cat $(find . -ipath '*.PY')", "cat $(find . -path '*.py')",
    "cat $(find . -iwholename '*/DEEP/*.py')", "find . -path './src/*' -path '*.py' | xargs wc -l",
    "cat $(find . -path './src/a.py')", "cat $(find src -path 'src/[d]eep/*.PY')",
    "grep -n f $(find . -type f -path '*/src/*.py')",
])
def test_path_tests_and_time_references_that_print_no_secret_run(project: Path,
                                                                  command: str) -> None:
    assert _action(project, command) == "run", command


@pytest.mark.parametrize("command", [
    "cat $(find . -newer .env)",  # no name test: every file below . is printed
    "cat $(find . -path '*env')", "cat $(find . -ipath '*ENV')", "cat $(find . -path '*')",
    "cat $(find . -path '*/')", "cat $(find . -path '*.py' -o -name .env)",
    "cat $(find . -not -path '*.py')", "cat $(find . -path '*/.git/*')",
    "cat $(find . -wholename '*config')", "cat $(find . -path './.env')",
    "cat $(find . -path '*[.]env')", "cat $(find . -path '*\\.env')",
    "find . -path '*' | xargs grep -r KEY", "cat $(find . -path '*.py' -exec cat .env \\;)",
    "cat .env $(find . -name '*.py' -newer .env)",  # .env named by cat itself
    "cat $(find . -name '*.py' -newer .env -printf '%h/../.env\\n')",
])
def test_what_may_print_or_read_a_secret_still_asks(project: Path, command: str) -> None:
    assert _action(project, command) == "ask", command


def test_a_path_glob_matching_a_dir_prints_what_is_below_for_grep_r(project: Path) -> None:
    (project / "conf.py").mkdir()
    (project / "conf.py" / ".env").write_text("K=1\n")
    assert _action(project, "find . -path '*.py' | xargs grep -r K") == "ask"


def test_newer_operands_are_no_paths_to_judge() -> None:
    words = lex("find . -newer .env -anewer a -cnewer b -samefile c -newerBt '1 day' -name x")[
        0].words
    assert [w.value for w in find_patterns(words)] == [".env", "a", "b", "c", "1 day", "x"]
