"""uv's ``-p`` / ``--python`` request: a Python version, or a program uv runs as its interpreter.

docs/architecture.md §4 (clause "permission rules"). uv reads ``--python REQUEST`` as a version
request (``3.12``, ``>=3.11``, ``cpython@3.12``, ``pypy3.10``, ``cp312``, ``3.13t``, a download
key ``cpython-3.12.3-linux-x86_64-gnu``, ``any``) it finds or installs, or else as an
interpreter: a path (``./x``, ``.venv/bin/python``), a dir holding one, or an executable's name
it finds on ``PATH`` (``-p bash``, ``--python evil``) and runs. :func:`uv_interpreter` finds
the word; :func:`version_request` tells a version from a program;
:mod:`goosectx.shell_paths` judges the rest.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_options import long_option, short_value
from goosectx.shell_runner_options import GRAMMARS
from goosectx.shell_words import Word

__all__ = ["uv_interpreter", "version_request"]

_VERSION = r"\d+(?:\.(?:\d+|\*))*(?:(?:a|b|rc)\d+)?"
_SPECIFIERS = rf"(?:(?:[<>=!~]=?|===)\s*{_VERSION}\s*,?\s*)+"
_REQUEST = re.compile(
    rf"any|default|(?:(?:cpython|cp|pypy|pp|graalpy|gp|pyodide|python)@?)?"
    rf"(?:{_VERSION}[td]{{0,2}}(?:\+[a-z]+)*|{_SPECIFIERS})"
    r"|cpython|cp|pypy|pp|graalpy|gp|pyodide|python"
    rf"|(?:cpython|pypy|graalpy|pyodide)-{_VERSION}[\w+]*(?:-\w+){{0,3}}", re.IGNORECASE)
"""A value uv reads as a Python version request, not an interpreter to run."""


def version_request(value: str) -> bool:
    """True when uv reads ``value`` (of ``-p``/``--python``) as a version, not a program."""
    return _REQUEST.fullmatch(value.strip()) is not None


def uv_interpreter(args: list[Word]) -> Word | None:
    """The word of ``uv … -p P`` / ``--python P`` / ``--python=P`` that holds ``P``, or ``None``.

    ``uvx -p P`` too (uvx is ``uv tool run``: its first operand is the command). uv runs
    ``P`` when it is no version request (:func:`version_request`). Read up to ``--`` and,
    after ``run`` (``uv run``, ``uv tool run``), up to its command: ``uv run pytest -p
    xdist`` gives pytest its ``-p`` (uv run's options: ``GRAMMARS["uv run"]``).
    """
    grammar = GRAMMARS["uv run"]
    values = [w.value for w in args]
    run, i = values[:1] == ["uvx"], 1  # uvx is uv tool run: its first operand is the command
    while i < len(args):
        word = values[i]
        if word == "--":
            return None
        if word.startswith("--python=") or word[:2] == "-p" and word[2:]:
            return args[i]  # -p./x, -p=./x: clap's glued value
        if word in ("-p", "--python"):
            return args[i + 1] if i + 1 < len(args) else None
        if not word.startswith("-"):
            if run:
                return None  # uv run CMD ARGS: the rest is CMD's
            run = word == "run"
            i += 1
        elif word.startswith("--"):
            i += 2 if "=" not in word and any(long_option(word, o)
                                               for o in grammar.long_valued) else 1
        else:
            i = short_value(values, i, grammar.valued, grammar.optional).next
    return None
