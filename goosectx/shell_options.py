"""Long options as GNU getopt reads them: any unambiguous prefix names the option.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules.
``getopt_long`` (and argp) take a prefix of a long option for the option itself: ``env
--split='rm x'`` and ``env --s='rm x'`` are ``env --split-string='rm x'``, ``flock --comm``
is ``flock --command``. A prefix that fits several options makes the program fail, so
reading it as the option that runs a command only ever asks more. :func:`long_option`
tells one word; :data:`COMMAND_OPTIONS` lists the long options whose value is a command line
the program runs (``su --command``, ``split --filter``: run by the shell), and
:data:`PROGRAM_OPTIONS` those whose value is a program it starts (``sort
--compress-program=gzip``). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import shlex
from typing import NamedTuple

COMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    "su": ("--command", "--session-command"), "runuser": ("--command", "--session-command"),
    "script": ("--command",), "npx": ("--call",), "flock": ("--command",),
    "tar": ("--to-command", "--use-compress-program", "--info-script", "--new-volume-script",
            "--rsh-command", "--rmt-command"),
    "rsync": ("--rsh", "--rsync-path"), "zip": ("--unzip-command",), "split": ("--filter",),
    "man": ("--pager", "--html"), "wget": ("--use-askpass",),
    "dpkg": ("--pre-invoke", "--post-invoke", "--status-logger"),
    "ncat": ("--sh-exec", "--exec"), "gpg": ("--photo-viewer",), "gpg2": ("--photo-viewer",),
}
"""Programs' long options whose value is a command line they run (``sh -c`` reads it)."""
ENV_VALUED = ("--unset", "--chdir", "--argv0")
"""env's long options that take the next word as their value."""
PROGRAM_OPTIONS: dict[str, tuple[str, ...]] = {
    "sort": ("--compress-program",), "install": ("--strip-program",),
    "sdiff": ("--diff-program",), "diff3": ("--diff-program",)}
"""Programs' long options whose value is the name of a program they run (no shell)."""


def long_option(word: str, option: str) -> bool:
    """True when ``word`` is ``option`` or a prefix of it (``--s=x``, ``--split-string``).

    ``option`` is written with its ``--``; ``word`` may carry ``=VALUE``. A prefix needs one
    letter after the ``--``.
    """
    name = word.partition("=")[0]
    return len(name) > 2 and name.startswith("--") and option.startswith(name)


def option_value(args: list[str], i: int, options: tuple[str, ...]) -> str | None:
    """The value ``args[i]`` gives one of ``options`` (``--opt=V`` or ``--opt V``), or ``None``."""
    word = args[i]
    if not any(long_option(word, option) for option in options):
        return None
    if "=" in word:
        return word.partition("=")[2]
    return args[i + 1] if i + 1 < len(args) else None


def option_commands(name: str, args: list[str]) -> list[str]:
    """The command lines ``name``'s long options run (:data:`COMMAND_OPTIONS`, a program quoted).

    Options are read up to ``--`` (``split --filter`` and ``sort`` take them after operands).
    """
    lines: list[str] = []
    for i, word in enumerate(args):
        if word == "--":
            break
        if (line := option_value(args, i, COMMAND_OPTIONS.get(name, ()))) is not None:
            lines.append(line)
        elif (program := option_value(args, i, PROGRAM_OPTIONS.get(name, ()))) is not None:
            lines.append(shlex.quote(program))
        elif name == "tar" and (action := option_value(args, i, ("--checkpoint-action",))):
            lines += [action.partition("=")[2]] if action.startswith("exec=") else []
        elif name == "wget" and (setting := wget_setting(args, i)) is not None:
            key, _, program = setting.partition("=")  # wget -e use_askpass=P runs P
            lines += [shlex.quote(program.strip())] if _wgetrc_name(key) == "useaskpass" else []
    return [line for line in lines if line]


WGET_VALUED = "eoaOiBtTwPlARDIXQUn"
"""wget's short options that take a value (``-e CMD``, ``-O FILE``, ``-nv``'s ``-n``)."""


def wget_setting(args: list[str], i: int) -> str | None:
    """The wgetrc command ``args[i]`` gives wget (``-e use_askpass=P``, ``--execute=…``)."""
    word = args[i]
    if word.startswith("--"):
        return option_value(args, i, ("--execute",))
    if word[:1] == "-" and len(word) > 1:
        short = short_value(args, i, WGET_VALUED)
        return short.value if short.letter == "e" else None
    return None


def _wgetrc_name(key: str) -> str:
    """A wgetrc command's name as wget matches it: case, ``_`` and ``-`` ignored."""
    return key.strip().lower().replace("_", "").replace("-", "")


WGETRC_WRITES = frozenset({"outputdocument", "logfile", "savecookies", "hstsfile", "warcfile",
                           "dirprefix", "directoryprefix", "useaskpass"})
"""wgetrc commands (``-e CMD``) that name a file wget writes, or a program it runs."""


def wget_writes(args: list[str]) -> str | None:
    """The first ``-e CMD`` of ``wget ARGS`` that writes a file or runs a program, or ``None``."""
    for i, word in enumerate(args):
        if word == "--":
            return None
        setting = wget_setting(args, i)
        if setting is not None and _wgetrc_name(setting.partition("=")[0]) in WGETRC_WRITES:
            return setting
    return None


def su_line(name: str, args: list[str]) -> str | None:
    """The command line of ``su -c STRING`` / ``--command=STRING``, or ``None``.

    For :data:`goosectx.shell_runners.SU_LIKE` (``runuser``, ``script``, ``npx``, ``nix-shell
    --run`` …). A ``--long`` option of :data:`COMMAND_OPTIONS` under any prefix; a ``-c`` in a
    cluster of short options takes the next word.
    """
    for i, word in enumerate(args):
        if line := option_value(args, i, COMMAND_OPTIONS.get(name, ())):
            return line
        if word == "--command" or (name, word) == ("nix-shell", "--run") or (
                word.startswith("-") and not word.startswith("--") and "c" in word[1:]):
            return args[i + 1] if i + 1 < len(args) else None
    return None


def package_lines(name: str, args: list[str]) -> list[str]:
    """The shell command lines a package manager's ``exec`` runs (``npm exec -c 'CMD'``).

    ``npm exec|x -c CMD`` / ``--call=CMD``; ``pnpm exec|dlx -c`` / ``--shell-mode`` (its words
    joined); ``yarn exec`` with a word holding a blank (its words joined, run by a shell).
    """
    verbs = {"npm": ("exec", "x"), "pnpm": ("exec", "dlx"), "yarn": ("exec",)}.get(name, ())
    at = next((i for i, a in enumerate(args) if a in verbs), None)
    if at is None:
        return []
    rest = args[at + 1:]
    if name == "npm":
        calls = [args[i + 1] if a == "-c" and i + 1 < len(args) else option_value(
            args, i, ("--call",)) for i, a in enumerate(args)]
        return [line for line in calls if line]
    shell = [a for a in args if a == "-c" or long_option(a, "--shell-mode")]
    if name == "pnpm" and shell or name == "yarn" and any(" " in a or "\t" in a for a in rest):
        return [" ".join(a for a in rest if a not in shell and a != "--")]
    return []


def value_at(args: list[str], i: int) -> str | None:
    """``args[i]``, or ``None`` past the end (an option's value that is not there)."""
    return args[i] if i < len(args) else None


class Short(NamedTuple):
    """One cluster of short options as getopt reads it (:func:`short_value`)."""

    flags: str
    """The letters read as flags before the one that takes a value (all, when none does)."""
    letter: str
    """The first letter that takes a value, or ``""``."""
    value: str | None
    """Its value: the rest of the word, else the next word (``None`` past the end or for an
    optional value not attached)."""
    next: int
    """Where the next option is: after the cluster, and after its value when that is the next
    word."""


def short_value(args: list[str], i: int, valued: str, optional: str = "") -> Short:
    """Read the cluster of short options ``args[i]`` (``-Eu root``, ``-vp22``, ``+o x``).

    Its letters are flags up to the first of ``valued`` (options that take a value), which takes
    the rest of the word or, when nothing follows it, the next word: ``sudo -Eu root`` is
    ``-E -u root``. A letter of ``optional`` takes only the rest of the word (``xargs -iX``,
    ``-i``: no value).
    """
    word = args[i]
    for k in range(1, len(word)):
        letter, rest = word[k], word[k + 1:]
        if letter in optional:
            return Short(word[1:k], letter, rest or None, i + 1)
        if letter in valued:
            return (Short(word[1:k], letter, rest, i + 1) if rest else
                    Short(word[1:k], letter, value_at(args, i + 1), i + 2))
    return Short(word[1:], "", None, i + 1)
