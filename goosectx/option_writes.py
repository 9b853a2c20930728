"""Options that make a reading program write files or read whole directories.

Under an allow rule for a program that reads (``shell(git diff*)``, ``shell(pytest*)``), these
options write or delete files the rules never judge as write targets: ``git diff
--output=Makefile`` replaced a project file, ``pytest --basetemp=.git`` deleted the
repository (pytest empties its base temp dir), ``pytest --junitxml=Makefile`` overwrote one;
``git diff --no-index tests .`` printed every file below ``.``, ``.env`` included. Such a
call asks (docs/architecture.md §4, permission rules). GNU-style unique prefixes
(``--outp=``) count, as git's and argparse's option parsers accept them.
"""

from __future__ import annotations

import re

from goosectx.shell_options import long_option

_GIT_WRITES = ("--output",)
"""git diff/log/show/format-patch … ``--output=FILE``: the output goes to FILE."""
_GIT_WHOLE = ("--no-index",)
"""``git diff --no-index A B``: any two paths, directories whole, inside a repository or not."""
_PYTEST_WRITES = ("--basetemp", "--junitxml", "--junit-xml", "--debug", "--resultlog",
                  "--result-log", "--report-log", "--log-file", "--html", "--cov-report",
                  "--override-ini", "--confcutdir", "--lf-cache", "--cache-dir")
"""pytest options naming a file or dir it writes or empties (``--basetemp`` is deleted first),
or (``--override-ini``, ``-o``) an ini value that may (``cache_dir``, ``junit_…``)."""
_PYTHON = re.compile(r"python[0-9.]*")


def option_writes(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS`` may write files or read whole directories unjudged, or ``None``."""
    if _PYTHON.fullmatch(name) and args[:2] == ["-m", "pytest"]:
        name, args = "pytest", args[2:]
    if name == "git":
        for word in args:
            if any(long_option(word, option) for option in _GIT_WRITES):
                return f"git {word.partition('=')[0]} writes a file the rules do not judge"
            if any(long_option(word, option) for option in _GIT_WHOLE):
                return "git diff --no-index reads two paths whole, directories included"
    if name in ("pytest", "py.test"):
        for word in args:
            if word == "-o" or word.startswith("-o") and "=" in word or any(
                    long_option(word, option) for option in _PYTEST_WRITES):
                return (f"pytest {word.partition('=')[0]} names a file or directory pytest "
                        "writes or empties, which the rules do not judge")
    return None
