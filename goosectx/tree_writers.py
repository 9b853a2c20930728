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

_ALWAYS = frozenset({"unrar", "unar", "cabextract", "aunpack", "lha", "unarj", "unace", "unlzx",
                     "rpm2cpio", "bsdunzip", "unsquashfs"})
"""Unpackers whose every use writes the archive's files."""
_TAR = frozenset({"tar", "gtar", "bsdtar"})
_LETTER_MODE = {"ar": "x", "jar": "x", "cpio": "i", "bsdcpio": "i", "pax": "r"}
"""Unpackers whose mode is a letter of their first word or an option cluster (``ar x``,
``jar -xf``, ``cpio -idv``, ``pax -r``)."""
_SEVEN_Z = frozenset({"7z", "7za", "7zz", "7zr"})
_UNZIP_READS = ("-l", "-t", "-v", "-Z", "-p", "-c", "-z", "-hh")
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
        if name in _ALWAYS or name == "unzip" and not any(w in _UNZIP_READS for w in rest) or (
                name in _SEVEN_Z and rest[:1] in (["x"], ["e"])) or name in _TAR and _mode(
                rest, "x", ("--extract", "--get")) or name in _LETTER_MODE and _mode(
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
    if sub == "reset":
        return any(w in ("--hard", "--merge", "--keep") for w in rest)
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
