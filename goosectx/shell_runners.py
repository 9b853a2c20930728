"""Programs that run a command given in their arguments, and interpreters' inline code.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A *runner*
starts another program named somewhere in its arguments (``fakeroot rm x``, ``chroot / rm x``,
``strace -o log rm x``, ``docker exec box rm x``); its options are too many and too varied to
model, so every word that could start the command is tried (:func:`runner_starts`): a deny or
ask rule catches the command wherever it starts, an allow rule still reads the command as
written. ``ssh HOST CMD…`` runs ``CMD…`` as a command line of the remote shell
(:func:`remote_line`). An interpreter's inline code (``python3 -c CODE``, ``perl -e CODE``,
``awk 'PROGRAM'``) runs whatever its text says: :func:`inline_code` gives the text, so the
rules can ask about code that names a program they deny or ask about. What the command text
shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

CONTAINERS = frozenset({"docker", "podman", "nerdctl", "kubectl"})
"""Container tools: what their ``exec`` / ``run`` runs may be anything in the container."""
SUBCOMMAND_RUNNERS = {
    "docker": ("exec", "run"), "podman": ("exec", "run"), "nerdctl": ("exec", "run"),
    "kubectl": ("exec", "run", "debug"), "uv": ("run",), "poetry": ("run",), "pipenv": ("run",),
    "pdm": ("run",), "hatch": ("run",), "rye": ("run",), "conda": ("run",), "mamba": ("run",),
    "micromamba": ("run",), "bundle": ("exec",), "direnv": ("exec",), "toolbox": ("run",),
    "distrobox": ("enter",)}
"""Tools whose subcommand runs a command: only after it (``docker rm box`` runs no ``rm``,
``uv run rm x`` does)."""
RUNNERS = frozenset({
    "fakeroot", "fakechroot", "chroot", "unshare", "nsenter", "setpriv", "runuser", "taskset",
    "chrt", "prlimit", "faketime", "strace", "ltrace", "valgrind", "systemd-run", "firejail",
    "bwrap", "proot", "schroot", "catchsegv", "numactl", "cgexec", "sshpass", "sg", "script",
    "pkexec", "gosu", "su-exec", "setuidgid", "chpst", "tini", "dumb-init", "xvfb-run",
    "dbus-run-session", "caffeinate", "entr", "watchexec", "ssh", *SUBCOMMAND_RUNNERS})
"""Programs that run another program given in their arguments."""
SU_LIKE = ("su", "runuser", "sg", "script")
"""Programs whose ``-c STRING`` / ``--command=STRING`` is a command line of its own; their
other words (a user, a group, a log file) are not the command."""
MAX_STARTS = 32
"""Most words of one runner tried as the start of its command; beyond it the command is one
the rules cannot read."""
_SSH_VALUED = "BbcDEeFIiJLlmOoPpQRSWw"
"""ssh's options that take a value (``-p 22``, ``-i key``)."""

_INTERPRETER = re.compile(r"(python|pypy|node|nodejs|bun|perl|ruby|php|lua|luajit|Rscript"
                          r"|osascript|pwsh|powershell)[\d.]*[a-z]?")
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_CODE_FLAGS = {"python": "c", "pypy": "c", "node": "ep", "nodejs": "ep", "bun": "e",
               "perl": "eE", "ruby": "e", "php": "rBRE", "lua": "e", "luajit": "e",
               "Rscript": "e", "osascript": "e", "pwsh": "c", "powershell": "c"}
_LONG_CODE = ("--eval", "--print", "--command", "-Command", "--expression")


def runner_starts(name: str, args: list[str], computed: list[bool]) -> list[int] | None:
    """Where in ``args`` (a runner's arguments) its command may start, or ``None``.

    ``None``: more candidates than :data:`MAX_STARTS`. Each word that is no option (``-x``)
    is a candidate, the first one always, a later one only when bash does not compute it (an
    option's value like ``-v $PWD:/w`` is not read as a program named at run time); a word
    after ``--`` too. A container tool's command follows its ``exec`` / ``run`` subcommand.
    """
    start = 0
    verbs = SUBCOMMAND_RUNNERS.get(name)
    if verbs is not None:
        at = next((i for i, a in enumerate(args) if a in verbs), None)
        if at is None:
            return []
        start = at + 1
    starts: list[int] = []
    for i in range(start, len(args)):
        word = args[i]
        if word == "--" or (word.startswith("-") and word != "-"):
            continue
        if starts and computed[i]:
            continue
        starts.append(i)
        if len(starts) > MAX_STARTS:
            return None
    return starts


def remote_line(args: list[str]) -> str | None:
    """The command line ``ssh [OPTIONS] HOST CMD…`` runs on the remote host, or ``None``."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        i += 2 if word[-1] in _SSH_VALUED and len(word) == 2 else 1
    rest = args[i + 1:]  # after the host
    return " ".join(rest) if rest else None


def inline_code(name: str, args: list[str]) -> str | None:
    """The inline code an interpreter runs (``python3 -c CODE``, ``awk 'PROG' f``), or ``None``.

    Every ``-c`` / ``-e`` … value of an interpreter (``perl -lne CODE``: a cluster ending in
    the letter), joined; an awk program is its first word that is no option, unless ``-f``
    names a file.
    """
    if name in _AWK:
        return _awk_program(args)
    found = _INTERPRETER.fullmatch(name)
    if found is None:
        return None
    letters = _CODE_FLAGS[found[1]]
    codes: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if not word.startswith("-") or word in ("-", "-m"):
            break  # the script (or module) and its arguments
        value: str | None = None
        separate = False  # the value is the next word
        if word.startswith(_LONG_CODE):
            value, separate = (word.partition("=")[2], False) if "=" in word else (
                _at(args, i + 1), True)
        elif not word.startswith("--"):
            cut = next((k for k, c in enumerate(word[1:], 1) if c in letters), None)
            if cut is not None:
                value, separate = word[cut + 1:], not word[cut + 1:]
                value = _at(args, i + 1) if separate else value
        if value is not None:
            codes.append(value)
        i += 2 if separate else 1
    return "\n".join(codes) or None


def _awk_program(args: list[str]) -> str | None:
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-f", "--file") or word.startswith("--file="):
            return None
        if word == "--":
            return _at(args, i + 1)
        if not word.startswith("-") or word == "-":
            return word
        i += 2 if word in ("-F", "-v") else 1
    return None


def _at(args: list[str], i: int) -> str | None:
    return args[i] if i < len(args) else None


def code_names(code: str, programs: set[str]) -> str | None:
    """The first of ``programs`` (rules' program names, globs allowed) ``code`` names as a word."""
    from fnmatch import fnmatchcase  # noqa: PLC0415 - only when there is code to read

    for token in re.findall(r"[\w.+-]+", code):
        for program in programs:
            if program and (token == program or fnmatchcase(token, program)):
                return program
    return None
