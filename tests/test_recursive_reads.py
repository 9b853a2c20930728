"""A recursive grep or diff under an allow rule asks when a sensitive file lies below what it
reads (docs/architecture.md §4, permission rules): ``shell(grep*)`` let ``grep -r KEY .`` read
the project's ``.env`` unasked."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.glob_words import MAX_NAMES
from goosectx.permissions import PermissionRules
from goosectx.recursive_reads import recursive_operands
from goosectx.shell_lexer import lex


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "main.py").write_text("TODO = 1\n")
    (work / "conf").mkdir()
    (work / "conf" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    (work / ".env").write_text("API_KEY=hunter2\n")
    return work


def _decide(work: Path, command: str, *rules: str) -> tuple[str, str]:
    verdict = shell_verdict(PermissionRules(allow=rules), command, "smart_approve",
                            working_dir=work)
    return verdict.action, verdict.reason


@pytest.mark.parametrize(("command", "holding"), [
    ("grep -r API_KEY .", ".env"),
    ("grep -rn API_KEY", ".env"),  # no directory named: grep -r reads the working dir
    ("egrep -R KEY conf", "conf/server.pem"),
    ("grep --recursive KEY conf", "conf/server.pem"),
    ("grep -d recurse KEY .", ".env"),
    ("grep -rn KEY . --exclude=.env", "conf/server.pem"),  # .env skipped, the rest read
])
def test_a_recursive_grep_over_a_sensitive_file_asks(
        project: Path, command: str, holding: str) -> None:
    action, reason = _decide(project, command, f"shell({command.split()[0]}*)")
    assert action == "ask"
    assert f"(holding {holding}) is a sensitive file" in reason


def test_a_recursive_diff_over_a_sensitive_file_asks(project: Path) -> None:
    assert _decide(project, "diff -ru . /dev/null", "shell(diff*)")[0] == "ask"


@pytest.mark.parametrize("command", ["grep -rn TODO src", "grep TODO src/main.py",
                                     "grep -r TODO src/main.py", "diff -r src src"])
def test_reads_that_reach_no_sensitive_file_still_run(project: Path, command: str) -> None:
    rule = f"shell({command.split()[0]}*)"
    assert _decide(project, command, rule)[0] == "run"


def test_a_rule_naming_the_directory_covers_it(project: Path) -> None:
    assert _decide(project, "grep -r KEY conf", "shell(grep -r KEY conf)")[0] == "run"


def test_too_many_names_to_walk_asks(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    for i in range(MAX_NAMES + 1):
        (big / f"f{i}").touch()
    action, reason = _decide(tmp_path, "grep -r x big", "shell(grep*)")
    assert action == "ask"
    assert "may name a sensitive file" in reason


@pytest.mark.parametrize(("command", "operands"), [
    ("grep -rn TODO src lib", ["src", "lib"]),
    ("grep -r TODO", ["."]),
    ("rgrep TODO", ["."]),
    ("grep -n TODO src", None),
    ("diff -u a b", ["a", "b"]),  # diff dirA dirB reads the files in them, -r or not
    ("diff -Nru a b", ["a", "b"]),
    ("cat -r x", None)])
def test_recursive_operands(command: str, operands: list[str] | None) -> None:
    assert recursive_operands(lex(command)[0].words) == operands


@pytest.mark.parametrize("command", [
    "tar -cf - . | tar -xOf -",  # the second tester's dump of .env after `a`
    "tar czf out.tgz conf", "cp -r . ../copy", "cp -a conf backup", "rsync -av ./ bak/",
    "zip -r o.zip .", "scp -r conf host:x"])
def test_archivers_and_recursive_copies_over_a_sensitive_file_ask(
        project: Path, command: str) -> None:
    programs = {part.split()[0] for part in command.split("|")}
    action, reason = _decide(project, command, *(f"shell({p}*)" for p in sorted(programs)))
    assert action == "ask"
    assert "sensitive file" in reason


@pytest.mark.parametrize("command", ["tar czf out.tgz src", "cp -r src copy", "tar -xf x.tar",
                                     "cp src/main.py m.py"])
def test_archivers_over_plain_files_still_run(project: Path, command: str) -> None:
    assert _decide(project, command, f"shell({command.split()[0]}*)")[0] == "run"
