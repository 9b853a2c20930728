"""Python code and modules that run a command, read for the rules (approval round 7's tester).

Under ``--mode auto --deny 'shell(rm *)'`` all of these RAN: pydoc's pagers (``pipepager``,
``tempfilepager``) run a command line; IPython (``ipython``, ``python3 -m IPython``) runs a
line starting with ``!`` or a magic (``%sx``, ``%%bash``) as a shell command; ``python3 -m uv
run rm x`` is ``uv run rm x``; ``gh config set pager 'rm x'`` stores a command a later gh
command runs (as ``gh alias set --shell``).
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict

from goosectx.permissions import PermissionRules

DENIED = [
    "gh config set pager 'rm x'", "gh config set editor 'rm x'",
    "gh config set -h github.com browser 'rm x'",
]
ASKED = [
    """python3 -c 'import pydoc; pydoc.pipepager("x","rm -rf src")'""",
    """python3 -c 'import pydoc; pydoc.pipe_pager("x","rm -rf src")'""",
    """python3 -c 'from pydoc import tempfilepager as t; t("x","rm -rf src")'""",
    "python3 -m IPython -c '!rm -rf src'", "ipython -c '!rm x'", "ipython3 -c '%sx rm x'",
    "ipython -c 'x = !rm y'", "ipython -c 'print(1)\n%%bash\nrm x'",
    "python3 -m uv run rm x", "python3 -m poetry run rm x", "python3 -m pipx run rm x",
    "python3 -m pdm run rm x", "python3 -B -m hatch run rm x", "python3 -mpoetry run rm x",
]
STILL_RUN = [
    "python3 -c 'import json'", "ipython -c 'print(1)'", "python3 -m IPython -c 'x = 1 != 2'",
    "python3 -m uv run ls", "python3 -m json.tool x.json", "gh config set git_protocol ssh",
    "python3 uv.py run rm x",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(DENIED, ASKED, STILL_RUN))
def test_python_code_that_runs_a_command_is_read_by_the_rules(command: str,
                                                              expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize("command", [
    """python3 -c 'import pydoc; pydoc.pipepager("x","rm -rf src")'""",
    "ipython -c '!rm x'", "python3 -m IPython -c '%system rm x'",
])
def test_the_reason_names_the_code_that_runs_commands(command: str) -> None:
    verdict = shell_verdict(DENY_RM, command)
    assert "code runs commands" in verdict.reason, verdict.reason


def test_a_python_module_runner_is_read_as_the_runner() -> None:
    rules = PermissionRules(allow=("shell(python3 *)",))
    verdict = shell_verdict(rules, "python3 -m poetry run make", "ask")
    assert verdict.action == "ask"
    assert "runs poetry, which no allow rule covers" in verdict.reason
    both = PermissionRules(allow=("shell(python3 *)", "shell(poetry *)", "shell(make*)"))
    assert shell_verdict(both, "python3 -m poetry run make", "ask").action == "run"
