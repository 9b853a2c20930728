"""Multi-call binaries and prefixed names of the coreutils, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Like
``busybox rm x``, one binary runs the utility its first argument names: GNU's ``coreutils
--coreutils-prog=rm x`` (``coreutils rm x`` since 9.5, a name ending in ``coreutils``) and
uutils' ``coreutils rm x`` (``uu-coreutils`` too). The same utilities come under a prefixed
name: uutils' ``uu-rm`` (Arch, MacPorts), GNU's ``grm``, ``gtimeout``, ``gxargs`` (Homebrew's
coreutils and findutils). :func:`applet_words` gives the command the rules then read, so
``shell(rm *)`` denies ``coreutils rm x`` and ``uu-rm x`` as it denies ``rm x``. What the
command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_lexer import Word

MULTICALL = frozenset({"coreutils", "uu-coreutils", "rust-coreutils"})
"""Multi-call binaries of the coreutils: their first argument names the program they run."""
_GNU_PREFIXED = frozenset({
    "rm", "rmdir", "mv", "cp", "ln", "dd", "shred", "mkdir", "touch", "truncate", "install",
    "unlink", "chmod", "chown", "chgrp", "tee", "ls", "cat", "head", "tail", "sort", "stat",
    "readlink", "realpath", "date", "env", "nohup", "timeout", "stdbuf", "nice", "chroot",
    "xargs", "find", "split", "csplit", "mktemp", "base64", "sha256sum", "md5sum", "wc",
    "cut", "tr", "uniq", "seq", "printf", "echo", "basename", "dirname"})
"""Coreutils and findutils programs Homebrew installs with a ``g`` (``grm``, ``gxargs``)."""


LOADER = re.compile(r"ld(?:64|-[\w.-]+)?\.so(?:\.[\d.]+)?")
"""Names of the dynamic loader: ``ld.so``, ``ld-linux-x86-64.so.2``, ``ld-linux-aarch64.so.1``,
``ld64.so.2``, ``ld-2.31.so``, ``ld-musl-x86_64.so.1``."""
_LOADER_VALUED = frozenset({
    "--library-path", "--preload", "--audit", "--argv0", "--inhibit-rpath",
    "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"})
"""The loader's options that take the next word (glibc's; musl's take ``=VALUE`` too)."""


def loader_words(words: list[Word]) -> list[Word]:
    """The command the dynamic loader runs: its words from the first that is no option.

    glibc's ld.so reads ``--library-path DIR``, ``--preload LIBS``, ``--audit``, ``--argv0``,
    ``--inhibit-rpath``, ``--glibc-hwcaps-prepend`` / ``-mask`` with the next word, and its
    other options (``--list``, ``--verify``, ``--inhibit-cache``) alone; musl's ends its
    options at ``--``. ``--list`` and ``--verify`` only load the program: reading it anyway
    only asks more.
    """
    i = 0
    while i < len(words) and words[i].value.startswith("-"):
        word = words[i].value
        if word == "--":
            return words[i + 1:]
        i += 2 if word in _LOADER_VALUED else 1
    return words[i:]


def _multicall(name: str) -> bool:
    return name in MULTICALL or name.endswith("coreutils") and name[:-9] in ("", "g", "uu-")


def applet_words(name: str, words: list[Word]) -> list[Word] | None:
    """The command ``name`` runs as another program, or ``None``: it is itself.

    ``words``: its words after the program. ``coreutils rm x`` / ``coreutils
    --coreutils-prog=rm x`` → ``rm x``; ``uu-rm x`` / ``grm x`` → ``rm x``; a multi-call
    binary given no program (``coreutils --help``) runs none: ``[]``; ``ld.so [OPTIONS] PROG
    ARGS`` → ``PROG ARGS`` (:func:`loader_words`).
    """
    if LOADER.fullmatch(name):
        return loader_words(words)
    if _multicall(name):
        if not words:
            return []
        first = words[0].value
        for option in ("--coreutils-prog=", "--coreutils-prog-shebang="):
            if first.startswith(option):
                applet = first[len(option):]
                return [Word(applet, applet), *words[1:]]
        return [] if first.startswith("-") else words
    if name.startswith("uu-") and len(name) > 3:
        return [Word(name[3:], name[3:]), *words]
    if name.startswith("g") and name[1:] in _GNU_PREFIXED:
        return [Word(name[1:], name[1:]), *words]
    return None
