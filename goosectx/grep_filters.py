r"""Which files below a directory a recursive ``grep`` reads, by its ``--include``/``--exclude``.

docs/architecture.md §4 (clause "permission rules"). ``grep -rn TODO . --include='*.py'``
reads only the ``*.py`` files below ``.``, so the walk for sensitive files
(:mod:`goosectx.recursive_reads`) skips what GNU grep (3.x) skips: a file whose base name the
``--include``/``--exclude`` globs leave out (of those that match its name the last one wins;
when none matches, the file is read unless the first of them is an ``--include``), a dir whose
base name an ``--exclude-dir`` glob matches. What cannot be read here reads everything: a
glob with ``[`` or ``\\`` (Python's fnmatch reads them otherwise), ``--exclude-from``, a
prefix of several options, a filter word that may be another option's value (``-e
--include=x``), and a filter after the first operand when ``POSIXLY_CORRECT`` may be set
(in the environment, or by anything else on the line: grep then reads it as a file).

Core module: no printing.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from pathlib import Path
from typing import NamedTuple

from goosectx.recursive_reads import GREP_VALUED_LONG, Printed
from goosectx.shell_options import short_value
from goosectx.shell_words import Word

_VALUED_SHORT = "dDefmABC"
"""grep's short options that take a value (``-e PAT``, ``-nf list``)."""
_FILTERS = ("--include", "--exclude", "--exclude-dir", "--exclude-from")
def _filter(name: str) -> str | None:
    """The filter option a long option's name (no ``=``) spells, ``"?"`` if it may be another.

    getopt takes a prefix: ``--incl`` is ``--include``, ``--exclude-d`` ``--exclude-dir``;
    ``--exc`` fits three options (grep fails), ``--exclude-f`` is ``--exclude-from``: ``"?"``.
    ``None``: none of them.
    """
    if name == "--exclude":
        return name
    if len(name) >= len("--inc") and "--include".startswith(name):
        return "--include"
    if len(name) >= len("--exclude-d") and "--exclude-dir".startswith(name):
        return "--exclude-dir"
    return "?" if len(name) > 2 and any(one.startswith(name) for one in _FILTERS) else None


def _looks_like_filter(word: str) -> bool:
    return _filter(word.partition("=")[0]) is not None


def _as_written(word: Word, base: Path, neutral: bool) -> bool:
    """True when bash passes ``word`` (a filter) on as written, run in ``base``.

    Not a word bash computes (``--include=$X``), nor a brace (``*.{py,md}``: two words); an
    unquoted glob (``--include=*.py``) only when no file in ``base`` matches it and no glob
    option can be set (``nullglob`` drops it: grep then reads every file).
    """
    if word.expands:
        return False
    if not word.pattern:
        return True
    return neutral and "{" not in word.value and "BASHOPTS" not in os.environ and not glob.glob(
        glob.escape(str(base)) + "/" + word.value)


def grep_kept(words: list[Word], base: Path, neutral: bool) -> Printed | None:
    """Whether grep (``words``: after the program) reads a file (enters a dir) below a dir.

    ``None`` when it reads every one (no filter, or one not read here: see the module).
    ``base``: the dir it runs in; ``neutral``: nothing on the line can set a variable or a
    glob option, nor ``POSIXLY_CORRECT`` (:func:`goosectx.piped_names.line_sets_nothing`), so
    a filter after the first operand is an option.
    """
    parsed = _parse(words, base, neutral)
    if parsed is None or not parsed.files and not parsed.dirs:
        return None
    files, dirs = parsed.files, parsed.dirs

    def kept(name: str, is_dir: bool) -> bool:
        if is_dir:
            return not any(fnmatch.fnmatchcase(name, glob) for glob in dirs)
        matched = [include for include, glob in files if fnmatch.fnmatchcase(name, glob)]
        return matched[-1] if matched else not (files and files[0][0])

    return kept


def filter_words(words: list[Word], base: Path, neutral: bool) -> list[Word]:
    """The words of grep's filters that hold globs, not paths.

    ``--exclude=.env``, ``.env`` of ``--exclude .env``; none when the filters are not read
    here (:func:`grep_kept`).
    """
    parsed = _parse(words, base, neutral)
    return [] if parsed is None else parsed.words


class _Filters(NamedTuple):
    files: list[tuple[bool, str]]
    """``(is an --include, glob)`` in order."""
    dirs: list[str]
    """The ``--exclude-dir`` globs."""
    words: list[Word]
    """The words holding the globs."""


def _parse(words: list[Word], base: Path, neutral: bool) -> _Filters | None:  # noqa: C901
    """The filters of grep's words (:class:`_Filters`), ``None`` when not read here."""
    args = [w.value for w in words]
    files: list[tuple[bool, str]] = []
    dirs: list[str] = []
    held: list[Word] = []
    operand = False
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            break
        name, eq, value = word.partition("=")
        if word.startswith("--") and len(word) > 2:
            kind = _filter(name)
            if kind == "?":
                return None
            if kind is None:
                if eq or not any(one.startswith(name) for one in GREP_VALUED_LONG):
                    i += 1
                    continue
                if i + 1 < len(args) and _looks_like_filter(args[i + 1]):
                    return None  # --regexp --include=x: a value, not a filter
                i += 2
                continue
            if not eq:
                if i + 1 >= len(args):
                    return None
                value, i = args[i + 1], i + 1
            if operand and not neutral or "[" in value or "\\" in value or not (
                    _as_written(words[i], base, neutral)):
                return None
            held.append(words[i])
            if kind == "--exclude-dir":
                dirs.append(value)
            else:
                files.append((kind == "--include", value))
        elif word.startswith("-") and len(word) > 1:
            short = short_value(args, i, _VALUED_SHORT)
            if short.next == i + 2 and short.value is not None and _looks_like_filter(
                    short.value):
                return None  # -e --include=x: the pattern, not a filter
            i = short.next
            continue
        else:
            operand = True
        i += 1
    return _Filters(files, dirs, held)
