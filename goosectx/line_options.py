"""Short options whose value is a command line the program runs, in a cluster as getopt reads it.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules (through
:func:`goosectx.shell_runners.option_lines`). ``tar -I 'zstd -19'``, ``rsync -e 'ssh -p 22'``,
``nc -e /bin/rm``, ``xe -s 'CMD'``, ``zip -TT 'CMD'`` run their value with a shell or as a
program. getopt (popt, zip's own parser alike) reads a word of short options as flags up to
the first letter that takes a value, which takes the rest of the word or else the next word:
``rsync -avze 'rm x'``, ``nc -le/bin/rm``, ``ncat -lvc 'rm x'``; tar's first word, without a
dash, is a cluster whose valued letters take the next words in order (``tar xvIf 'rm x' a.tar``).
Long options: :data:`goosectx.shell_options.COMMAND_OPTIONS`. What the command text shows, not
a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from typing import NamedTuple

from goosectx.option_table import TAR_VALUED
from goosectx.shell_options import value_at


class Lines(NamedTuple):
    """One program's short options that run a command line, and its other valued ones."""

    runs: tuple[str, ...]
    """Options (without the dash) whose value is a command line: ``e``, zip's ``TT``."""
    valued: str
    """The program's other short options that take a value: they end a cluster."""
    bare: bool = False
    """The first word, with no dash, is a cluster too (tar's old style)."""


_NC = Lines(("e", "c"), "bgGiImMOopPqsTVwWxX")
"""nc (traditional, OpenBSD) and ncat: ``-e PROG``, ``-c CMD``; their ports, hosts, proxies,
timeouts … take values (``-p 80``, ``-w 3``)."""
LINE_OPTIONS: dict[str, Lines] = {
    "tar": Lines(("I", "F"), TAR_VALUED + "T", bare=True), "rsync": Lines(("e",), "BfTM@"),
    "zip": Lines(("TT",), "bnPZtsO"), "flock": Lines(("c",), "wE"),
    "xe": Lines(("s",), "AfjINL"), **dict.fromkeys(("nc", "ncat", "netcat", "nc.traditional"), _NC),
}
"""Programs whose short options run a command line (``tar -I``/``-F``, ``rsync -e``, ``zip
-TT``, ``flock -c``, ``xe -s``, ``nc -e``/``-c``)."""


def cluster_lines(name: str, args: list[str]) -> list[str]:
    """The command lines ``name``'s short options run (:data:`LINE_OPTIONS`), up to ``--``."""
    spec = LINE_OPTIONS.get(name)
    if spec is None:
        return []
    lines: list[str] = []
    i = 0
    if spec.bare and args and args[0][:1] not in ("-", ""):  # tar xvIf 'rm x' a.tar
        i = 1
        for letter in args[0]:
            if letter in spec.runs and (value := value_at(args, i)):
                lines.append(value)
            i += letter in spec.valued or letter in spec.runs  # the next word is its value
    while i < len(args):
        word = args[i]
        if word == "--":
            break
        i += 1
        if word[:1] != "-" or word[:2] == "--" or word == "-":
            continue
        value, taken = _cluster_value(word, spec, value_at(args, i))
        i += taken
        if value:
            lines.append(value)
    return lines


def _cluster_value(word: str, spec: Lines, after: str | None) -> tuple[str | None, int]:
    """The command line of the cluster ``word`` (``-avze``, ``-le/bin/rm``), or ``None``.

    With how many words after it the cluster's value takes (1: the next word, ``after``).
    """
    for k in range(1, len(word)):
        run = next((option for option in spec.runs if word.startswith(option, k)), None)
        if run is None and word[k] not in spec.valued:
            continue  # a flag
        rest = word[k + len(run or word[k]):]
        value = rest.removeprefix("=") if rest else after
        return (value if run else None), (0 if rest else 1)
    return None, 0
