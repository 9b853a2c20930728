"""The command a wrapper runs, and the command string of a shell, ``su -c``, ``env -S``, ``eval``.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A well-known
wrapper (``command``, ``env``, ``sudo``, ``nice``, ``timeout 5``, ``xargs``, ``jobs -x`` …)
runs the command after its options (:func:`unwrap`); ``bash -c STRING``, ``su -c STRING``,
``env -S STRING``, ``eval`` and ``trap`` run a command line given as a string
(:func:`inner_line`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_builtins import SHELLS, shell_line
from goosectx.shell_lexer import Word
from goosectx.shell_options import su_line
from goosectx.shell_wrappers import env_split_line

# wrapper → (options that take a value, positional words before the command)
WRAPPERS: dict[str, tuple[str, int]] = {
    "command": ("", 0), "builtin": ("", 0), "exec": ("a", 0), "nohup": ("", 0),
    "env": ("uCSa", 0), "sudo": ("ugpChDrtUTR", 0), "doas": ("uC", 0), "nice": ("n", 0),
    "time": ("fo", 0), "timeout": ("sk", 1), "stdbuf": ("ioe", 0), "ionice": ("cnp", 0),
    "xargs": ("adEILnPs", 0), "watch": ("nd", 0), "chronic": ("", 0), "setsid": ("", 0),
    "unbuffer": ("", 0), "torsocks": ("", 0), "proxychains": ("f", 0), "flock": ("wE", 1),
    "busybox": ("", 0), "toybox": ("", 0), "jobs": ("", 0),
}

def inner_line(name: str, args: list[str]) -> str | None:
    """The command string of ``bash -c STRING``, ``su -c STRING``, ``env -S STRING``, ``eval``."""
    if name == "eval":
        return " ".join(args[1:] if args[:1] == ["--"] else args)  # eval -- CMD
    if name == "trap":
        commands = [a for a in args if not a.startswith("-")]
        return commands[0] if len(commands) > 1 else None
    if name in SHELLS:
        return shell_line(args)
    if name == "env":
        return env_split_line(args)
    return su_line(name, args)  # su -c, su --comm='…' (any prefix getopt takes)


def unwrap(name: str, words: list[Word], start: int = 0,
            budget: list[int] | None = None) -> list[list[Word]]:
    """The command a wrapper runs: its options, values and leading positionals skipped.

    The first reading takes a ``--long`` option without ``=`` as a flag; one more (at most 8)
    for each such option takes the next word as its value (``timeout --signal KILL 5 rm``),
    since which long options take one is not known here (deny and ask rules match them all).
    """
    budget = [8] if budget is None else budget
    with_value, positionals = WRAPPERS[name]
    args = [w.value for w in words]
    i = start
    others: list[list[Word]] = []
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if name == "env" and "=" in word and not word.startswith("-"):
            i += 1  # env NAME=VALUE: any name, a-b=1 too
            continue
        if not word.startswith("-") or word == "-":
            if name == "env" and word == "-":
                i += 1
                continue
            break
        if word.startswith("--"):
            if "=" not in word and i + 1 < len(args) and budget[0] > 0:
                budget[0] -= 1
                others += unwrap(name, words, i + 2, budget)
            i += 1  # --long=value, or a flag
            continue
        if name == "command" and ("v" in word or "V" in word):
            return [[]]  # command -v NAME: prints how NAME would run, runs nothing
        if name == "nice" and word[1:].isdigit():
            i += 1  # nice -10 CMD
            continue
        letter = word[1]
        i += 2 if letter in with_value and len(word) == 2 else 1
    return [words[i + positionals:], *others]
