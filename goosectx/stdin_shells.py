"""Runners that, given no command of their own, run a shell reading their standard input.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_hidden` reads a command for the shell's permission rules. ``setarch
x86_64``, ``unshare -r``, ``fakeroot``, ``chroot /``, ``su``, ``sudo -s``, ``script -q
/dev/null``, ``nix-shell`` … with no command start a shell (``$SHELL``, ``/bin/sh``), which runs
each line its standard input gives (``echo 'rm -rf src' | setarch x86_64``, ``sudo -s <
x.sh``); ``parallel`` without a command runs each line it reads as one (``parallel <
cmds.txt``). Such a runner is judged as ``bash`` fed the same input: its commands are not read
here, so the call asks (:func:`stdin_shell`). A command given (``unshare -r ls``, ``su -c
'…'``, ``nix-shell --run '…'``) is read where runners' commands are. What the command text
shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from typing import NamedTuple

from goosectx.shell_runner_options import GRAMMARS
from goosectx.shell_unwrap import LONG_OPTIONS, WRAPPERS


class Shape(NamedTuple):
    """How a runner's words read: options with a value, words before the command, markers."""

    valued: str = ""  # short options that take a value (the rest of the word, or the next)
    positionals: int = 0  # words before the command (setarch's ARCH, su's USER, chroot's dir)
    long_valued: tuple[str, ...] = ()  # long options that take the next word
    given: str = ""  # short options whose value is the command (su -c CMD): read elsewhere
    long_given: tuple[str, ...] = ()  # long ones (nix-shell --run CMD)
    needs: tuple[str, ...] = ()  # options without which it starts no shell (sudo -s, -i)


_ALL = 1 << 16
"""Every word is a positional: the command comes only after a marker (``nix-shell --run``)."""
_ARCH = Shape()
_SHAPES: dict[str, Shape] = {
    "setarch": Shape(positionals=1), "linux32": _ARCH, "linux64": _ARCH, "i386": _ARCH,
    "x86_64": _ARCH,
    "fakechroot": Shape("ldecb", 0, ("--lib", "--elfloader", "--config-dir", "--bindir")),
    "su": Shape("gGsw", 1, ("--group", "--supp-group", "--shell", "--whitelist-environment"),
                "c", ("--command", "--session-command")),
    "sg": Shape("", 1, (), "c"), "newgrp": Shape(positionals=1),
    "script": Shape("EIOBTm", 1, ("--echo", "--log-in", "--log-out", "--log-io",
                                  "--log-timing", "--logging-format", "--output-limit"),
                    "c", ("--command",)),
    "nix-shell": Shape("IA", _ALL, ("--attr", "--include", "--arg", "--argstr"), "",
                       ("--run", "--command")),
    "nix develop": Shape("", _ALL, (), "c", ("--command",)),
    "nix shell": Shape("", _ALL, (), "c", ("--command",)),
    "machinectl shell": Shape("", 1), "toolbox enter": Shape("c", _ALL, ("--container",)),
    "sudo": Shape(WRAPPERS["sudo"][0], long_valued=LONG_OPTIONS["sudo"][1],
                  needs=("-s", "-i", "--shell", "--login")),
    "doas": Shape(WRAPPERS["doas"][0], needs=("-s",)), "run0": Shape(WRAPPERS["run0"][0]),
    "pkexec": Shape("", 0, ("--user",)), "firejail": Shape(),
    "proot": Shape("rbmwqkv", 0, ("--rootfs", "--bind", "--mount", "--cwd", "--qemu",
                                  "--kernel-release", "--verbose")),
    "schroot": Shape("cud", 0, ("--chroot", "--user", "--directory")),
    **{name: Shape(g.valued, g.positionals, g.long_valued, "c" if name == "runuser" else "",
                   ("--command",) if name == "runuser" else ())
       for name in ("fakeroot", "chroot", "unshare", "nsenter", "runuser", "parallel")
       if (g := GRAMMARS[name])},
}
"""The runners that start a shell when they are given no command, and how their words read."""
_SEPARATORS = frozenset({":::", ":::+", "::::", "::::+"})


def stdin_shell(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS``, a runner given no command, runs the commands it reads, or ``None``.

    ``None``: a command is given (the first word past its options' values and positionals, or
    a ``-c``/``--command`` string), or it is no such runner. ``parallel ::: a b`` runs its
    inputs (read where its commands are); ``parallel :::: FILE`` each line of FILE.
    """
    key = f"{name} {args[0]}" if args and f"{name} {args[0]}" in _SHAPES else name
    shape = _SHAPES.get(key)
    if shape is None:
        return None
    rest = args[1:] if key != name else args
    if name == "parallel":
        cut = next((i for i, a in enumerate(rest) if a in _SEPARATORS), len(rest))
        if cut < len(rest) and rest[cut] in (":::", ":::+"):
            return None
        rest = rest[:cut]
    operands = _operands(rest, shape)
    if operands is None or len(operands) > shape.positionals or shape.needs and not any(
            a in shape.needs or a[:1] == "-" and a[1:2] != "-" and any(
                n[1] in a[1:] for n in shape.needs if n[1:2] != "-") for a in rest):
        return None
    if name == "parallel":
        return ("parallel has no command of its own: it runs each line it reads (its standard "
                "input or a :::: file) as a command the rules cannot read")
    return (f"{key} has no command of its own: it runs a shell, which runs the commands it "
            "reads from its standard input")


def _operands(args: list[str], shape: Shape) -> list[str] | None:
    """The words of ``args`` that are no option nor an option's value (after ``--``: all).

    ``None``: a command string is given (``su -c CMD``, ``nix-shell --run CMD``).
    """
    found: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            return found + args[i:]
        if word.startswith("--"):
            option = word.partition("=")[0]
            if option in shape.long_given:
                return None
            i += option in shape.long_valued and "=" not in word
        elif word.startswith("-") and word != "-":
            for k, letter in enumerate(word[1:], 2):
                if letter in shape.given:
                    return None
                if letter in shape.valued:
                    i += k == len(word)  # -u root: the next word; -uroot: its own rest
                    break
        elif word != "-":  # su - root: a login shell, no operand
            found.append(word)
    return found
