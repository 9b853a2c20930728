"""python's module checks read its options as python does (round 31, test31c).

Before, ``python3 -mvenv --clear .git`` (``-m`` glued), ``python3 -Im venv --clear .git`` and
``python3 -I -m venv --clear .git`` ran in auto mode under a deny rule (``-m venv`` asked):
end to end the first wiped the repository. The venv, pytest, zipfile and json.tool checks saw
``-m`` only as its own first word; :func:`goosectx.code_options.python_module` is now the one
reader of python's options for every module check (docs/architecture.md §4).
"""

from __future__ import annotations

import pytest
from rules_support import check_under_deny_rm, deny_rm_cases

from goosectx.code_options import python_module


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(denied=(), asked=(
    "python3 -mvenv --clear .git",
    "python3 -Im venv --clear .git",
    "python3 -I -m venv --clear .git",
    "python3 -I -E -s -u -m venv --clear .git",
    "python3 -X dev -W ignore -m venv .git",
    "python3 -Xdev -Wignore -mvenv .git",
    "pypy3 -m venv .git", "python3.12 -Im venv .git", "sudo python3 -mvenv --clear .git",
    "bash -c 'python3 -I -m venv .git'",
    "python3 -mpytest --basetemp=.git",
    "python3 -Im pytest --basetemp=.venv",
    "python3 -mzipfile -e a.zip .git",
    "python3 -mtarfile -e a.tar .git/hooks",
    "python3 -mjson.tool in.json .git/config",
    "python3 -B -mjson.tool in.json node_modules/x/index.js",
), still_run=(
    "python app.py", "python -m pytest", "python3 -mpytest -q", "python3 -I -m pytest -x",
    "python3 -mvenv build/venv", "python3 -mzipfile -e a.zip build",
    "python3 -mjson.tool in.json", "python3 app.py -m venv .git",
)))
def test_a_module_run_with_glued_or_clustered_options_is_judged(command: str,
                                                                expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize(("args", "module"), [
    (["-m", "venv", "x"], ("venv", ["x"])),
    (["-mvenv", "x"], ("venv", ["x"])),
    (["-Im", "venv"], ("venv", [])),
    (["-I", "-E", "-s", "-u", "-m", "venv"], ("venv", [])),
    (["-X", "dev", "-W", "ignore", "-m", "venv"], ("venv", [])),
    (["-Xdev", "-IWignore", "-mvenv"], ("venv", [])),
    (["--check-hash-based-pycs", "always", "-m", "venv"], ("venv", [])),
    (["app.py", "-m", "venv"], None),
    (["-c", "pass", "-m", "venv"], None),
    (["-", "-m", "venv"], None),
    (["-m"], None),
])
def test_the_one_reader_of_python_options(args: list[str],
                                          module: tuple[str, list[str]] | None) -> None:
    assert python_module(args) == module
