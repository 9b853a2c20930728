"""An interpreter's inline code is its language's, not bash's; R's code is read like python's.

appb29: under ``--mode auto --deny 'shell(rm *)'``, ``python3 -c "print([x for x in xs][0])"``
asked (its ``for x in xs`` and ``[…][0]`` were read as bash's ``for`` and an array subscript:
shell_arith), and so did any python code merely naming ``pydoc`` (``print("pydoc")``,
``pydoc.__name__``); ``R -e 'system("rm -rf x")'`` ran (``R`` was no interpreter, only
``Rscript``), and R's own ways to run a command (``system2``, ``pipe``, ``eval(parse(…))``)
were not read.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, check_under_deny_rm, deny_rm_cases, shell_verdict

RUN = [
    'python3 -c "xs=[1,2,3]; print([x*2 for x in xs][0])"',
    "python3 -c 'for i in range(3): print([i][0])'",
    "python3 -c 'a = {1: 2}; print(a[1])' && echo ok",
    "python3 -c 'import pydoc; print(pydoc.__name__)'",
    """python3 -c 'print("pydoc")'""",
    "python3 -c 'pydoc_page = 1; print(pydoc_page)'",
    "R -e 'print(1 + 1)'",
    "R --vanilla -e 'x <- c(1, 2); print(x[1])'",
    "Rscript -e 'summary(cars)'",
    "R -e 'library(stats); print(median(c(1, 3)))'",
]
ASKED = [
    # bash still computes what it expands: the word is bash's before it is python's
    'read x; python3 -c "print($((x)))"',
    "read x; python3 -c 'print(1)'; (( x ))",
    "read x; echo 'print(1)'; python3 -c 'print(1)'; (( x ))",
    # pydoc's pager runs a command line
    """python3 -c 'import pydoc; pydoc.pager("x")'""",
    """python3 -c 'import pydoc as p; p.pipepager("x", "rm -rf src")'""",
    """python3 -c 'import pydoc; p = pydoc; p.pipepager("x", "rm -rf src")'""",
    """python3 -c 'from pydoc import pager; pager("x")'""",
    """python3 -c '__import__("pydoc").pipepager("x", "rm -rf src")'""",
    # R runs commands
    """R -e 'system("rm -rf x")'""", """R --vanilla -e 'system2("rm", "x")'""",
    """R -e 'pipe("rm x")'""", "R -e 'eval(parse(text = s))'",
    """Rscript -e 'do.call("system", list("rm x"))'""", """R -e 'get("system")("rm x")'""",
    "R --vanilla", "echo 'system(\"rm x\")' | R --no-save",
]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases((), ASKED, RUN))
def test_inline_code_is_read_in_its_own_language(command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)


def test_r_code_that_runs_a_command_is_named() -> None:
    found = shell_verdict(DENY_RM, """R -e 'system("rm -rf x")'""")
    assert found.reason.startswith("its inline R code runs commands"), found.reason
