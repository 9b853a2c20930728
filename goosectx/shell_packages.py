"""apt's configuration options that run commands, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. apt runs the
shell commands of some configuration keys, and a key may be set on its command line: ``apt-get
-o APT::Update::Pre-Invoke::='rm x' update`` (``DPkg::Post-Invoke``, ``DPkg::Pre-Install-Pkgs``,
``Acquire::http::Proxy-Auto-Detect``, a program under ``Dir::Bin::``, dpkg's ``--pre-invoke``
given in ``DPkg::Options``), or in a configuration file (``-c FILE``, or ``APT_CONFIG=FILE``
in its environment: :func:`apt_config_variable`). Such an option makes the command
unreadable (:func:`apt_options`); everyday ones (``-o Dpkg::Options::=--force-confold``,
``-o Acquire::Retries=3``) do not. dpkg's own ``--pre-invoke=CMD`` is read as a command line
(:data:`goosectx.shell_options.COMMAND_OPTIONS`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.shell_options import long_option, short_value

APT = frozenset({"apt", "apt-get", "apt-cache", "apt-mark", "apt-cdrom", "aptitude"})
"""apt's programs that take ``-o KEY=VALUE`` and ``-c FILE``."""
_RUNS = re.compile(r"invoke|install-pkgs|auto-?detect|command|logger|[$`]", re.IGNORECASE)
"""Text of a key, or of dpkg's options given as its value, that apt or dpkg runs (a shell
command, ``--status-logger=CMD``), and text bash computes."""
_PLACES = re.compile(r"(?:root)?dir(?:::etc(?:::(?:main|parts))?)?|dir::bin(?:::.*)?")
"""Keys naming where apt finds its configuration files or programs (``Dir::Bin::dpkg``,
``Dir::Etc::parts``): not its sources lists (``Dir::Etc::sourcelist``) or caches."""


def _runs(setting: str) -> bool:
    """True when ``-o`` ``setting`` (``KEY=VALUE``) may make apt run a command."""
    key = re.sub(r"^binary::[^:]*::", "", setting.partition("=")[0].lower()).rstrip(":")
    return _RUNS.search(setting) is not None or _PLACES.fullmatch(key) is not None


def apt_options(name: str, args: list[str]) -> str | None:
    """Why apt's options in ``args`` run commands the rules do not read, or ``None``.

    ``-o KEY=VALUE`` / ``-oKEY=VALUE`` / ``--option KEY=VALUE`` (``=`` too) that
    :func:`_runs`; ``-c FILE`` / ``--config-file`` (a file may set any of them). Read anywhere on
    the line, as apt reads options after its command too.
    """
    if name not in APT:
        return None
    i = 0
    while i < len(args):
        word, value, config = args[i], None, False
        if long_option(word, "--option") or long_option(word, "--config-file"):
            config = long_option(word, "--config-file")
            value = word.partition("=")[2] if "=" in word else (
                args[i + 1] if i + 1 < len(args) else "")
            i += 1 if "=" in word else 2
        elif word.startswith("-") and not word.startswith("--"):
            short = short_value(args, i, "ocat")
            config = short.letter == "c"
            value = short.value if short.letter in ("o", "c") else None
            i = short.next
        else:
            i += 1
        if config and value is not None:
            return f"{name} -c reads a configuration file, which may set commands apt runs"
        if value is not None and _runs(value):
            return (f"{name} -o sets a configuration key whose commands apt runs "
                    "(Pre-Invoke, Post-Invoke, Dir::Bin …)")
    return None


def apt_config_variable(word: str) -> str | None:
    """Why a ``NAME=VALUE`` word points apt at a configuration file, or ``None``.

    ``APT_CONFIG=/tmp/apt.conf apt-get update``: apt reads that file as it reads ``-c FILE``,
    and a ``DPkg::Pre-Invoke`` there runs a command (``/dev/null`` or an empty value: none).
    """
    found = re.match(r"APT_CONFIG\+?=(.*)", word, re.DOTALL)
    if found is None or found[1] in ("", "/dev/null"):
        return None
    return "it sets APT_CONFIG, which names a configuration file that may set commands apt runs"
