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

import fnmatch
import re
from typing import NamedTuple

from goosectx.find_words import find_printed, find_split
from goosectx.recursive_reads import Printed, hidden_read
from goosectx.shell_words import Part, Word

_GREPS = frozenset({"grep", "egrep", "fgrep", "rg"})
_LINE_KEEPERS = frozenset({"head", "tail", "sort", "uniq", "cat"})
_NUMBER = re.compile(r"[+-]?\d+")
_SUFFIX_SPEC = re.compile(r"\*[\w.*-]*")
"""A git pathspec ``*.py`` (quoted): git's ``*`` matches ``/`` too, so it keeps the paths whose
base name the same glob matches; no ``/``, ``[``, backslash or ``:(magic)``."""


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


class Listing(NamedTuple):
    """What a lister piped into ``xargs`` prints: names below ``dirs`` (as written)."""

    dirs: list[str]
    printed: Printed | None = None
    """Which names it prints (``find -name '*.md' -type f``), ``None``: any."""
    skip: frozenset[str] = frozenset()
    """Dirs right in each of ``dirs`` it prints nothing of: ``.git`` for ``git ls-files``."""
    follows: bool = True
    """It may print names below a link to a dir (``find -L``, ``fd -L``); ``False``: never
    (``find`` without ``-L``/``-follow``, ``git ls-files``)."""
    hidden: bool | Printed = True
    """Which hidden names it prints: all (``True``), none (``rg -l``, ``fd`` skip dotfiles and
    dot dirs unless ``--hidden``/``-u``), or those a filter keeps (``rg -l x -g '.env'``)."""


def _listing(part: Part) -> Listing | None:
    """What ``part`` lists (:class:`Listing`), ``None`` if it is no lister."""
    name, args = _name(part), [w.value for w in part.words[1:]]
    if any(w.expands for w in part.words[1:]) or any(a.startswith((
            "-exec", "-ok", "-fprint", "-printf", "-ls", "-fls")) for a in args):
        return None  # find -printf '%f': a name not below the dir; -ls: a link's target
    operands = _operands(part)
    if name == "find":
        starts, expression = find_split(args)
        follows = "-follow" in expression or "-L" in args[:len(args) - len(expression)]
        return Listing(starts, find_printed(expression), follows=follows)
    if name in ("fd", "fdfind", "rg") and (name != "rg" or any(
            a in ("--files", "-l", "--files-with-matches") for a in args)):
        hidden = hidden_read(part.words) if name == "rg" else any(  # rg -l x: no dotfile
            a in ("--hidden", "--unrestricted") or a[:1] == "-" and a[1:2] != "-" and (
                "H" in a or "u" in a) for a in args)  # fd skips them unless -H / -u
        return Listing([*operands, "."], hidden=hidden)  # a pattern, dirs or a value: "." too
    if name == "git" and args[:1] == ["ls-files"]:  # never in .git, never through a link
        specs = operands[1:]
        if specs and not any(w.pattern for w in part.words) and all(
                _SUFFIX_SPEC.fullmatch(spec) for spec in specs):  # git ls-files '*.py'
            return Listing(["."], lambda entry, is_dir: not is_dir and any(
                fnmatch.fnmatchcase(entry, spec) for spec in specs), frozenset({".git"}), False)
        return Listing([*operands[1:], "."], skip=frozenset({".git"}), follows=False)
    if name == "ls":
        return Listing([*operands, "."])  # a name it prints is in a dir it names, or "."
    return None


PRINTF = "find -printf prints names made from a format"
"""Why the names a ``find -printf`` hands on are not known here (``%h/../.env``: any)."""


def _unknown(part: Part) -> str | None:
    """Why what a lister ``part`` prints is not known here, in words, or ``None``."""
    printf = _name(part) == "find" and "-printf" in (w.value for w in part.words[1:])
    return PRINTF if printf else None


def piped_dirs(parts: list[Part], k: int) -> list[str] | None:
    """The dirs whose files ``parts[k]`` (an ``xargs``) is given, ``None`` if not known."""
    listing = piped_listing(parts, k)
    return None if listing is None else listing.dirs


def piped_listing(parts: list[Part], k: int) -> Listing | None:
    """What ``parts[k]`` (an ``xargs``) is given (:class:`Listing`), ``None`` if not known.

    Read back through the pipe into it: filters (:func:`_filters`), then one lister
    (:func:`_listing`). A part of a subshell or substitution, a redirection or anything
    else on the way: ``None``.
    """
    before = _piped_lister(parts, k)
    return None if before is None else _listing(before)


def piped_unknown(parts: list[Part], k: int) -> str | None:
    """Why the names ``parts[k]`` (an ``xargs``) is given are not known, in words (``-printf``)."""
    before = _piped_lister(parts, k)
    return None if before is None else _unknown(before)


def _piped_lister(parts: list[Part], k: int) -> Part | None:
    """The part whose output reaches ``parts[k]`` through filters only, ``None`` if none."""
    depth = parts[k].depth
    while k > 0 and parts[k].piped and parts[k].joint == "|":
        k -= 1
        while k > 0 and parts[k].depth > depth:  # the lines a bash -c before it runs
            k -= 1
        before = parts[k]
        if _listing(before) is not None or not _filters(before):
            return before
    return None


_OPENERS = ("$(", "`", "<(", ">(")
SUBSTITUTED_SPLIT = re.compile(r"[\s*?\[\]+@!()'\"\\]")
"""A character of a name ``$(…)`` gives that bash splits it at (``IFS``) or globs it by
(``.e*`` matching ``.env``, an extglob's ``@(…)``): such a name may be any."""
NEUTRAL = frozenset({"cd", "pushd", "popd", "pwd", "ls", "cat", "grep", "egrep", "fgrep",
                     "find", "fd", "fdfind", "rg", "head", "tail", "wc", "sort", "uniq", "echo",
                     "true", "git"})
"""Programs that set no variable of the shell (``IFS``, ``POSIXLY_CORRECT``) nor its options."""


def line_sets_nothing(parts: list[Part]) -> bool:
    """True when no part of the line can set a shell variable or option.

    Each part runs a program of :data:`NEUTRAL`, with no assignment or other word before it
    (``IFS=: cat``).
    """
    return all(part.words and part.words[0].value.rsplit("/", 1)[-1] in NEUTRAL
               and "=" not in part.words[0].value for part in parts)


def substituted_listing(parts: list[Part], k: int) -> tuple[Word, Listing] | None:
    """The ``$(LISTER)`` word of ``parts[k]`` and what the lister prints, when it is known.

    ``wc -l $(find . -name '*.py')`` reads the files ``find`` prints, as ``find … | xargs wc
    -l`` does (:func:`piped_listing`). Only for a part whose one substitution (no other
    ``$(``, backtick or ``<(`` in it) is a whole word (``x$(…)``: not a name) run by the
    lister alone or piped through filters (:func:`_filters`), on a line that cannot change
    ``IFS`` or glob options (:func:`line_sets_nothing`). ``None`` otherwise.
    """
    found = _substituted(parts, k)
    listed = None if found is None else _listing(found[1])
    return None if found is None or listed is None else (found[0], listed)


def substituted_unknown(parts: list[Part], k: int) -> tuple[Word, str] | None:
    """The ``$(…)`` word of ``parts[k]`` and why the names it gives are not known (``-printf``)."""
    found = _substituted(parts, k)
    why = None if found is None else _unknown(found[1])
    return None if found is None or why is None else (found[0], why)


def _substituted(parts: list[Part], k: int) -> tuple[Word, Part] | None:
    """The ``$(…)`` word of ``parts[k]`` and the part printing it (:func:`substituted_listing`)."""
    part = parts[k]
    if part.joint != ")" or sum(w.raw.count(o) for w in part.words for o in _OPENERS) != 1:
        return None
    words = [w for w in part.words if w.value == "$(…)" and (w.raw == "$(…)" or (
        w.raw.startswith('"$(') and w.raw.endswith(')"')))]
    if len(words) != 1 or not line_sets_nothing(parts):
        return None
    j = k - 1
    while j > 0 and parts[j].piped and parts[j].joint == "|" and parts[j].depth == part.depth:
        if not _filters(parts[j]):
            return None
        j -= 1
    opener = parts[j].joint if j >= 0 else ""
    if j < 0 or parts[j].depth != part.depth or not opener.endswith("(") or opener.endswith(
            "(("):
        return None
    return words[0], parts[j]
