"""The files csplit and split write: a prefix and a suffix, judged as one write target.

docs/architecture.md §4 (clause "permission rules"). ``split FILE PREFIX`` writes
``PREFIXaa``, ``PREFIXab`` …; ``csplit -f PREFIX -b FORMAT FILE PATTERN…`` writes PREFIX
followed by FORMAT printed with each piece's number (``%02d`` by default). Each word alone may
look harmless while their join names a hook: ``csplit -f '' -b '.git/hooks/pre-commit%.0d'``
writes exactly ``.git/hooks/pre-commit`` (``%.0d`` prints nothing for 0). The path checks
judge each word as a path (``split a ../x`` asks: outside the project); :func:`split_writes`
judges the join, each ``%…d`` taken as possibly empty: it asks when the files may land in
``.git``, or outside the project by a ``..``, ``/`` or ``~`` the join makes, or when a
computed word or a ``/`` in the format leaves the join unseen. :func:`csplit_patterns` tells
csplit's pattern operands (``'/^## /'``, ``'%re%'``, ``'{*}'``, ``3``), which name no file.

Core module: no printing.
"""

from __future__ import annotations

import posixpath
import re

from goosectx.shell_options import long_option, short_value

_COMPUTED = "\0"
"""Ends a word bash computes (:data:`goosectx.shell_databases.COMPUTED`)."""
_CSPLIT_LONG = {"--suffix-format": "b", "--prefix": "f", "--digits": "n"}
_SPLIT_LONG = {"--suffix-length": "a", "--bytes": "b", "--line-bytes": "C", "--lines": "l",
               "--number": "n", "--separator": "t", "--additional-suffix": "s",
               "--filter": "F"}
_PATTERN = re.compile(r"(?:/.*/|%.*%)[-+]?\d*|\{(?:\d+|\*)\}|\d+", re.DOTALL)
"""A csplit pattern: ``/REGEX/[OFFSET]``, ``%REGEX%[OFFSET]``, ``{N}``, ``{*}``, a line."""
_DIRECTIVE = re.compile(r"%[-+ #0'I]*\d*(?:\.\d*)?[diouxX]")


def _read(args: list[str], longs: dict[str, str], valued: str) -> tuple[
        dict[str, str], list[int]]:
    """``args`` (after the program) as ``{letter: value}`` and the operands' indices."""
    options: dict[str, str] = {}
    operands: list[int] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            operands += range(i + 1, len(args))
            break
        if word.startswith("--"):
            letter = next((v for k, v in longs.items() if long_option(word, k)), "")
            if "=" in word or not letter:
                if letter:
                    options[letter] = word.partition("=")[2]
                i += 1
                continue
            options[letter] = args[i + 1] if i + 1 < len(args) else ""
            i += 2
            continue
        if word.startswith("-") and word != "-":
            short = short_value(args, i, valued)
            if short.letter:
                options[short.letter] = short.value or ""
            i = short.next
            continue
        operands.append(i)
        i += 1
    return options, operands


def csplit_patterns(args: list[str]) -> set[int]:
    """The indices in ``args`` (csplit's words, its name first) of its pattern operands."""
    _options, operands = _read(args[1:], _CSPLIT_LONG, "bfn")
    return {i + 1 for i in operands[1:] if _PATTERN.fullmatch(args[i + 1])}


def _lands_badly(name: str) -> bool:
    """True when the file name ``name`` may be in ``.git`` or outside the project as written."""
    if _COMPUTED in name or name.startswith(("/", "~")):
        return True
    parts = posixpath.normpath(name).split("/")
    return parts[0] == ".." or any(part.lower() == ".git" for part in name.split("/"))


def split_writes(name: str, args: list[str]) -> str | None:
    """Why the files ``split``/``csplit ARGS`` writes may be in ``.git`` or outside, or ``None``."""
    if name == "csplit":
        options, _operands = _read(args, _CSPLIT_LONG, "bfn")
        prefix, suffix = options.get("f", "xx"), options.get("b", "%02d")
        names = [prefix + _DIRECTIVE.sub(digits, suffix) for digits in ("", "0")]
        if "/" in suffix or any(_lands_badly(one) for one in names):
            return ("csplit writes files named its -f prefix and -b format, which may be in .git "
                    "or outside the project")
        return None
    if name == "split":
        options, operands = _read(args, _SPLIT_LONG, "abClntF")
        prefix = args[operands[1]] if len(operands) > 1 else "x"
        if _lands_badly(prefix + "aa" + options.get("s", "")):
            return ("split writes files named its PREFIX operand, which may be in .git or "
                    "outside the project")
    return None
