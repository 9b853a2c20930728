"""File-transfer clients: the commands scp, sftp, ftp and lftp run, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. ``scp`` and
``sftp`` hand ``-o ProxyCommand=…`` (``LocalCommand``, ``KnownHostsCommand``) to ssh, which
runs it through a shell (:func:`ssh_option_command`), and run the program ``-S PROG`` names
for the connection (:func:`transfer_lines`). Their command languages run local shell
commands (``!cmd``): an sftp batch file (``-b``), ``lftp -c|-e|-f``, and any of them fed
commands on standard input (``echo '!rm f' | sftp -b - host``, ``ftp host <<<…``) make the
command unreadable (:func:`transfer_commands`), as does a configuration file ssh, scp or sftp
is given (``-F FILE``: :func:`config_file`) or a library ssh loads (``-I LIB``,
``-o PKCS11Provider=LIB``). :mod:`goosectx.shell_remote` reads what ``ssh [OPTIONS] HOST
CMD…`` runs, remote and local. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import shlex

from goosectx.shell_options import short_value

_VALUED = {"scp": "cDFiJloPSX", "sftp": "BbcDFiJloPRSs"}
"""scp's and sftp's short options that take a value (``-P 22``, ``-S PROG``, ``-b FILE``)."""
_SSH_COMMANDS = ("proxycommand", "localcommand", "knownhostscommand", "remotecommand")


def ssh_option_command(value: str) -> str | None:
    """The command line an ssh ``-o KEY=VALUE`` (or ``KEY VALUE``) option runs, or ``None``."""
    key, _, command = value.replace("=", " ", 1).partition(" ")
    return command.strip() if key.lower() in _SSH_COMMANDS else None


def _options(name: str, args: list[str]) -> list[tuple[str, str | None]]:
    """Each short option of scp/sftp ``args`` (before ``--``) with its value, as getopt reads."""
    found: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args) and args[i] != "--":
        if not args[i].startswith("-") or args[i] == "-":
            i += 1
            continue
        short = short_value(args, i, _VALUED[name])
        found += [(flag, None) for flag in short.flags]
        found += [(short.letter, short.value)] if short.letter else []
        i = short.next
    return found


def transfer_lines(name: str, args: list[str]) -> list[str]:
    """The command lines scp / sftp run: ``-o ProxyCommand=…``, and ``-S PROG`` (a program)."""
    if name not in _VALUED:
        return []
    lines: list[str] = []
    for letter, value in _options(name, args):
        if letter == "o" and value and (command := ssh_option_command(value)):
            lines.append(command)
        elif letter == "S" and value:
            lines.append(shlex.quote(value))
    return lines


SSH_VALUED = "BbcDEeFIiJLlmOoPpQRSWw"
"""ssh's short options that take a value (``-p 22``, ``-i key``)."""


def _ssh_options(args: list[str]) -> list[tuple[str, str | None]]:
    """The short options of ssh with their values, not in the remote command.

    Before the host and after it: OpenSSH reads options there too.
    """
    found: list[tuple[str, str | None]] = []
    i = 0
    for _ in range(2):
        while i < len(args) and args[i].startswith("-") and args[i] != "-":
            if args[i] == "--":
                return found
            short = short_value(args, i, SSH_VALUED)
            found += [(flag, None) for flag in short.flags]
            found += [(short.letter, short.value)] if short.letter else []
            i = short.next
        i += 1  # the host
    return found


_LIBRARY_KEYS = ("pkcs11provider", "securitykeyprovider", "include")
"""ssh ``-o`` keys naming a library ssh loads, or a configuration file it reads."""


def config_file(name: str, args: list[str]) -> str | None:
    """Why ssh, scp or sftp reads a configuration file or loads a library named on the line.

    ``-F FILE`` may set ``ProxyCommand``, ``LocalCommand`` … (``-F none`` and ``-F /dev/null``
    read none); ssh's ``-I LIB``, ``-o PKCS11Provider=LIB`` and ``-o SecurityKeyProvider=LIB``
    load a shared library, whose code runs in ssh (the value ``none``: no library). ``None``:
    none of them.
    """
    if name in ("ssh", "autossh"):  # autossh -M 0 -F cfg host: ssh's arguments
        options = _ssh_options(args)
    elif name in _VALUED:
        options = _options(name, args)
    else:
        return None
    if any(letter == "F" and value not in ("none", "/dev/null") for letter, value in options):
        return (f"{name} -F reads a configuration file, which may set a command it runs "
                "(ProxyCommand, LocalCommand …)")
    for letter, value in options:
        key, _, loaded = (value or "").replace("=", " ", 1).partition(" ")
        if letter == "I" and name == "ssh" or letter == "o" and key.lower() in _LIBRARY_KEYS and (
                loaded.strip().lower() != "none"):
            return (f"{name} loads a library or reads a file named on the line (-I, "
                    "PKCS11Provider, SecurityKeyProvider), whose code the rules cannot read")
    return None


def transfer_commands(name: str, args: list[str], fed: bool) -> str | None:
    """Why ``name`` runs client commands the rules cannot read (one may be ``!cmd``), or ``None``.

    ftp and lftp (from standard input, or ``lftp -c|-e|-f``); sftp with ``-b FILE``, fed on
    standard input, or given no ``HOST:PATH`` to fetch (it then reads commands from standard
    input, which a redirection may give: ``sftp host < cmds``); ssh, scp and sftp reading a
    configuration file or loading a library named on the line (:func:`config_file`).
    """
    if why := config_file(name, args):
        return why
    if name in ("ftp", "lftp"):
        return None if any(a in ("-v", "--version", "-h", "--help") for a in args[:1]) else (
            f"{name} runs client commands from an option or its standard input, and one may "
            "be !cmd, a local shell command")
    if name != "sftp":
        return None
    options = _options(name, args)
    operands = [a for a in args if not a.startswith("-") and a not in (v for _, v in options)]
    fetches = any(":" in a for a in operands)
    if any(letter == "b" for letter, _ in options) or fed or not fetches:
        return (f"{name} runs client commands from a batch file, an option or its standard "
                "input, and one may be !cmd, a local shell command")
    return None
