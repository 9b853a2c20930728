"""The sensitive files a recursive read reaches below the directories it names.

docs/architecture.md §4 (clause "permission rules"). The sensitive-file check judges the paths
a shell command names (:func:`goosectx.sensitive.sensitive_words`); ``grep -r KEY .`` names
only ``.``, yet reads ``./.env`` and ``./.git/config``. So under an allow rule such as
``shell(grep*)`` (or after ``a``) the approval also walks each directory a recursive ``grep``
or ``diff`` (``.`` when it names none), ``rg``/``ag``/``ack`` (recursive by default), a
``tar``, ``cp -r``, ``rsync -a``, ``scp -r`` or ``zip -r`` reads, ``rm -r`` / ``find -delete``
/ ``git clean`` deletes, ``mv``/``ln`` names anew, each dir ``find … -exec CMD {} ;`` or ``fd
… -x CMD`` walks (CMD reads every file found: what ``-name`` keeps is not worked out), and
asks when a sensitive file lies below it, or when there are more than :data:`MAX_NAMES` names
to look at (any may be).

Core module: no printing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from goosectx.find_words import fd_runs_dirs, find_runs_starts
from goosectx.glob_words import MAX_NAMES
from goosectx.program_operands import program_operand, rsync_patterns, rsync_skipped
from goosectx.searcher_options import Whitelists, hidden_whitelist, searched_dirs
from goosectx.shell_options import long_option, option_value, short_value
from goosectx.shell_words import Word

_RECURSIVE: dict[str, tuple[tuple[str, ...], str]] = {
    "grep": (("--recursive", "--dereference-recursive"), "rR"),
    "diff": (("--recursive",), "r"),
    "cp": (("--recursive", "--archive"), "rRa"),
    "rsync": (("--recursive", "--archive"), "ra"),
    "scp": ((), "r"),
    "zip": (("--recurse-paths", "--recurse-patterns"), "rR"),
    "rm": (("--recursive",), "rR"),
}
"""Programs that read (``rm``: delete) below a directory when given one of these long options,
under any prefix getopt takes for it (``--recu``, :func:`goosectx.shell_options.long_option`),
or one of these letters in a cluster of short options (``-rn``, ``-av``); ``egrep``/``fgrep``
are ``grep``. ``tar`` reads below every directory it is given, ``rgrep`` is ``grep -r``."""
_SEARCHERS = frozenset({"rg", "ag", "ack", "ack-grep"})
"""Searchers that read below the working dir (or the dirs they name) by default."""
_SHOW_HIDDEN = ("--hidden", "--unrestricted", "--no-ignore-hidden", "--search-hidden")
_GREP_VALUED = "dDefmABC"
"""grep's short options that take a value (``-d recurse``, ``-nd rec``)."""
GREP_VALUED_LONG = ("--after-context", "--before-context", "--context", "--binary-files",
                    "--devices", "--directories", "--file", "--group-separator", "--label",
                    "--max-count", "--regexp", "--include", "--exclude", "--exclude-dir",
                    "--exclude-from")
"""grep's long options that take the next word as their value when written without ``=``."""


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return "grep" if name in ("egrep", "fgrep", "rgrep") else name


def _grep_recurses(args: list[str], i: int) -> bool:
    """True when grep's ``args[i]`` is ``--directories=recurse`` / ``-d rec`` under any spelling.

    getopt takes a prefix of ``--directories``; grep a prefix of ``recurse`` as its value.
    """
    value = option_value(args, i, ("--directories",))
    if value is None and args[i][:1] == "-" and args[i][1:2] != "-":
        short = short_value(args, i, _GREP_VALUED)
        value = short.value if short.letter == "d" else None
    return bool(value) and "recurse".startswith(value or "")


def recursive_operands(words: list[Word]) -> list[str] | None:
    """The words a recursive read (or delete) may reach below, ``None`` if the command reaches none.

    ``grep -rn TODO src`` → ``["src"]`` (every operand but the pattern,
    :func:`goosectx.program_operands.program_operand`; with ``-e``/``-f`` every operand, a
    word that is no directory is skipped by the walk); ``grep -r x`` → ``["."]``, as grep
    reads the working dir; ``tar -czf out.tgz .`` → ``["-czf", "out.tgz",
    "."]`` (tar's first word may be its options without a dash); ``cp -r src dst``, ``rsync
    -a``, ``scp -r``, ``zip -r``, ``rm -r``; ``find … -delete`` / ``-exec``; ``git clean``;
    ``mv`` and ``ln``, whose dir's files a later word may name anew (``mv .git g``).
    """
    if not words:
        return None
    name = _program(words[0].value)
    args = [w.value for w in words[1:]]
    if name == "tar":
        return [value for value in _tar_read(args) if value != "-"]
    if name == "find":
        return find_runs_starts(args)
    if name in ("fd", "fdfind"):
        return fd_runs_dirs(args)
    if name in ("mv", "ln"):  # mv .git g && cat g/config: its files under another name
        return [a for a in args if not a.startswith("-")]
    if name in _SEARCHERS:  # rg -m 5 KEY: the working dir; rg KEY src: src
        return searched_dirs(name, args)
    if name == "git" and args[:1] == ["clean"]:
        return [a for a in args[1:] if not a.startswith("-")] or ["."]
    if name == "diff":  # diff dirA dirB compares the files in them, -r those below too
        return _diff_operands(args)
    if name not in _RECURSIVE:
        return None
    longs, letters = _RECURSIVE[name]
    recursive = words[0].value.rsplit("/", 1)[-1] == "rgrep"
    pattern = program_operand([words[0].value, *args]) if name == "grep" else None
    operands: list[str] = []
    values, given = _grep_values(args) if name == "grep" else ({k - 1 for k in rsync_patterns(
        [name, *args])}, False)  # rsync --exclude .git ./ d: a pattern, no operand
    for i, value in enumerate(args):
        if value == "--":
            operands.extend(a for j, a in enumerate(args[i + 1:], i + 2) if j != pattern)
            break
        if i in values:  # grep -r --context 3 KEY: 3 is no operand, grep reads .
            continue
        if any(long_option(value, option) for option in longs) or name == "grep" and (
                _grep_recurses(args, i)):
            recursive = True
        elif value.startswith("-") and not value.startswith("--") and len(value) > 1:
            recursive |= any(letter in value for letter in letters)
        elif not value.startswith("-") and i + 1 != pattern:  # program_operands
            operands.append(value)
    if not recursive:
        return None
    if name == "grep" and (len(operands) <= 1 and not given and pattern is None or not operands):
        return [*operands, "."]  # grep -r KEY: the working dir; -e KEY src: src alone
    return operands


def _tar_read(args: list[str]) -> list[str]:
    """The words of a tar call that it may read below.

    All but, when it extracts (``-x``, ``xf``, ``--extract``, ``--get``), the directory of
    ``-C``/``--directory``: where it writes (``tar -xf x.tar -C ~``), not a read.
    """
    extracts = any(
        long_option(a, "--extract") or long_option(a, "--get") or a[:1] == "-" and a[1:2] != "-"
        and "x" in a[1:] or k == 0 and a[:1] != "-" and "x" in a for k, a in enumerate(args))
    if not extracts:
        return args
    kept, skip = [], False
    for value in args:
        if skip:
            skip = False
        elif value in ("-C", "--directory") or long_option(value, "--directory") and (
                "=" not in value):
            skip = True
        elif not (value.startswith("-C") or value.startswith("--directory=")):
            kept.append(value)
    return kept


def _diff_operands(args: list[str]) -> list[str]:
    """The words ``diff`` may read below: each operand, ``--from-file``'s and ``--to-file``'s value.

    Without ``-r`` diff reads only the files right in a dir it is given; the walk takes what is
    below too (asks more, never less). An option's value (``-x PAT``) taken for a dir word is
    walked as well, if it is one.
    """
    found: list[str] = []
    for i, value in enumerate(args):
        if value == "--":
            found.extend(args[i + 1:])
            break
        if any(long_option(value, one) for one in ("--from-file", "--to-file")):
            given = value.partition("=")[2] if "=" in value else (
                args[i + 1] if i + 1 < len(args) else "")
            found.extend([given] if given else [])
        elif not value.startswith("-") or value == "-":
            found.append(value)
    return [one for one in found if one != "-"]


def top_level_only(words: list[Word]) -> Printed | None:
    """For ``diff`` without ``-r``: the walk keeps the files right in a dir, enters none below.

    ``diff a b`` compares ``a/x`` with ``b/x``, and says "Common subdirectories" for the
    rest. ``None`` for every other program, and for ``diff -r`` (``--recu``, ``-Nru``).
    """
    if not words or _program(words[0].value) != "diff":
        return None
    for value in (w.value for w in words[1:]):
        if value == "--":
            break
        if long_option(value, "--recursive") or value[:1] == "-" and value[
                1:2] != "-" and "r" in value:
            return None
    return lambda _name, is_dir: not is_dir


def _grep_values(args: list[str]) -> tuple[set[int], bool]:
    """Where grep's options take their value from the next word, and whether one gives the pattern.

    ``-e KEY``, ``--exclude x``: the value is no operand; with ``-e``, ``-f``, ``--regexp`` or
    ``--file`` every operand is a file.
    """
    found: set[int] = set()
    given = False
    i = 0
    while i < len(args) and args[i] != "--":
        word = args[i]
        if word.startswith("--") and len(word) > 2:
            name, eq, _value = word.partition("=")
            given |= any(long_option(name, one) for one in ("--regexp", "--file"))
            if not eq and any(option.startswith(name) for option in GREP_VALUED_LONG):
                found.add(i + 1)
                i += 2
                continue
        elif word.startswith("-") and len(word) > 1:
            short = short_value(args, i, _GREP_VALUED)
            given |= short.letter in ("e", "f")
            if short.next == i + 2:
                found.add(i + 1)
            i = short.next
            continue
        i += 1
    return found, given


RUNS_ON_FOUND = frozenset({"find", "fd", "fdfind"})
"""Programs whose ``-exec`` / ``-x`` command opens each file found, a symlink by its target."""


def follows_links(words: list[Word]) -> bool:
    """True when a recursive read follows the symlinks below its dirs: ``grep -R``, ``rg -L``.

    ``diff`` always does (``diff -r a b`` reads what ``a/notes`` → ``~/.ssh/id_rsa`` leads
    to) but with ``--no-dereference``.
    ``grep -R KEY .`` reads ``data/id_rsa`` through ``data`` → ``~/.ssh``; ``grep -r`` skips
    links it meets. A prefix getopt may take for it counts (``--dere``, ``--d``: asks more).
    """
    name = _program(words[0].value) if words else ""
    if name == "diff":  # GNU diff follows every link below; 3.3+ has --no-dereference
        return not any(long_option(w.value, "--no-dereference") for w in words[1:])
    letters, longs = {"grep": ("R", ("--dereference-recursive",)),
                      "rg": ("L", ("--follow",))}.get(name, ("", ()))
    for value in (w.value for w in words[1:]):
        if value == "--":
            break
        if any(long_option(value, one) for one in longs) or value[:1] == "-" and value[
                1:2] != "-" and any(letter in value for letter in letters):
            return True
    return False
def hidden_skipped(words: list[Word]) -> bool:
    """True when the searcher ``words`` run skips hidden files and dirs (``rg KEY``, ``ag``).

    Not with ``--hidden``, ``-u``/``--unrestricted``, ``-.`` (any spelling), nor for rg with a
    ``RIPGREP_CONFIG_PATH`` (its options are not read here); ``ack`` is not counted on. Even
    so rg reads the hidden files a glob whitelists (:func:`hidden_read`).
    """
    name = _program(words[0].value) if words else ""
    if name not in ("rg", "ag") or name == "rg" and os.environ.get("RIPGREP_CONFIG_PATH"):
        return False
    return not any(any(long_option(a, option) for option in _SHOW_HIDDEN) or a[:1] == "-" and (
        a[1:2] != "-" and ("u" in a or "." in a)) for a in (w.value for w in words[1:]))


def hidden_read(words: list[Word]) -> bool | Printed:
    """Which hidden names the searcher ``words`` run reads: all (``True``), none, or a filter.

    None for ``rg KEY`` (:func:`hidden_skipped`), but rg reads a hidden file a ``-g`` /
    ``--iglob`` glob whitelists (``rg KEY -g '.env'``), every one with ``--type-add`` or
    ``--ignore-file`` (:func:`goosectx.searcher_options.hidden_whitelist`). An ignore file
    with a ``!`` line whitelists too: :func:`sensitive_below_dir` looks for one.
    """
    if not hidden_skipped(words):
        return True
    if _program(words[0].value) != "rg":
        return False
    return hidden_whitelist([w.value for w in words[1:]])


def untouched_dirs(words: list[Word]) -> frozenset[str]:
    """Dirs right in the walked dir a recursive command never enters: ``.git`` for ``git clean``.

    (A nested repository's ``.git`` is another matter: ``git clean -ffd`` deletes it.) rsync's
    excluded names (``rsync -a --exclude .git ./ dev:/srv``: :func:`rsync_skipped`).
    """
    if words and _program(words[0].value) == "rsync":
        return rsync_skipped([w.value for w in words])
    values = [w.value for w in words[:2]]
    return frozenset({".git"}) if values and _program(values[0]) == "git" and values[
        1:] == ["clean"] else frozenset()


SPLIT_NAME = re.compile(r"[\s'\"\\]")
"""A character ``xargs`` splits or unquotes a name at: ``a .env b.md`` is three names to it."""
Printed = Callable[[str, bool], bool]
"""Whether a lister prints an entry of this name (a dir when the flag is set): ``find -name``."""


def sensitive_below_dir(directory: Path, anchor: Path | None = None,
                        skip: frozenset[str] = frozenset(),
                        printed: Printed | None = None,
                        split: re.Pattern[str] | None = None,
                        hidden: bool | Printed = True,
                        kept: Printed | None = None,
                        follows: bool = False) -> Iterator[Path | None]:
    """Each sensitive file below ``directory`` that is reached, in walk order (no symlinks).

    A ``None`` when there are more than :data:`MAX_NAMES` names (any may be). Judged by
    :func:`goosectx.sensitive.sensitive_below`: the names below ``anchor`` (the working dir,
    when ``directory`` is in it: ``cp -r .git g`` reaches ``.git/config``), else below
    ``directory``, so a project under ``~/.config/gh`` is no secret itself. Dirs of ``skip``
    right in ``directory`` are not entered. ``printed``: a name filter (``find . -name
    '*.md' | xargs wc -l``); an entry is reached when printed or below a printed dir (``xargs
    grep -r`` reads below it); the caller passes none when ``directory`` itself is printed.
    ``split``: a name printed to ``xargs`` that it splits into other names (``a .env b.md``:
    a blank, a quote, a backslash: :data:`SPLIT_NAME`), or that bash splits or globs after a
    ``$(…)``, is yielded as well (it may be any). ``hidden=False``:
    names starting with ``.`` are not entered (``rg KEY`` skips them), but in a dir where an
    ignore file may whitelist them (:class:`goosectx.searcher_options.Whitelists`); a
    filter: those it keeps are (``rg KEY -g '.env'``, :func:`hidden_read`). ``kept``: which files
    the command reads and dirs it enters (``grep -r --include='*.py'``,
    :mod:`goosectx.grep_filters`); a dir is then judged by the files it reads below it.
    ``follows``: the command follows the symlinks below (``diff``, ``grep -R``): a link
    counts by what it leads to as well (``conf`` → ``.env``).
    """
    from goosectx.sensitive import sensitive_below

    whitelisting = Whitelists()
    root = directory if anchor is None or not (
        directory == anchor or anchor in directory.parents) else anchor
    reached = {directory} if printed is None else set()
    for found in _names_below(directory):
        if found is None:
            yield None
            return
        path, dirs = found
        if path.name in skip and path.parent == directory and path.name in dirs or (
                hidden is not True and path.name.startswith(".") and not (
                    hidden and hidden(path.name, path.name in dirs)) and not whitelisting(
                    path.parent)):
            if path.name in dirs:
                dirs.remove(path.name)
            continue
        is_dir = path.name in dirs
        if kept is not None and not kept(path.name, is_dir):
            if is_dir:
                dirs.remove(path.name)
            continue
        if kept is not None and is_dir:
            if follows and os.path.islink(path) and _leads_to_sensitive(path, root):
                yield path  # grep -R --include=config KEY src, src/g → .git: not walked here
            continue  # grep -r --include='*.py': .git's *.py files only, judged one by one
        if printed is not None and path.parent not in reached and not printed(
                path.name, is_dir):
            continue  # not printed itself: its subdirs may be
        if is_dir:
            reached.add(path)
        if split is not None and split.search(path.name) and (printed is None or printed(
                path.name, is_dir)):
            yield path
        elif sensitive_below(path, root) or follows and os.path.islink(path) and (
                _leads_to_sensitive(path, root)):
            yield path
            if path.name in dirs:
                dirs.remove(path.name)  # one finding per sensitive directory


def _leads_to_sensitive(link: Path, root: Path) -> bool:
    """True when the symlink ``link`` leads to a sensitive file, or a dir with one below.

    ``fixtures/a/conf`` → ``../../.env``: ``diff -r``, ``grep -R`` read ``.env`` under the
    name ``conf``. Judged below ``root`` resolved; links below a linked dir are not followed
    again (they count only by name there).
    """
    from goosectx.sensitive import resolve, sensitive_below

    target, real_root = resolve(link), resolve(root)
    if not os.path.isdir(target):
        return sensitive_below(target, real_root)
    return sensitive_below(target, real_root) or next(
        sensitive_below_dir(target, real_root), False) is not False


def links_out_below(directory: Path, real_dir: Path, printed: Printed | None = None,
                    follows: bool = True) -> Iterator[Path | None]:
    """Each symlink below ``directory`` whose target lies outside ``real_dir``, in walk order.

    ``find . -exec cat {} +`` hands ``cat`` the link, and ``cat`` reads the file it leads to.
    A ``None`` when there are more than :data:`MAX_NAMES` names (any may be such a link).
    ``printed``: the names a lister hands on (``find . -name '*.py' | xargs wc -l`` never
    hands on ``.venv/bin/python``), as for :func:`sensitive_below_dir`; a link to a dir counts
    printed or not when the lister ``follows`` links (``find -L`` prints the names below it).
    """
    from goosectx.sensitive import inside, resolve

    reached = {directory} if printed is None else set()
    for found in _names_below(directory):
        if found is None:
            yield None
            return
        path, dirs = found
        is_dir = path.name in dirs
        through = follows and is_dir and os.path.islink(path)  # find -L: lib/x.py printed
        if printed is not None and path.parent not in reached and not through and not printed(
                path.name, is_dir):
            continue  # not printed itself: its subdirs may be
        if is_dir:
            reached.add(path)
        if os.path.islink(path) and not inside(resolve(path), real_dir):
            yield path


def _names_below(directory: Path) -> Iterator[tuple[Path, list[str]] | None]:
    """Each name below ``directory`` (symlinks not followed) with its dir's list of subdirs.

    Removing a name from that list skips the subdir; a ``None`` past :data:`MAX_NAMES` names.
    """
    seen = 0
    for top, dirs, files in os.walk(directory):
        for name in (*dirs, *files):
            seen += 1
            if seen > MAX_NAMES:
                yield None
                return
            yield Path(top) / name, dirs
