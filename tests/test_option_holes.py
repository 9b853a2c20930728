"""Approval bypasses and over-asking a fresh-eyes tester found in programs' options
(goosectx/option_table.py, option_writes.py, option_values.py): under an allow rule for the
program, each bypass asks and the common forms still run."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture

from goosectx.option_values import node_value_loads
from goosectx.permissions import PermissionRules


@pytest.mark.parametrize("command", [
    # H6: sort -o overwrites any file
    "sort -o Makefile src/a.py", "sort -oMakefile a.txt", "sort --output=Makefile a.txt",
    "sort --ou Makefile a.txt", "sort -uo Makefile a.txt", "sort -nuoMakefile a.txt",
    "cat a.txt | sort -o .git/hooks/pre-commit",
    # H7: every find action writing a file, not -fprint only
    "find . -maxdepth 0 -fls Makefile", "find . -fprintf Makefile x", "find . -fprint0 a.txt",
    "find . -name '*.py' -fprint build/list.txt",
    # the same kind in other reading programs
    "shuf -o Makefile a.txt", "shuf --output=Makefile a.txt", "shuf -n1 -oMakefile a.txt",
    "tree -o Makefile", "tree -L 2 -o .git/HEAD", "less -o Makefile a.txt",
    "less --log-file=Makefile a.txt", "uniq a.txt Makefile", "uniq -c -f 1 a.txt Makefile",
    "xxd a.txt Makefile", "xxd -c 16 a.txt .git/HEAD", "xxd -r -p hex.txt src/a.py",
    "xxd -c16 a.txt Makefile", "uniq -f1 a.txt Makefile",
])
def test_an_option_writing_its_output_to_a_file_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "sort -n a.txt", "sort -u a.txt | head", "sort -to a.txt",  # -t takes "o": no -o
    "sort -k2 -t, a.txt", "sort -o /dev/stdout a.txt", "find . -name '*.py' -print",
    "find . -fprint /dev/null -name x", "find . -fprintf /dev/stdout '%p\\n'",
    "shuf -n1 a.txt", "tree -L 2", "less a.txt", "uniq -c a.txt", "uniq -f 1 a.txt",
    "xxd a.txt", "xxd -c 16 a.txt", "xxd -l 64 a.txt | head", "xxd a.txt -",
    "uniq --skip-fields 1 a.txt", "xxd -cols 16 a.txt",
])
def test_sorting_and_finding_to_the_terminal_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "make all '.SHELLFLAGS=-c cat<.env>/tmp/x;:'",  # H8
    "make '.SHELLFLAGS:=-ec' test", "make SHELL=./evil.sh test", "make MAKESHELL=x",
    "make 'MAKEFLAGS=-f evil.mk'", "make MAKEFILES=evil.mk test", "make -- .SHELLFLAGS=-xc",
    "make 'CC=cat .env >/tmp/x; gcc'", "gmake 'PYTHON=python3 -c 1; rm -rf src'",
    "make test 'PYTHON=sh -c id'", "make test PYTHON='python3 -c print(open(\".env\").read())'",
    "make 'SHELL:::=x' test", "make 'CFLAGS=-O2 $(shell id)'",
])
def test_a_make_variable_that_changes_what_recipes_run_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "make test", "make", "make -j4 all", "make test PYTHON=python3 V=1",
    "make CFLAGS='-O2 -g' all", "make DESTDIR=build install", "make -j4 CC=clang",
    "make test ARGS='-k foo'", "make TESTS=tests/test_a.py test",
])
def test_common_make_lines_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "npm test --node-options=--require=/tmp/evil.js",  # H11b
    "npm test --node-options='--require ./evil.js'", "npm test --node-options=-r./x.js",
    "npm test --node-options --import=data:text/javascript,1", "npm run build --node_options=--loader=x",
    "npm test --script-shell=./evil.sh", "npm test --userconfig=/tmp/npmrc",
])
def test_npm_options_that_load_code_ask(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "npm test", "npm run build", "npm test --node-options=--max-old-space-size=4096",
    "npm test -- --watch=false", "npm test --silent",
])
def test_common_npm_lines_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


def test_node_options_are_judged_by_what_they_load() -> None:
    assert node_value_loads("--require=x") and node_value_loads("-r x")
    assert node_value_loads("--env-file=.env") and node_value_loads("--redirect-warnings=o.txt")
    assert not node_value_loads("--max-old-space-size=4096 --enable-source-maps")


@pytest.mark.parametrize("command", [
    "pytest --benchmark-json=.git/HEAD",  # H11c: a plugin's option
    "pytest -q tests --benchmark-json .git/HEAD", "pytest --benchmark-json=Makefile",
    "pytest --benchmark-json Makefile", "pytest --html-report=report/index.html",
    "python -m pytest --benchmark-save-data --benchmark-storage=file://.git",
    "pytest --some-plugin-out=a.txt", "pytest --cov=src --cov-report=html:.git",
    "pytest --cov-report=xml:Makefile",
    "pytest -qo cache_dir=.git", "pytest -xocache_dir=.git",  # -o in a cluster, as argparse
])
def test_a_pytest_plugin_option_naming_a_file_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "pytest --co", "pytest --co -q", "pytest --lf", "pytest --ff -x", "pytest --sw",
    "pytest --collect-only", "pytest --col", "pytest --last-failed", "python -m pytest --co",
    "pytest -x -q", "pytest -k name", "pytest -m slow", "pytest --tb=short", "pytest --maxfail=2",
    "pytest -p no:cacheprovider", "pytest --cov=src", "pytest -n auto --dist=loadscope",
    "pytest --timeout=30 tests", "pytest --runslow tests/test_a.py", "pytest --runslow tests",
    "pytest --hypothesis-profile=ci", "pytest --durations=10 -vv",
    "pytest --cov=src --cov-report=term-missing", "pytest --cov=src --cov-report term",
    "pytest -rfE", "pytest -ko", "pytest -vv -x", "pytest -n4 -q",
])
def test_common_pytest_lines_still_run(project: Path, command: str) -> None:
    # M4: --co and --lf are pytest's own short forms, not prefixes of --cov-report / --lf-cache
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize(("command", "expected"), [
    ("export NODE_OPTIONS=-r./evil.js; npm test", "ask"),
    ("export NODE_OPTIONS='--require /tmp/evil.js'; npm test", "ask"),
    ("export npm_config_node_options=--import=./x.mjs; npm test", "ask"),
    ("export NPM_CONFIG_SCRIPT_SHELL=./evil.sh; npm test", "ask"),
    ("export npm_config_userconfig=./rc; npm test", "ask"),
    ("export NODE_OPTIONS=--max-old-space-size=4096; npm test", "run"),
])
def test_node_options_a_line_exports_are_judged_too(project: Path, command: str,
                                                     expected: str) -> None:
    rules = PermissionRules(allow=("shell(export*)", "shell(npm test*)"))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
    assert verdict.action == expected, verdict.reason
