"""Inline code an interpreter takes other than by ``-c`` / ``-e``: a module's arguments, loaders.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:func:`goosectx.shell_runners.inline_code` finds an interpreter's inline code. Some code
comes in through an option or a module's arguments: ``python3 -m timeit CODE``, ``python3 -m
pdb -c CODE`` (pdb runs a command it does not know as a Python statement), a profiler or
tracer that runs ``-m timeit`` in turn (``-m cProfile -m timeit CODE``); node's ``--import``,
``--loader``, ``--experimental-loader``, ``--require`` / ``-r`` of a ``data:`` URL (the code
in the URL). Each is read as the interpreter's code, so the deny and ask rules read it as
they read ``-c``'s. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote

CODE_MODULES = frozenset({"timeit", "pdb", "cProfile", "profile", "trace", "idlelib", "IPython",
                          "pyinstrument", "runpy", "code", "asyncio", "doctest"})
"""Python modules run by ``-m`` whose arguments may be code (``timeit STMT``, ``pdb -c
CMD``, ``idlelib -c CMD``, ``IPython -c CODE``, ``pyinstrument -c CODE``) or may start such a
module (``cProfile -m timeit``, ``trace --module``): every argument after the module is
read as its code, which reads only what could run a command. Other modules (``json.tool``,
``pytest``) are programs as a script is."""
PYTHON_MODULE = re.compile(r"-[bBdEhiIOPqRsSuvx]*m(.*)")
"""A python cluster ending in ``-m`` (``-m``, ``-Bm``, ``-mtimeit``): the module follows."""
_PYTHON_FLAGS = re.compile(r"-[bBdEhiIOPqRsSuvx]+")
"""A cluster of python's flags that take no value (``-I``, ``-Esu``)."""
_PYTHON_VALUED = re.compile(r"-[bBdEhiIOPqRsSuvx]*([XW])(.*)")
"""A cluster ending in ``-X`` / ``-W``, its value glued (``-Xdev``, ``-IWignore``) or next."""


def python_module(args: list[str]) -> tuple[str, list[str]] | None:
    """The module ``python ARGS`` runs and its arguments, or ``None`` (a script, ``-c``, none).

    The one reader of python's options for every module check: ``-m venv``, ``-mvenv``,
    ``-Im venv``, ``-I -E -s -u -m venv``, ``-X dev -W ignore -m venv``, ``-Xdev -mvenv``,
    ``--check-hash-based-pycs always -m venv`` → ``("venv", [...])``.
    """
    k = 0
    while k < len(args):
        word = args[k]
        if found := PYTHON_MODULE.fullmatch(word):
            if found[1]:
                return found[1], args[k + 1:]
            return (args[k + 1], args[k + 2:]) if k + 1 < len(args) else None
        if valued := _PYTHON_VALUED.fullmatch(word):
            k += 1 if valued[2] else 2
        elif word == "--check-hash-based-pycs":
            k += 2
        elif _PYTHON_FLAGS.fullmatch(word) or word.startswith("--check-hash-based-pycs="):
            k += 1
        else:
            return None  # the script, -c CODE, -, --, or an option python does not know
    return None
NODE_LOADERS = ("--import", "--loader", "--experimental-loader", "--require", "-r", "--preload")
"""node's (and bun's ``--preload``) options that load a module before the program: a
``data:`` URL is inline code."""


STDIN_MODULES = frozenset({"pdb", "code", "asyncio", "IPython"})
"""Python modules that read commands or code from standard input (pdb's prompt, an
interactive console): fed by a pipe or a here-document, that input is code too."""


def module_code(module: str, rest: list[str], fed: bool = True) -> str | None:
    """The code ``python -m MODULE REST…`` runs from its arguments, or ``None`` for none.

    ``""`` when a module of :data:`CODE_MODULES` has no arguments; :data:`STDIN` for a module
    of :data:`STDIN_MODULES` on a line that may feed its standard input (``fed``:
    :attr:`goosectx.shell_lexer.Part.fed`).
    """
    if module in STDIN_MODULES and fed:
        return STDIN
    if module == "IPython":
        return _IPYTHON_ESCAPE.sub(r"\1get_ipython().system(", "\n".join(rest))
    return "\n".join(rest) if module in CODE_MODULES else None


IPYTHON = re.compile(r"ipython[\d.]*")
"""IPython's own commands (``ipython``, ``ipython3``): read as ``python -m IPython``."""
_IPYTHON_ESCAPE = re.compile(r"(?m)^([\w \t,]*=[ \t]*|[ \t]*)(?=[!%])")
"""A line of IPython's that is no Python (``!rm x``, ``x = !ls``, ``%sx rm x``, ``%%bash``,
``%run``): IPython runs it as ``get_ipython().system(…)`` or a magic, either of which may run
a shell command, so it is read as one."""


def data_code(value: str) -> str | None:
    """The code in a ``data:`` URL node loads (``data:text/javascript,CODE``), or ``None``.

    Percent-escapes decoded; a ``;base64`` body decoded. ``None``: not a ``data:`` URL;
    :data:`UNREADABLE` when its body does not decode.
    """
    if not value.lower().startswith("data:"):
        return None
    head, comma, body = value[5:].partition(",")
    if not comma:
        return ""  # node refuses it: no code
    text = unquote(body)
    if not head.lower().endswith(";base64"):
        return text
    try:
        return base64.b64decode("".join(text.split()), validate=True).decode("utf-8")
    except (ValueError, binascii.Error):
        return UNREADABLE


STDIN = "\0stdin"
"""The program comes from standard input (:data:`goosectx.shell_runners.STDIN`)."""
UNREADABLE = "\0unreadable"
""":func:`data_code` of a body that does not decode: code the rules cannot read."""
