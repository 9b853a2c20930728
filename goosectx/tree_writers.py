"""Commands that write files their words do not name: unpackers, git's work-tree changers.

docs/architecture.md §4, clause 2 of the one approval decision: read by
:mod:`goosectx.diff_targets`, which asks whether a command earlier in the line may replace the
diff a ``patch`` or ``git apply`` then applies. ``tar xf x.tar``, ``unzip -o x.zip``, ``7z x``,
``cpio -i`` write whatever the archive holds; ``git checkout main``, ``git stash pop``, ``git
pull``, ``git reset --hard`` rewrite tracked files; ``gunzip fix.diff.gz`` writes ``fix.diff``
(:func:`unpacked_name`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_git import git_subcommand
from goosectx.shell_words import ASSIGNMENT_WORD

_ALWAYS = frozenset({"unrar", "unar", "cabextract", "aunpack", "lha", "unarj", "unace", "unlzx",
                     "rpm2cpio", "bsdunzip", "unsquashfs"})
"""Unpackers whose every use writes the archive's files."""
TARS = frozenset({"tar", "gtar", "bsdtar"})
TAR_EXTRACT = ("--ext", "--extr", "--extra", "--extrac", "--extract", "--get")
"""GNU tar's ``--extract`` and the shortenings it takes (``--ex`` is also ``--exclude``)."""
_LETTER_MODE = {"ar": "x", "jar": "x", "cpio": "i", "bsdcpio": "i", "pax": "r"}
"""Unpackers whose mode is a letter of their first word or an option cluster (``ar x``,
``jar -xf``, ``cpio -idv``, ``pax -r``)."""
SEVEN_Z = frozenset({"7z", "7za", "7zz", "7zr"})
UNZIP_READS = ("-l", "-t", "-v", "-Z", "-p", "-c", "-z", "-hh")
"""``unzip``'s listing, testing and printing modes: no file written."""
_DPKG_DEB_WRITES = ("-x", "-X", "-R", "--extract", "--vextract", "--raw-extract")
_GIT_TREE = frozenset({"checkout", "switch", "restore", "stash", "pull", "merge", "rebase",
                       "cherry-pick", "revert", "read-tree", "checkout-index", "bisect",
                       "submodule", "sparse-checkout"})
"""git subcommands that may rewrite tracked files (``reset`` too, with ``--hard``/``--merge``/
``--keep``)."""
_GIT_TREE_READS = frozenset({"list", "show", "create", "log", "visualize", "view", "status",
                             "summary", "terms"})
"""Their words that write nothing: ``git stash list``, ``git bisect log``, ``git submodule
status``."""
_NEW_BRANCH = ("-b", "-B", "-c", "-C", "--orphan")
_DECOMPRESSORS = frozenset({"gunzip", "gzip", "pigz", "unpigz", "unxz", "xz", "bunzip2", "bzip2",
                            "pbzip2", "zstd", "unzstd", "lz4", "unlz4", "uncompress", "lzma",
                            "unlzma", "lzip", "lunzip", "brotli", "unbrotli"})
_SUFFIX = re.compile(r"\.(?:gz|xz|bz2|zst|lz4|Z|lzma|lz|br|z)$")


def writes_unnamed(words: list[str]) -> str | None:
    """The program of ``words`` that writes files its words do not name, or ``None``.

    Looked for at any word (``sudo tar xf x.tar``, ``cd d && unzip -o x.zip``): an unpacker in
    a mode that extracts, or a git subcommand that may rewrite tracked files (not ``git
    checkout -b NEW``, which keeps them).
    """
    for k, word in enumerate(words):
        name, rest = word.rsplit("/", 1)[-1], words[k + 1:]
        if name in _ALWAYS or name == "unzip" and not any(w in UNZIP_READS for w in rest) or (
                name in SEVEN_Z and rest[:1] in (["x"], ["e"])) or name in TARS and _mode(
                rest, "x", TAR_EXTRACT) or name in _LETTER_MODE and _mode(
                rest, _LETTER_MODE[name], ("--extract",)) or name == "dpkg-deb" and any(
                w in _DPKG_DEB_WRITES for w in rest) or name == "git" and _git_tree(rest):
            return name
    return None


def _mode(args: list[str], letter: str, long: tuple[str, ...]) -> bool:
    """True when ``args`` set the mode ``letter``: in a bare first word or a ``-`` cluster."""
    first = args[0] if args else ""
    return (first[:1] != "-" and letter in first) or any(
        w in long or w[:1] == "-" and w[1:2] != "-" and letter in w[1:] for w in args)


def _git_tree(args: list[str]) -> bool:
    at = git_subcommand(args)
    sub, rest = (args[at], args[at + 1:]) if at < len(args) else ("", [])
    if sub == "reset":  # git takes a long option's abbreviation: --har
        return any(len(w) > 3 and w[:2] == "--" and any(
            o.startswith(w) for o in ("--hard", "--merge", "--keep")) for w in rest)
    if sub not in _GIT_TREE or rest[:1] and rest[0] in _GIT_TREE_READS:
        return False
    operands = [w for w in rest if w[:1] != "-"]
    return not (sub in ("checkout", "switch") and any(w in _NEW_BRANCH for w in rest)
                and len(operands) <= 1)  # git checkout -b new: the files stay as they are


def unpacked_name(words: list[str], value: str) -> str | None:
    """The file ``value`` (a word of ``words``) decompresses to: ``fix.diff.gz`` → ``fix.diff``.

    ``None`` when ``words`` run no decompressor or ``value`` has no compressed suffix.
    """
    if not any(w.rsplit("/", 1)[-1] in _DECOMPRESSORS for w in words):
        return None
    stripped = _SUFFIX.sub("", value)
    return stripped if stripped != value else None


READERS = frozenset({"cat", "less", "more", "head", "tail", "wc", "grep", "egrep", "fgrep",
                     "rg", "diffstat", "lsdiff", "file", "stat", "ls", "echo", "printf", "test",
                     "[", "[[", "md5sum", "sha1sum", "sha256sum", "bat", "cd", "pushd"})
"""Programs that only read the files they name (a ``> F`` of theirs is a part of its own): a
part of theirs naming a diff before ``patch``/``git apply`` reads it leaves it as it is
(:func:`goosectx.diff_targets.written_first`)."""
NON_WRITERS = READERS | frozenset({
    "ag", "sha512sum", "popd", "pwd", "true", "false", ":", "which", "type", "diff", "cmp",
    "tree", "du", "df", "whoami", "id", "date", "sleep", "read", "set", "export", "local",
    "shift", "readlink", "realpath", "basename", "dirname", "done", "fi", "esac", "}", ")",
    "]]", "]", "wait", "exit", "return", "break", "continue"})
"""Programs known to write no file (their words' own ``> F`` is a part of its own): the
:data:`READERS` and more; before a ``patch``/``git apply`` on the same line only these (and
:data:`_GIT_READS`, ``find`` without a writing action) keep its diff as it is on disk
(:func:`may_write`) — ``tree -o F`` names the file it writes, so a word naming the diff is
judged before this list (:func:`goosectx.diff_targets.written_first`)."""
_GIT_READS = frozenset({"status", "diff", "log", "show", "rev-parse", "ls-files", "describe",
                        "blame", "grep", "shortlog", "whatchanged", "cat-file", "ls-tree", "add",
                        "commit", "branch", "tag", "fetch"})
"""git subcommands that leave the work tree's files as they are (``git diff --output=F`` is
judged by the name it gives)."""
_FIND_WRITES = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
                "-fprintf", "-fls")
_TAR_LISTS = frozenset("ctvfzjJaSpCwW")
"""Letters of a ``tar`` that lists or creates (the archive it creates is named by ``-f``)."""
_TAR_LONG = ("--list", "--create", "--gzip", "--bzip2", "--xz", "--verbose", "--file")
_PLAIN_UNPACK = frozenset({"-d", "-k", "-f", "-v", "-q", "-c", "-t", "-l", "--decompress",
                           "--keep", "--force", "--verbose", "--quiet", "--stdout", "--test",
                           "--list", "-dk", "-kd", "-df", "-fd", "-dv", "-vd"})
"""Decompressor options that leave the written name as :func:`unpacked_name` makes it (not
``gunzip -N`` (the name stored in the file) nor ``-S SUFFIX``)."""


def may_write(words: list[str]) -> bool:
    """True unless the command ``words`` is known to write no file its words do not name.

    The safe direction: a program not known here (``sed -i``, ``xargs``, ``rename``, ``curl
    -OJ``, ``hg update``, ``bash -c '…'``, ``git -c alias.co=checkout co``, ``git reset
    --har``) may write any file, the diff a later ``patch`` reads among them. Known: the
    :data:`NON_WRITERS`, ``find`` without a writing action, git's reads and commits, ``tar``
    listing or creating, ``unzip -l``, a decompressor of named files with plain options.
    """
    k = 0
    while k < len(words) and ASSIGNMENT_WORD.match(words[k]):
        k += 1  # X=1 ls: the program is ls
    name, rest = (words[k].rsplit("/", 1)[-1], words[k + 1:]) if k < len(words) else ("", [])
    if not name or name in NON_WRITERS:
        return False
    if name == "find":
        return any(w.startswith(_FIND_WRITES) for w in rest)
    if name == "git":
        return _git_may_write(rest)
    if name in TARS:
        return not all(w[:2] != "--" and set(w.lstrip("-")) <= _TAR_LISTS if (
            w[:1] == "-" or i == 0) else w in _TAR_LONG or w[:1] != "-"
            for i, w in enumerate(rest))
    if name == "unzip":
        return not any(w in UNZIP_READS for w in rest)
    if name in _DECOMPRESSORS:
        return any(w[:1] == "-" and w not in _PLAIN_UNPACK or re.search(r"[$`*?\[{]", w)
                   for w in rest)
    return True


def _git_may_write(args: list[str]) -> bool:
    at = git_subcommand(args)
    if at >= len(args) or any(w.startswith(("-c", "--config-env", "--exec-path"))
                              for w in args[:at]):
        return True  # git -c alias.co=checkout co: any subcommand
    if args[at] in _GIT_READS:
        return False
    return args[at] not in (*_GIT_TREE, "reset") or _git_tree(args)
