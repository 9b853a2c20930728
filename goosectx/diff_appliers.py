"""How ``patch``, ``git apply`` and ``git am`` read their diff: the options that say where from.

docs/architecture.md §4, clause 2 of the one approval decision: read by
:mod:`goosectx.diff_targets`, which judges the files the diff names. ``-pN``, ``-i F``,
``-d DIR``, ``patch ORIGINAL DIFF``, ``-o F``, the backup options, ``git apply F…``,
``--directory``, ``--unsafe-paths``; an applier found at any word of a command (``sudo patch``)
or in a command string it is given (``bash -c 'patch -p1'``).

Core module: no printing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from goosectx.option_table import PATCH_VALUED
from goosectx.shell_git import git_subcommand
from goosectx.shell_lexer import lex
from goosectx.shell_options import long_option, short_value, value_at

PATCHERS = frozenset({"patch", "gpatch"})
_GIT_VALUED = ("--directory", "--include", "--exclude", "--whitespace", "--build-fake-ancestor",
               "--patch-format", "--resolvemsg", "--quoted-cr", "--empty")  # the last 4: git am's
_AM_GOING_ON = ("--continue", "-r", "--resolved", "--skip", "--abort", "--quit", "--retry",
                "--show-current-patch", "--allow-empty")
_GIT_READ_ONLY = ("--check", "--stat", "--numstat", "--summary")
_PATCH_LONG = (("--strip", "strip"), ("--input", "input"), ("--directory", "directory"),
               ("--output", "output"), ("--prefix", "prefix"), ("--basename-prefix", "basename"),
               ("--suffix", "suffix"))
_PATCH_VALUED_LONG = ("--reject-file", "--version-control", "--fuzz", "--ifdef", "--get",
                      "--quoting-style", "--read-only", "--reject-format")


@dataclass
class Applied:
    """How one ``patch``/``git apply`` call reads its diff."""

    files: list[str] = field(default_factory=list)
    """The diff files it names (``-i F``, ``git apply F…``); none: it reads its input."""
    strip: int | None = None
    """``-pN``; ``None``: every strip is taken (``patch`` without ``-p``)."""
    directory: str = ""
    """``-d DIR`` / ``--directory=DIR``: where the names are taken."""
    written: list[str] = field(default_factory=list)
    """Files the command line names that it writes (``patch ORIGINAL DIFF``: ORIGINAL; ``git
    apply --build-fake-ancestor=F``: the index F it builds, ``--check`` or ``--stat`` too)."""
    output: str = ""
    """``patch -o F``: it writes F (judged as the option's), none of the diff's names."""
    backup: dict[str, str] = field(default_factory=dict)
    """``patch``'s backup names: ``prefix`` (``-B``), ``basename`` (``-Y``), ``suffix`` (``-z``)."""
    unsafe_paths: bool = False
    """``git apply --unsafe-paths``: names outside the work tree are written too (git refuses
    them otherwise, and GNU patch refuses a name with ``..`` or a leading ``/``)."""


def applied(name: str, args: list[str]) -> Applied | None:
    """How ``name ARGS`` applies a diff, or ``None``.

    ``None``: not ``patch``, ``git apply`` or ``git am`` (its mailboxes: their diffs, judged as
    ``git apply``'s), or ``git apply --check``/``--stat`` (no write, but a fake ancestor's: then
    only that), ``git am --continue``.
    """
    if name in PATCHERS:
        return _patch(args)
    if name != "git":
        return None
    at = git_subcommand(args)
    if args[at:at + 1] not in (["apply"], ["am"]):
        return None
    rest, found = args[at + 1:], Applied(strip=1)
    if args[at] == "am" and any(w in _AM_GOING_ON for w in rest):
        return None  # git am --continue: the mailbox read when it started (judged then)
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            found.files += rest[i + 1:]
            break
        option = next((o for o in _GIT_VALUED if long_option(word, o)), None)
        if option is not None:
            value = word.partition("=")[2] if "=" in word else value_at(rest, i + 1) or ""
            found.directory = value if option == "--directory" else found.directory
            found.written += [value] if option == "--build-fake-ancestor" and value else []
            i += 1 if "=" in word else 2
            continue
        if word.startswith("-p") and word[2:].isdigit():
            found.strip = int(word[2:])
        elif word == "-p" and (value_at(rest, i + 1) or "").isdigit():
            found.strip, i = int(rest[i + 1]), i + 1
        elif word[:1] != "-" or word == "-":
            found.files.append(word)
        found.unsafe_paths = found.unsafe_paths or word == "--unsafe-paths"
        i += 1
    found.files = [f for f in found.files if f != "-"]
    if any(w in _GIT_READ_ONLY for w in rest) and "--apply" not in rest:
        return Applied(written=found.written) if found.written else None  # --check: no diff
    return found


def _patch(args: list[str]) -> Applied:
    found, operands, i = Applied(), [], 0
    while i < len(args):
        word = args[i]
        if word == "--":
            operands += args[i + 1:]
            break
        if word[:2] == "--":
            value = word.partition("=")[2] if "=" in word else value_at(args, i + 1) or ""
            for option, slot in _PATCH_LONG:
                if long_option(word, option):
                    _set(found, slot, value)
                    i += 0 if "=" in word else 1
                    break
            else:  # --reject-file R ORIGINAL DIFF: R is no operand
                i += "=" not in word and any(long_option(word, o) for o in _PATCH_VALUED_LONG)
            i += 1
            continue
        if word[:1] == "-" and len(word) > 1:
            short = short_value(args, i, PATCH_VALUED)
            slot = {"p": "strip", "i": "input", "d": "directory", "o": "output",
                    "B": "prefix", "Y": "basename", "z": "suffix"}.get(short.letter, "")
            if slot and short.value is not None:
                _set(found, slot, short.value)
            i = short.next
            continue
        operands.append(word)
        i += 1
    found.written += operands[:1]
    found.files += operands[1:2]
    return found


def _set(found: Applied, slot: str, value: str) -> None:
    if slot == "strip" and value.isdigit():
        found.strip = int(value)
    elif slot == "input":
        found.files.append(value)
    elif slot == "directory":
        found.directory = value
    elif slot == "output":
        found.output = "" if value == "-" else value  # -o -: the patched text to its output
    else:  # -B .git/hooks/: each file's backup is written there (before the file itself)
        found.backup[slot] = value


def appliers(words: list[str], depth: int = 0) -> list[tuple[str, Applied]]:
    """The diff appliers ``words`` start, at any word (``sudo patch -i F``, ``{ git am``).

    Also in a word that is a command line (``bash -c 'patch -p1'``, ``sudo sh -c 'git apply'``):
    each of its commands' appliers, read the same way.
    """
    found = []
    for k, word in enumerate(words):
        name = word.rsplit("/", 1)[-1]
        if depth < 3 and any(c.isspace() for c in word):
            found += [how for part in lex(word)
                      for how in appliers([w.value for w in part.words], depth + 1)]
        if name in PATCHERS or name == "git":
            how = applied(name, words[k + 1:])
            rest = words[k + 1:]
            found += [(name, how or Applied())] if how or name == "git" and rest[
                git_subcommand(rest):][:1] in (["apply"], ["am"]) else []  # not git stash apply
    return found

