"""Everyday report, cache, venv and cmake lines run under a deny rule; what they write is judged.

Testers (appr30c): in auto mode under ``--deny 'shell(rm *)'`` ``pytest --cov-report=html``
asked ("names a file or directory it writes": ``html`` is a report type, only the part after
``:`` is a path), ``virtualenv .venv`` asked while ``python3 -m venv .venv`` ran, ``eslint
--cache-location node_modules/.cache/eslint`` asked (a tool's cache is no package), ``cmake
--install build --prefix ~/.local`` asked while ``make install PREFIX=$HOME/.local`` ran. The git
directory, a virtualenv, ``node_modules`` packages and ``.bin``, sensitive files and (for an
output file) paths outside the project still ask.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import DENY_RM, asks_under_deny_rm, shell_verdict

from goosectx.option_table import cov_report_file
from goosectx.permissions import PermissionRules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".venv").mkdir()
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (work / "node_modules" / ".cache").mkdir(parents=True)
    (work / "node_modules" / ".bin").mkdir()
    (work / "node_modules" / ".cache" / "bin").symlink_to("../.bin")
    (work / ".mypy_cache").mkdir()
    (work / ".env").write_text("KEY=1\n")
    return work


RUN = [
    "pytest --cov=src --cov-report=html", "pytest --cov=src --cov-report=xml",
    "pytest --cov=src --cov-report html:build/cov", "python -m pytest --cov-report=xml:cov.xml",
    "pytest --cov=src --cov-report=term-missing:skip-covered", "pytest --cov-report=",
    "pytest --cov=src --cov-report=json --cov-report=lcov",
    "virtualenv .venv", "python3 -m virtualenv .venv", "virtualenv -p python3.12 venv",
    "mypy --cache-dir=.mypy_cache src", "ruff check --cache-dir .ruff_cache .",
    "eslint --cache --cache-location node_modules/.cache/eslint src",
    "npx eslint --cache --cache-location node_modules/.cache/eslint/ src",
    "cmake -S . -B build", "cmake --build build", "cmake --build build -j4 --target install",
    "cmake --install build --prefix ~/.local", "cmake -DCMAKE_BUILD_TYPE=Release -B build -S .",
    "make install PREFIX=$HOME/.local",
]


@pytest.mark.parametrize("command", RUN)
def test_an_everyday_line_runs_under_a_deny_rule(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ("pytest --cov-report=html:.git/hooks", "a hook is a command a later git runs"),
    ("pytest --cov-report xml:/etc/cov.xml", "/etc/cov.xml"),
    ("pytest --cov-report=xml:.env", ".env"),
    ("virtualenv --app-data .git/hooks .venv", "a hook is a command a later git runs"),
    ("mypy --cache-dir=.git/x src", "git directory"),
    ("eslint --cache-location node_modules/.bin/x src", "node_modules"),
    ("eslint --cache-location node_modules/.cache/bin/x src", "node_modules/.bin/x"),
    ("eslint --cache-location node_modules/.cache/../.bin/x src", "node_modules/.bin/x"),
    ("eslint --cache-location node_modules/.cache src", "node_modules"),
    ("eslint -o node_modules/.cache/x src", "node_modules"),  # a report, not its cache
    ("tee node_modules/.cache/x", "node_modules"),
    ("cmake -S . -B .git/x", "git directory"), ("cmake -B.venv", "virtualenv"),
    ("cmake --install build --prefix .git", "git directory"),
    ("cmake -DX=.git/hooks -B build", "git directory"),
    ("cmake -E foo a .venv/x", "cmake is not known to goosectx"),  # -E: still the backstop
    ("cmake -P x.cmake .env", "cmake is not known to goosectx"),
    ("cmake -C /dev/stdin -B build", "cmake -C runs a script it reads from its standard input"),
])
def test_a_protected_or_outside_target_still_asks(project: Path, command: str,
                                                  said: str) -> None:
    asks_under_deny_rm(project, command, said)


def test_a_linter_cache_is_its_allow_rule_s_but_a_report_is_not(project: Path) -> None:
    rules = PermissionRules(allow=("shell(mypy*)", "shell(eslint*)"), deny=("shell(rm *)",))
    for command, expected in (("mypy --cache-dir=.mypy_cache src", "run"),
                              ("eslint --cache-location node_modules/.cache/eslint src", "run"),
                              ("mypy --html-report=h src", "ask"),
                              ("mypy --cache-dir=/tmp/elsewhere src", "ask")):
        verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
        assert verdict.action == expected, (command, verdict.reason)


def test_a_cov_report_names_its_file_after_the_colon_or_by_type() -> None:
    assert cov_report_file("html") == "htmlcov" and cov_report_file("xml") == "coverage.xml"
    assert cov_report_file("html:out/cov") == "out/cov"
    assert cov_report_file("term-missing") is None and cov_report_file("") is None
    assert cov_report_file("term:skip-covered") is None


def test_a_cache_option_naming_a_project_file_is_no_cache(project: Path) -> None:
    rules = PermissionRules(allow=("shell(prettier*)", "shell(eslint*)"), deny=("shell(rm *)",))
    for command in ("prettier --cache-location=Makefile --check .",
                    "eslint --cache-location src/app.js src"):
        verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
        assert verdict.action == "ask", (command, verdict.reason)
    verdict = shell_verdict(rules, "prettier --cache-location=.prettiercache --check .",
                            "smart_approve", working_dir=project)
    assert verdict.action == "run", verdict.reason
