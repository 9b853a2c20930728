"""Input redirections, link printers, make's venv interpreter and the reasons of an ask.

A fresh-eyes tester found the approval check of shell lines under allow rules asking about
``wc -l < data.csv`` (``< data.csv is covered by no allow rule``), ``readlink -f
.venv/bin/python`` and ``make PYTHON=.venv/bin/python test`` (``… is outside the project``),
and giving wrong reasons: ``printenv PATH`` and ``command cat .env`` "may change something"
(docs/architecture.md §4, permission rules). Beside each fix: the commands it must not let
through.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.approval import ApprovalVerdict
from goosectx.permissions import PermissionRules

RULES = ("shell(wc*)", "shell(cat*)", "shell(head*)", "shell(sort*)", "shell(cd*)",
         "shell(readlink*)", "shell(realpath*)", "shell(make*)", "shell(xargs*)",
         "shell(file*)", "shell(bash*)", "shell(echo*)", "shell(ls*)", "shell(jq*)")
"""The allow rules: the programs, not the files they read."""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A project with data, a ``.env``, links in and out, and a venv as ``python -m venv``
    makes it (its interpreter a link to the base one outside the project)."""
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "data.csv").write_text("a,b\n1,2\n")
    (work / ".env").write_text("SECRET_KEY=supersecret123\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    home = tmp_path / "pyenv" / "bin"
    home.mkdir(parents=True)
    (home / "python3.12").write_text("#!/bin/sh\n")
    (home / "python3.12").chmod(0o755)
    (home / "notes.txt").write_text("not python\n")
    venv = work / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {home}\nversion = 3.12.1\n")
    os.symlink(home / "python3.12", venv / "bin" / "python3")
    os.symlink("python3", venv / "bin" / "python")
    os.symlink(".env", work / "envlink")
    os.symlink(tmp_path / "secret.txt", work / "outlink")
    return work


def _verdict(work: Path, command: str, rules: tuple[str, ...] = RULES) -> ApprovalVerdict:
    return shell_verdict(PermissionRules(allow=rules), command, "smart_approve",
                         working_dir=work)


def _runs(work: Path, command: str) -> None:
    verdict = _verdict(work, command)
    assert verdict.action == "run", (command, verdict.reason)


def _asks(work: Path, command: str, said: str, rules: tuple[str, ...] = RULES) -> None:
    verdict = _verdict(work, command, rules)
    assert verdict.action == "ask", (command, verdict.reason)
    assert said in verdict.reason, (command, verdict.reason)


# F1: `< FILE` reads FILE as naming it does, under the rule of the command it feeds.

@pytest.mark.parametrize("command", [
    "wc -l < data.csv", "cat - < data.csv", "< data.csv wc -l", "wc -l 0< data.csv",
    "head -1 <data.csv", "cat < data.csv | sort", "cd src && wc -l < ../data.csv",
    "sort < data.csv 2>/dev/null", "jq -R . < data.csv",
])
def test_an_input_redirection_is_read_under_the_commands_rule(work: Path, command: str) -> None:
    _runs(work, command)


@pytest.mark.parametrize(("command", "said"), [
    ("cat < .env", ".env is a sensitive file, which the allow rule shell(cat*) does not cover"),
    ("wc -l < envlink", "envlink is a sensitive file"),  # a link to it
    ("wc -l < .e*", ".e* (matching .env) is a sensitive file"),
    ("echo hi < .env", ".env is a sensitive file"),  # opened whatever the command reads
    ("wc -l < ../secret.txt", "../secret.txt is outside the project"),
    ("wc -l < outlink", "outlink (→"),  # a link leading out: followed, as cat's would be
    ("cd src && wc -l < ../../secret.txt", "is outside the project"),
    ("wc -l < /proc/self/environ", "outside the project"),
    ("wc -l < \"$F\"", "$F may be outside the project"),
    ("wc -l < data.csv > out.txt", "> out.txt is covered by no allow rule"),  # a write
    ("wc -l <> data.csv", "> data.csv is covered by no allow rule"),  # opens to write, creates
    ("wc -l < data.csv >> log.txt", "> log.txt is covered by no allow rule"),
    ("wc -l < data.csv &> log.txt", "> log.txt is covered by no allow rule"),
    ("wc -l < data.csv >| log.txt", "> log.txt is covered by no allow rule"),
    ("cat <& data.csv", "< data.csv is covered by no allow rule"),  # a descriptor, no file
    ("rm -f x < data.csv", "rm -f x is covered by no allow rule"),  # its command's rule only
    ("echo $(< data.csv)", "< data.csv is covered by no allow rule"),  # no command: bash's read
    ("{ cat; } < data.csv", "< data.csv is covered by no allow rule"),  # a compound command's
    ("while read f; do cat $f; done < data.csv", "covered by no allow rule"),
    ("exec < data.csv; cat", "covered by no allow rule"),
    ("< data.csv", "< data.csv is covered by no allow rule"),  # nothing reads it
])
def test_what_an_input_redirection_must_not_let_through(work: Path, command: str,
                                                        said: str) -> None:
    _asks(work, command, said)


@pytest.mark.parametrize(("command", "said"), [
    ("xargs cat < data.csv", "it takes the files it reads from its input"),  # names in a file
    ("file -f - < data.csv", "reads the files a list or its input names"),
    ("sort --files0-from=- < data.csv", "reads the files a list or its input names"),
    ("bash < data.csv", "runs the commands it reads from its standard input"),
])
def test_a_redirected_list_of_names_or_commands_still_asks(work: Path, command: str,
                                                            said: str) -> None:
    rules = (*RULES, "shell(sort*)")
    deny = PermissionRules(allow=rules, deny=("shell(rm*)",))
    verdict = shell_verdict(deny, command, "smart_approve", working_dir=work)
    assert verdict.action == "ask", (command, verdict.reason)
    assert said in verdict.reason, (command, verdict.reason)


def test_a_redirection_is_no_read_the_denied_command_escapes(work: Path) -> None:
    deny = PermissionRules(allow=RULES, deny=("shell(cat*)",))
    assert shell_verdict(deny, "cat < data.csv", "auto", working_dir=work).action == "deny"
    asks = PermissionRules(allow=RULES, ask=("shell(wc*)",))
    assert shell_verdict(asks, "wc -l < data.csv", "auto", working_dir=work).action == "ask"


# F2: readlink and realpath print where a link leads; make's venv interpreter.

@pytest.mark.parametrize("command", [
    "readlink -f .venv/bin/python", "readlink .venv/bin/python", "realpath .venv/bin/python",
    "realpath -e .venv/bin/python3", "readlink -f outlink", "realpath .env",
    "readlink -f envlink", "realpath src data.csv",
    "make PYTHON=.venv/bin/python test", "make PYTHON=.venv/bin/python3",
    "make test PY=.venv/bin/python3", "cd src && make PYTHON=../.venv/bin/python",
    "make PYTHON=.venv/bin/../bin/python",
])
def test_printing_a_links_target_or_naming_the_venv_interpreter_runs(work: Path,
                                                                     command: str) -> None:
    _runs(work, command)


def test_a_real_venv_interpreter_counts(tmp_path: Path) -> None:
    work = tmp_path / "real"
    work.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(work / ".venv")],
                   check=True, capture_output=True)
    for command in ("make PYTHON=.venv/bin/python test", "readlink -f .venv/bin/python"):
        verdict = _verdict(work, command)
        assert verdict.action == "run", (command, verdict.reason)


@pytest.mark.parametrize(("command", "said"), [
    ("realpath ..", ".. is outside the project"),  # named outside: as ls -d .. and stat ..
    ("readlink -f /etc/passwd", "/etc/passwd is outside the project"),
    ("realpath --relative-to=.. src", "outside the project"),
    ("readlink -f .venv/bin/python/", "outside the project"),  # a trailing / follows it
    ("make PYTHON=outlink", "PYTHON=outlink (→"),  # a recipe may read what it names
    ("make F=../secret.txt", "F=../secret.txt is outside the project"),
    ("make PYTHON=.venv/bin/python/", "outside the project"),
    ("make PYTHON=.venv/bin/python --file=../secret.txt", "outside the project"),
    ("make CC='x; rm -rf src'", "make CC= holds a command or shell syntax a recipe"),
    ("make 'PYTHON=.venv/bin/python; cat .env'", "make PYTHON= holds a command or shell"),
    ("cat .venv/bin/python", "outside the project"),  # only make's values: cat reads it
    ("ls -l /etc/passwd", "/etc/passwd is outside the project"),  # unchanged
])
def test_what_link_printers_and_make_values_must_not_let_through(work: Path, command: str,
                                                                 said: str) -> None:
    _asks(work, command, said)


def test_only_a_venvs_interpreter_counts(work: Path, tmp_path: Path) -> None:
    venv, home = work / ".venv", tmp_path / "pyenv" / "bin"
    os.symlink(home / "notes.txt", venv / "bin" / "python3.9")  # a link to no interpreter
    _asks(work, "make PYTHON=.venv/bin/python3.9", "outside the project")
    os.symlink(tmp_path / "secret.txt", venv / "bin" / "python2")  # out of the venv's home
    _asks(work, "make PYTHON=.venv/bin/python2", "outside the project")
    fake = work / "fake"
    (fake / "bin").mkdir(parents=True)  # no pyvenv.cfg: no venv
    os.symlink(home / "python3.12", fake / "bin" / "python")
    _asks(work, "make PYTHON=fake/bin/python", "outside the project")
    (tmp_path / "cfg").write_text(f"home = {home}\n")
    os.symlink(tmp_path / "cfg", fake / "pyvenv.cfg")  # a link: another file's text
    _asks(work, "make PYTHON=fake/bin/python", "outside the project")
    (venv / "pyvenv.cfg").write_text(f"home = {tmp_path}\n")  # home elsewhere
    _asks(work, "make PYTHON=.venv/bin/python", "outside the project")


def test_a_venv_outside_the_project_is_outside(tmp_path: Path, work: Path) -> None:
    other = tmp_path / "other"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(other)], check=True,
                   capture_output=True)
    _asks(work, f"make PYTHON={other}/bin/python", "outside the project")


# F3: the reason names what the question is about.

def test_an_uncovered_command_is_named_not_said_to_change_something(work: Path) -> None:
    rules = ("shell(env*)", "shell(cat*)")
    printenv = _verdict(work, "printenv PATH", rules)
    assert printenv.action == "ask"
    assert printenv.reason == "smart_approve: printenv PATH is covered by no allow rule"
    assert printenv.read_why == "printenv PATH is covered by no allow rule"
    assert _verdict(work, "printenv PATH", ("shell(printenv*)",)).action == "run"
    secret = _verdict(work, "command cat .env", rules)
    assert secret.action == "ask"
    assert secret.reason == "smart_approve: .env is a sensitive file"
    plain = _verdict(work, "command cat data.csv", rules)
    assert plain.reason == ("smart_approve: command cat data.csv is covered by no allow rule "
                            "(shell(cat*) covers the rest of the line)")  # `cat data.csv` it runs
    none = shell_verdict(PermissionRules(), "printenv PATH", "smart_approve", working_dir=work)
    assert none.reason == "the call may change something: approval needed"  # no rule to name
