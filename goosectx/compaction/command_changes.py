"""Which files one command changes, read from its words as its program reads them.

Part of the compaction's facts scan (docs/architecture.md §5), for
:mod:`goosectx.compaction.shell_files`, which finds the commands of a shell line (loops, ``cd``,
redirections) and gives each one's words here. ``--`` ends the options, an option that takes
a value takes it glued (``-S.bak``, ``--suffix=.bak``) or as the next word (``-S .bak``),
``-t DIR`` / ``--target-directory`` names the directory the operands go into, as does the
last of several operands or one ending in ``/`` (or ``.``, ``..``); there the new path is the
directory joined with the source's last component (``mv a/x.py lib/`` makes ``lib/x.py``). A
single destination that names an existing directory without a trailing slash (``mv x.py
lib``) cannot be told from a new file's name: it is read as one. ``git -C DIR`` puts ``DIR/``
before the paths; ``git rm --cached`` (the file stays) and a dry run (``-n``) change no file.

All functions are pure.
"""

from __future__ import annotations

Change = tuple[str, str]
"""A file a command changes and how: ``(path, verb)``, the verb as in
:class:`~goosectx.compaction.actions.FileAction`."""


def command_changes(argv: list[str]) -> list[Change]:
    """What the command ``argv`` (its program first) changes.

    ``rm``, ``touch``, ``tee``, ``sed -i``, ``unlink``, the movers (``mv``, ``cp``,
    ``install``, ``ln``) and ``git mv|rm``; other programs change nothing read here.
    """
    if not argv:
        return []
    prog, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    if prog in _MOVERS:
        return _moved(prog, args)
    if prog == "git":
        return _git(args)
    operands = [a for a in args if not a.startswith("-")]
    if prog == "rm":
        return [(a, "deleted") for a in operands]
    if prog == "touch":
        return [(a, "created") for a in operands]
    if prog == "tee":
        return [(a, "written") for a in operands]
    if prog == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args):
        has_script_flag = any(a in ("-e", "--expression") for a in args)
        files = operands if has_script_flag else operands[1:]
        return [(a, "edited") for a in files]
    if prog == "unlink":
        return [(a, "deleted") for a in _options(args, "", ())[0][:1]]
    return []


_MOVERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mv": ("tS", ("target-directory", "suffix")),
    "cp": ("tS", ("target-directory", "suffix", "no-preserve", "sparse")),
    "install": ("tSmog", ("target-directory", "suffix", "mode", "owner", "group",
                          "strip-program")),
    "ln": ("tS", ("target-directory", "suffix")),
}
"""The programs that put files at new paths, each with its options that take a value: the
short ones (letters) and the long ones (GNU coreutils; BSD's take none; an optional value,
``--backup[=CONTROL]``, is only ever glued)."""


def _options(args: list[str], valued: str, long_valued: tuple[str, ...]
             ) -> tuple[list[str], dict[str, str]]:
    """The operands of ``args`` and the options given, as getopt reads them.

    Args:
        args: The words after the program's name.
        valued: The short options that take a value (``"tS"``).
        long_valued: The long options that take a value (without ``--``).

    Returns:
        The operands in order, and each option seen by name (a letter, or a long name
        without ``--``) with its value (``""`` for a flag).
    """
    operands: list[str] = []
    seen: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands += args[i:]
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            if not eq and name in long_valued and i < len(args):
                value, i = args[i], i + 1
            seen[name] = value
        elif arg.startswith("-") and arg != "-":
            for j, letter in enumerate(arg[1:], 2):
                if letter in valued:
                    value = arg[j:]
                    if not value and i < len(args):
                        value, i = args[i], i + 1
                    seen[letter] = value
                    break
                seen[letter] = ""
        else:
            operands.append(arg)
    return operands, seen


def _moved(prog: str, args: list[str]) -> list[Change]:
    """What ``mv``, ``cp``, ``install`` or ``ln`` (``prog``) with ``args`` changes."""
    valued, long_valued = _MOVERS[prog]
    operands, seen = _options(args, valued, long_valued)
    if prog == "install" and ("d" in seen or "directory" in seen):
        return []  # install -d makes directories
    if prog == "ln" and len(operands) == 1 and not _target_dir(seen):
        operands.append(".")  # ln TARGET: a link named like it, here
    pairs = _sources_and_destinations(operands, seen, parents=prog == "cp" and "parents" in seen)
    pairs = [(source, dest) for source, dest in pairs if not dest.startswith("/dev/")]
    if prog == "mv":
        return [change for source, dest in pairs
                for change in ((source, "deleted"), (dest, "created"))]
    verb = "created" if prog == "ln" else "written"
    return [(dest, verb) for _, dest in pairs]


def _target_dir(seen: dict[str, str]) -> str | None:
    return seen.get("t", seen.get("target-directory"))


def _sources_and_destinations(operands: list[str], seen: dict[str, str], *,
                              parents: bool = False) -> list[tuple[str, str]]:
    """Each source operand with the path it is put at (see the module docstring)."""
    directory = _target_dir(seen)
    if directory is not None:
        if not directory:
            return []  # -t at the end, with no directory
        sources = operands
    elif len(operands) < 2:
        return []
    else:
        *sources, dest = operands
        if "T" in seen or "no-target-directory" in seen:
            return [(sources[0], dest)] if len(sources) == 1 else []
        if len(sources) == 1 and not _names_a_directory(dest):
            return [(sources[0], dest)]
        directory = dest
    return [(source, joined(directory, source.lstrip("/") if parents else _last(source)))
            for source in sources]


def _names_a_directory(path: str) -> bool:
    return path.endswith("/") or path.rsplit("/", 1)[-1] in (".", "..", "~")


def _last(path: str) -> str:
    """The last component of ``path`` (``a/b/`` → ``b``)."""
    return path.rstrip("/").rsplit("/", 1)[-1] or path


def joined(directory: str, name: str) -> str:
    """``name`` inside ``directory`` (``.`` and ``./`` add nothing; ``/`` keeps its slash)."""
    if directory in (".", "./"):
        return name
    return directory.rstrip("/") + "/" + name if directory.strip("/") else "/" + name


_GIT_LONG_VALUED = ("git-dir", "work-tree", "namespace", "super-prefix", "config-env",
                    "attr-source")
"""git's own long options before its command that may take the next word (``--git-dir
DIR``); ``-C DIR`` and ``-c NAME=VALUE`` do too."""


def _git(args: list[str]) -> list[Change]:
    """What ``git mv`` and ``git rm`` change (other git commands are not read)."""
    where = ""  # the directory git -C runs in, relative to here ("" = here)
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git's own options
        arg = args[i]
        i += 1
        if arg in ("-C", "-c") and i < len(args):
            if arg == "-C":  # a relative -C is relative to the one before
                given = args[i]
                where = given if not where or given.startswith("/") else joined(where, given)
            i += 1
        elif arg.removeprefix("--") in _GIT_LONG_VALUED and i < len(args):
            i += 1  # --git-dir DIR (the glued --git-dir=DIR is one word)
    if i >= len(args) or args[i] not in ("mv", "rm"):
        return []
    command = args[i]
    operands, seen = _options(args[i + 1:], "", ("pathspec-from-file",))
    if "n" in seen or "dry-run" in seen or command == "rm" and "cached" in seen:
        return []  # nothing is changed, or the file is only untracked

    def there(path: str) -> str:
        return path if not where or path.startswith("/") else joined(where, path)

    if command == "rm":
        return [(there(path), "deleted") for path in operands]
    return [change for source, dest in _sources_and_destinations(operands, seen)
            for change in ((there(source), "deleted"), (there(dest), "created"))]
