"""Runners that, given no command of their own, run a shell reading their standard input.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_hidden` reads a command for the shell's permission rules. ``setarch
x86_64``, ``unshare -r``, ``fakeroot``, ``chroot /``, ``su``, ``runuser USER``, ``sudo -s``,
``script -q /dev/null``, ``nix-shell`` … with no command start a shell (``$SHELL``,
``/bin/sh``), which runs each line its standard input gives (``echo 'rm -rf src' | setarch
x86_64``, ``sudo -s < x.sh``); ``parallel`` without a command runs each line it reads as one
(``parallel < cmds.txt``). Such a runner is judged as ``bash`` fed the same input: its commands
are not read here, so the call asks (:func:`stdin_shell`). A command given (``unshare -r
ls``, ``su -c '…'``, ``nix-shell --run '…'``) is read where runners' commands are. What the
command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_lexer import Word
from goosectx.shell_options import long_option
from goosectx.shell_runner_options import GRAMMARS, Grammar
from goosectx.shell_unwrap import unwrap

_ALL = 1 << 16
"""Every word is a positional: the command comes only after a marker (``nix-shell --run``)."""
_ARCH = Grammar()
_NEEDS = {"sudo": ("-s", "-i", "--shell", "--login"), "doas": ("-s",)}
"""Options without which the runner starts no shell (``sudo -s``, ``sudo -i``, ``doas -s``)."""
_RUNUSER = GRAMMARS["runuser"]._replace(given="c", long_given=("--command",))
_SHAPES: dict[str, Grammar | None] = {
    "setarch": Grammar(positionals=1), "linux32": _ARCH, "linux64": _ARCH, "i386": _ARCH,
    "x86_64": _ARCH,
    "fakechroot": Grammar("ldecb", 0, "", (), ("--lib", "--elfloader", "--config-dir",
                                               "--bindir")),
    "su": Grammar("gGsw", 1, "", (), ("--group", "--supp-group", "--shell",
                                      "--whitelist-environment"),
                  "c", ("--command", "--session-command")),
    "sg": Grammar("", 1, given="c"), "newgrp": Grammar(positionals=1),
    "script": Grammar("EIOBTm", 1, "", (), ("--echo", "--log-in", "--log-out", "--log-io",
                                            "--log-timing", "--logging-format",
                                            "--output-limit"), "c", ("--command",)),
    "nix-shell": Grammar("IA", _ALL, "", (), ("--attr", "--include", "--arg", "--argstr"), "",
                         ("--run", "--command")),
    "nix develop": Grammar("", _ALL, given="c", long_given=("--command",)),
    "nix shell": Grammar("", _ALL, given="c", long_given=("--command",)),
    "machinectl shell": Grammar(positionals=1),
    "toolbox enter": Grammar("c", _ALL, "", (), ("--container",)),
    "sudo": None, "doas": None, "run0": None,  # shell_unwrap's tables (LONG_OPTIONS: sudo's)
    "pkexec": Grammar("", 0, "", (), ("--user",)), "firejail": Grammar(),
    "proot": Grammar("rbmwqkv", 0, "", (), ("--rootfs", "--bind", "--mount", "--cwd", "--qemu",
                                            "--kernel-release", "--verbose")),
    "schroot": Grammar("cud", 0, "", (), ("--chroot", "--user", "--directory")),
    "fakeroot": None, "chroot": None, "unshare": None, "nsenter": None, "parallel": None,
    "runuser": _RUNUSER,
}
"""The runners that start a shell when they are given no command, and how their words read:
``None``, by :func:`goosectx.shell_unwrap.unwrap`'s own table (the wrappers' and
:data:`~goosectx.shell_runner_options.GRAMMARS`); a grammar of their own, read by ``unwrap``
too, past their positionals (``setarch x86_64 -R``) and up to a command line they are given
(``su -c CMD``, ``nix-shell --run CMD``: read elsewhere)."""
_SEPARATORS = frozenset({":::", ":::+", "::::", "::::+"})
_RUNUSER_SU = _RUNUSER._replace(positionals=1)
"""``runuser USER [ARGS]`` (no ``-u``): su's form, USER a positional and ARGS its shell's."""


def stdin_shell(name: str, args: list[str]) -> str | None:
    """Why ``name ARGS``, a runner given no command, runs the commands it reads, or ``None``.

    ``None``: a command is given in every reading of its words (:func:`goosectx.shell_unwrap.
    unwrap`: the first word past its options' values and positionals, or a ``-c``/``--command``
    string), or it is no such runner. ``parallel ::: a b`` runs its inputs (read where its
    commands are); ``parallel :::: FILE`` each line of FILE.
    """
    key = f"{name} {args[0]}" if args and f"{name} {args[0]}" in _SHAPES else name
    if key not in _SHAPES:
        return None
    rest = args[1:] if key != name else args
    if name == "parallel":
        cut = next((i for i, a in enumerate(rest) if a in _SEPARATORS), len(rest))
        if cut < len(rest) and rest[cut] in (":::", ":::+"):
            return None
        rest = rest[:cut]
    needs, grammar = _NEEDS.get(key, ()), _SHAPES[key]
    if key == "runuser" and not any(long_option(a, "--user") if a[:2] == "--" else (
            a[:1] == "-" and "u" in a[1:]) for a in rest):  # runuser bob: a shell, as su bob
        grammar = _RUNUSER_SU
    if all(unwrap(key, [Word(a, a) for a in rest], grammar=grammar)) or needs and not any(
            a in needs or a[:1] == "-" and a[1:2] != "-" and any(
                n[1] in a[1:] for n in needs if n[1:2] != "-") for a in rest):
        return None
    if name == "parallel":
        return ("parallel has no command of its own: it runs each line it reads (its standard "
                "input or a :::: file) as a command the rules cannot read")
    return (f"{key} has no command of its own: it runs a shell, which runs the commands it "
            "reads from its standard input")
