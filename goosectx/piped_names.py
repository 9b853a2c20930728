"""The dirs whose file names reach ``xargs CMD`` through its pipe, when a lister sends them.

docs/architecture.md §4 (clause "permission rules"). ``xargs CMD`` reads the files its input
names, which no word of the line shows: the path checks ask about it
(:func:`goosectx.shell_dirs.stdin_arguments`) unless its input is the output of a program
that lists the files below dirs it names — ``find``, ``fd``, ``git ls-files``, ``rg --files``
/ ``rg -l``, ``ls`` — passed on only through filters that keep or reorder whole lines
(``grep -v x``, ``sort``, ``head -20``). Then CMD reads files below those dirs, judged as
``grep -r`` is (:mod:`goosectx.recursive_reads`): ``find . -name '*.md' | xargs wc -l`` asks only
when a sensitive file (or a link out) lies below ``.``.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.recursive_reads import find_starts
from goosectx.shell_words import Part

_GREPS = frozenset({"grep", "egrep", "fgrep", "rg"})
_LINE_KEEPERS = frozenset({"head", "tail", "sort", "uniq", "cat"})
_NUMBER = re.compile(r"[+-]?\d+")


def _name(part: Part) -> str:
    return part.words[0].value.rsplit("/", 1)[-1] if part.words else ""


def _operands(part: Part) -> list[str]:
    return [w.value for w in part.words[1:] if not w.value.startswith("-")]


def _filters(part: Part) -> bool:
    """True for a filter that passes on whole input lines, some of them (no file read)."""
    name, args = _name(part), [w.value for w in part.words[1:]]
    if any(w.expands or w.pattern for w in part.words[1:]):
        return False
    if name in _GREPS:  # grep -v x: its one operand the pattern; -o would cut names
        return len(_operands(part)) <= 1 and not any(
            a == "--only-matching" or a.startswith("-") and not a.startswith("--") and "o" in a
            or a in ("-f", "--file") or a.startswith("--file=") for a in args)
    if name in _LINE_KEEPERS:  # sort -n, head -20, head -n 5: no file operand
        return all(a.startswith("-") or _NUMBER.fullmatch(a) for a in args)
    return False


def _listed_dirs(part: Part) -> list[str] | None:
    """The dirs ``part`` lists the files below (as written), ``None`` if it is no lister."""
    name, args = _name(part), [w.value for w in part.words[1:]]
    if any(w.expands for w in part.words[1:]) or any(a.startswith(("-exec", "-ok", "-fprint"))
                                                    for a in args):
        return None
    operands = _operands(part)
    if name == "find":
        return find_starts(args)
    if name in ("fd", "fdfind", "rg") and (name != "rg" or any(
            a in ("--files", "-l", "--files-with-matches") for a in args)):
        return [*operands, "."]  # a pattern, dirs or an option's value: "." as well
    if name == "git" and args[:1] == ["ls-files"]:
        return [*operands[1:], "."]
    if name == "ls":
        return [*operands, "."]  # a name it prints is in a dir it names, or the working dir
    return None


def piped_dirs(parts: list[Part], k: int) -> list[str] | None:
    """The dirs whose files ``parts[k]`` (an ``xargs``) is given, ``None`` if not known.

    Read back through the pipe into it: filters (:func:`_filters`), then one lister
    (:func:`_listed_dirs`). A part of a subshell or substitution, a redirection or anything
    else on the way: ``None``.
    """
    depth = parts[k].depth
    while k > 0 and parts[k].piped and parts[k].joint == "|":
        k -= 1
        while k > 0 and parts[k].depth > depth:  # the lines a bash -c before it runs
            k -= 1
        before = parts[k]
        if (listed := _listed_dirs(before)) is not None:
            return listed
        if not _filters(before):
            return None
    return None
