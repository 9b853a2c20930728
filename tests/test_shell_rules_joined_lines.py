"""A wrapper or runner that joins its words into a shell command line is read like ``sh -c``.

shell22 findings: under ``--mode auto --deny 'shell(rm *)'`` ``watch -n1 'ls; rm x'`` ran
(watch joins its words with blanks and runs them with ``sh -c``; only ``-x`` runs them as a
program), ``watch -d rm x`` too (``-d`` takes a value only in its own word, so ``rm`` is the
program); ``ls | entr -s 'ls; rm x'``, ``watchexec 'ls; rm x'`` and ``pixi run 'ls; rm x'``
(each runs such a word with a shell) ran where a runner's other commands are asked about.
"""

from __future__ import annotations

import pytest
from rules_support import check_under_deny_rm, deny_rm_cases

DENIED = ["watch -n1 'ls; rm x'", "watch 'ls && rm -rf x'", "watch ls\\; rm x", "watch -d rm x",
          "watch -n 2 -- 'ls; rm x'", "watch -dn1 'ls; rm x'", "watch -t 'echo $(rm x)'"]
ASKED = ["ls | entr -s 'ls; rm x'", "watchexec 'ls; rm x'", "watchexec -e py 'ls; rm x'",
         "pixi run 'ls; rm x'", "hatch run 'ls; rm x'", "devbox run 'ls; rm x'"]
STILL_RUN = ["watch -n1 ls", "watch -n 5 'git status; ls -l'", "watch 'ls | wc -l'",
             "watch -x ls 'a; rm x'", "watchexec -e py 'pytest -x'", "pixi run 'pytest -q'",
             "ls | entr -s 'make test'", "parallel 'gzip {}' ::: a b"]


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(DENIED, ASKED, STILL_RUN))
def test_a_joined_line_is_read_like_sh_c_and_everyday_commands_still_run(
        command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)
