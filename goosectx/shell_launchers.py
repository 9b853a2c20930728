"""Programs that launch a command elsewhere: a job system, an emulator, a terminal window.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Like the
runners of :mod:`goosectx.shell_runners` (``strace``, ``chroot``), each starts a program
named somewhere in its arguments, after options too many to model: MPI and batch launchers
(``mpirun -n 4 CMD``, ``srun CMD``), user-mode emulators (``qemu-x86_64 /bin/rm x``,
``box64``), container and jail tools (``lxc-attach -n c -- CMD``, ``nsjail``, ``jexec``),
task spoolers, ``ctest --test-command CMD`` and terminal emulators (``xterm -e CMD``,
``gnome-terminal -- CMD``; some run a string as a shell line: ``xfce4-terminal -e 'CMD'``).
``ctest -S SCRIPT`` runs a CMake script, whose ``execute_process`` runs any program
(:func:`launcher_scripts`).
What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

TERMINAL_EMULATORS = frozenset({
    "xterm", "uxterm", "x-terminal-emulator", "urxvt", "rxvt", "alacritty", "kitty", "foot",
    "wezterm", "gnome-terminal", "konsole", "xfce4-terminal", "terminator", "tilix",
    "lxterminal", "mate-terminal", "qterminal", "sakura", "terminology", "ghostty"})
"""Terminal emulators: ``-e CMD`` / ``-x CMD`` / ``-- CMD`` (some take a string, run by a shell)."""
LAUNCHERS = TERMINAL_EMULATORS | {
    "mpirun", "mpiexec", "orterun", "srun", "prun", "aprun", "gpg-agent", "jexec",
    "lxc-attach", "lxc-execute", "nsjail", "minijail0", "ts", "ctest", "box64", "box86",
    "FEXLoader", "FEXInterpreter", "qemu-x86_64", "qemu-x86_64-static", "qemu-i386",
    "qemu-i386-static", "qemu-aarch64", "qemu-aarch64-static", "qemu-arm", "qemu-arm-static",
    "qemu-riscv64", "qemu-riscv64-static", "retry"}
"""Programs that start a command named in their arguments (read as runners)."""


def launcher_scripts(name: str, args: list[str]) -> str | None:
    """Why a launcher runs a script file the rules do not read, or ``None``.

    ``ctest -S x.cmake`` (``-SP``, ``-Sx.cmake``, ``--script``, ``--script-new-process``;
    ctest takes no other short option starting with ``S``).
    """
    if name == "ctest" and any(a.startswith("-S") or a.split("=", 1)[0] in (
            "--script", "--script-new-process") for a in args):
        return "ctest -S runs a CMake script, which may run any program"
    return None
