"""A ``find -printf`` feeding ``$(…)`` or ``xargs`` is asked about in words, not by its format
(docs/architecture.md §4, permission rules).

``cat $(find . -name '*.py' -printf '%h/../.env\\n')`` is rightly asked about (the names are
made from a format: any may be), but the question named the raw format ``%h/../.env\\n`` as a
sensitive file; a format alone (``find . -printf '%f\\n'``) reads nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_find_filters_listing import project as project  # the fixture: src/a.py and .env

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(find*)", "shell(xargs*)", "shell(cat*)", "shell(wc*)",
                               "shell(sort*)"))
SAID = "find -printf prints names made from a format"


@pytest.mark.parametrize("command", [
    "cat $(find . -name '*.py' -printf '%h/../.env\\n')",
    "cat $(find . -name '*.py' -printf '%p\\n')", "wc -l $(find src -printf '%f\\n')",
    "find . -name '*.py' -printf '%h/../.env\\n' | xargs cat",
    "find src -printf '%p\\n' | sort | xargs wc -l",
])
def test_a_find_printf_feeding_a_read_is_asked_about_in_words(project: Path,
                                                              command: str) -> None:
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask", command
    assert SAID in verdict.reason, verdict.reason
    assert "%" not in verdict.reason.partition(SAID)[2], verdict.reason


@pytest.mark.parametrize("command", [
    "find . -printf '%f\\n'", "find . -name '*.py' -printf '.env %p\\n'",
    "find src -printf '%h/../.env\\n' | wc -l",
])
def test_a_printf_format_alone_reads_nothing(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "run"


@pytest.mark.parametrize("command", [
    "find . -fprintf .env '%p'", "find . -printf '%p' -fprint .env",
    "find . -printf '%p' -exec cat .env \\;", "cat .env $(find src -printf '%p')",
])
def test_a_file_it_writes_or_reads_is_still_asked_about(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "ask"
