"""Remote shells: what ``ssh``, ``autossh`` and ``mosh`` run, remote and local.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. ``ssh HOST
CMD…`` runs ``CMD…`` as a command line of the remote shell: a runner's command, which a rule
for ssh does not cover (``shell(ssh*)`` covers ``ssh host`` and ``ssh -N -L …``, not ``ssh
host rm -rf ~``), and which a deny rule on its program denies. ``-o ProxyCommand=…``,
``LocalCommand`` (with ``PermitLocalCommand``) and ``KnownHostsCommand`` run a LOCAL command
line through a shell, read like ``sh -c``'s. ``autossh`` takes ssh's arguments after its own
``-M PORT`` / ``-f``; ``mosh [OPTIONS] HOST [--] CMD…`` runs ``CMD…`` remotely, and its
``--ssh=COMMAND`` / ``--client=PATH`` locally, its ``--server=COMMAND`` remotely. With no
remote command, what ssh/mosh read on a stream the line feeds them runs remotely
(:func:`stdin_commands`). The other remote runners' lines: :func:`other_remote`. What the
command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from goosectx.shell_options import short_value
from goosectx.shell_program import program_argv
from goosectx.shell_transfers import SSH_VALUED, ssh_option_command
from goosectx.shell_words import Word

REMOTE_CLIENTS = frozenset({"ssh", "autossh", "mosh"})
"""Programs that run a command line on another host (:func:`remote_command`)."""


@dataclass(frozen=True, slots=True)
class RemoteCommand:
    """What one ``ssh`` / ``autossh`` / ``mosh`` call runs.

    Attributes:
        local: Command lines it runs here through a shell (``-o ProxyCommand=…``).
        remote: The command line the remote shell runs (its words joined by a space), or
            ``None``: a login shell or a tunnel (``ssh host``, ``ssh -N -L …``).
        at: The index in the arguments of the remote command's first word, or ``None``.
    """

    local: list[str] = field(default_factory=list)
    remote: str | None = None
    at: int | None = None
    server: str | None = None
    """``mosh --server=COMMAND``: a command line the remote host runs to start mosh's server."""


def remote_command(name: str, args: list[str]) -> RemoteCommand:
    """What ``name`` (one of :data:`REMOTE_CLIENTS`) runs given ``args``."""
    if name == "mosh":
        return _mosh(args)
    kept = _autossh_kept(args) if name == "autossh" else list(range(len(args)))
    found = _ssh([args[k] for k in kept])
    return RemoteCommand(found.local, found.remote, None if found.at is None else kept[found.at])


def _autossh_kept(args: list[str]) -> list[int]:
    """The indexes of ``args`` autossh hands to ssh: without its ``-M PORT`` (``-M0``), ``-f``."""
    kept: list[int] = []
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        if args[i].startswith("-M") or args[i] == "-f":
            i += 2 if args[i] == "-M" else 1
            continue
        end = short_value(args, i, SSH_VALUED).next
        kept += range(i, end)
        i = end
    return kept + list(range(i, len(args)))


def _ssh(args: list[str]) -> RemoteCommand:
    """``ssh [OPTIONS] HOST [OPTIONS] [--] CMD…``: OpenSSH reads options after the host too."""
    local: list[str] = []
    i = _options_end(args, 0, local)
    at = _options_end(args, i + 1, local)  # after the host
    if at >= len(args):
        return RemoteCommand(local)
    return RemoteCommand(local, " ".join(args[at:]), at)


def _options_end(args: list[str], i: int, lines: list[str],
                 written: list[str] | None = None) -> int:
    """Where ssh's options starting at ``i`` end (``-vp 22``: the value after a cluster).

    The commands of ``-o`` values go to ``lines``, the files it writes to ``written``
    (:func:`local_writes`).
    """
    while i < len(args):
        word = args[i]
        if word == "--":
            return i + 1
        if not word.startswith("-") or word == "-":
            return i
        short = short_value(args, i, SSH_VALUED)
        if short.letter == "o" and short.value is not None and (
                command := ssh_option_command(short.value)) is not None:
            lines.append(command)
        if written is not None and short.value:
            key, _sep, value = short.value.replace("=", " ", 1).partition(" ")
            written += [short.value] if short.letter in "ES" else value.split() if (
                short.letter == "o" and key.strip().lower() in _WRITTEN_KEYS) else []
        i = short.next
    return i


_MOSH_VALUED = ("--ssh", "--client", "--server", "--predict", "--port", "--family",
                "--bind-server", "--experimental-remote-ip", "-p")
_MOSH_LOCAL = ("--ssh", "--client")


def _mosh(args: list[str]) -> RemoteCommand:
    """``mosh [OPTIONS] [--] HOST [--] CMD…``: ``--ssh=COMMAND`` runs here, ``--server`` there."""
    local: list[str] = []
    server: str | None = None
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        option, equals, value = args[i].partition("=")
        taken = option in _MOSH_VALUED and not equals
        value = args[i + 1] if taken and i + 1 < len(args) else value
        if option in _MOSH_LOCAL and value:  # --client=PATH: a program, not a line
            local.append(value if option == "--ssh" else shlex.quote(value))
        server = value if option == "--server" and value else server
        i += 2 if taken else 1
    i += 1 if args[i:i + 1] == ["--"] else 0
    at = i + 1 + (args[i + 1:i + 2] == ["--"])  # the host, then its optional --
    if at >= len(args):
        return RemoteCommand(local, server=server)
    return RemoteCommand(local, " ".join(args[at:]), at, server)


_NO_SHELL = frozenset({"-N", "-fN", "-Nf", "-G", "-V", "-Q", "-O"})
"""ssh options after which it runs no remote shell (a tunnel, a query, a control command)."""


def stdin_commands(words: list[Word], stream: str = "") -> str | None:
    """Why a command (``words``) fed a stream (a pipe, ``<<``, ``< FILE``) runs what it reads.

    With no remote command ssh (``-T`` or ``-tt`` alike) and mosh hand their standard input to
    the remote login shell, which runs each line: a command line the rules cannot read (a
    here-document's lines are not read as commands: the remote shell's own expansions, its
    dirs and its programs are not known here). Its wrappers looked through (``sudo ssh dev <
    x``). None when ``name`` is no remote client, has a remote command, or runs no shell
    (``ssh -N``). ``stream``: what feeds it, for the reason (``the file x``).
    """
    argv = program_argv([w.value for w in words])
    name, args = argv[0].rsplit("/", 1)[-1] if argv else "", argv[1:]
    if name not in REMOTE_CLIENTS or remote_command(name, args).remote is not None or any(
            a in _NO_SHELL for a in args):
        return None
    return (f"{name} runs the commands it reads from its standard input on the remote host, "
            f"which the rules cannot read{f' ({stream})' if stream else ''}")


def local_count(words: list[str]) -> int:
    """How many of a command's ``words`` (its program first) name things on this host.

    ``ssh -p 2222 dev tail -n 50 /var/log/app.log``: 4 — the remote command's paths are the
    remote host's (its commands are still read for the deny and ask rules); all of them for
    a program that is no remote client.
    """
    name = words[0].rsplit("/", 1)[-1] if words else ""
    if name not in REMOTE_CLIENTS:
        other = other_remote(name, words[1:])
        return len(words) if other is None else other[1] + 1
    at = remote_command(name, words[1:]).at
    return len(words) if at is None else at + 1


def remote_lines(words: list[str]) -> frozenset[str]:
    """The command lines a command (``words``, its program first) runs on another host."""
    name = words[0].rsplit("/", 1)[-1] if words else ""
    if name not in REMOTE_CLIENTS:
        other = other_remote(name, words[1:])
        return frozenset(() if other is None else (other[0],))
    found = remote_command(name, words[1:])
    return frozenset(line for line in (found.remote, found.server) if line is not None)


_WRITTEN_KEYS = frozenset({"userknownhostsfile", "controlpath"})
"""ssh ``-o`` keys naming files it writes (host keys it learns, its control socket)."""


def local_writes(name: str, args: list[str]) -> list[str]:
    """The local files ``ssh`` / ``autossh`` ``ARGS`` write, for the write-target checks.

    ``-E LOG`` (its debug log, appended), ``-S CTLPATH`` (the control socket ``-M`` makes),
    ``-o UserKnownHostsFile=F…`` (the host keys it learns) and ``-o ControlPath=F``; not
    ``-i`` / ``-F`` / ``-o IdentityFile``: files it reads. ``none`` names no file.
    """
    if name not in ("ssh", "autossh"):
        return []
    words = [args[k] for k in _autossh_kept(args)] if name == "autossh" else args
    written: list[str] = []
    i = _options_end(words, 0, [], written)
    _options_end(words, i + 1, [], written)  # OpenSSH reads options after the host too
    return [path for path in written if path and path.lower() != "none"]


_PDSH_VALUED = frozenset("wxgXRltufFBNomMeaA")
_PSSH_VALUED = frozenset("hHlpoetOxXP")


def other_remote(name: str, args: list[str]) -> tuple[str, int] | None:
    """The command line another host runs for ``name ARGS`` and the index of its first word.

    ``gcloud compute ssh VM --command CMD`` (or ``-- CMD…``), ``az ssh vm … -- CMD…``,
    ``ansible HOSTS -a CMD`` (the ``command``/``shell``/``raw`` modules), ``et HOST -c CMD``,
    ``pdsh -w HOSTS CMD…``, ``pssh -h FILE CMD…``, ``rsh HOST CMD…``, ``tsh ssh HOST CMD…``.
    """
    if name == "gcloud" and "ssh" in args and "compute" in args[:args.index("ssh")]:
        return _valued(args, ("--command",)) or _after_dashes(args)
    if name == "az" and args[:2] == ["ssh", "vm"]:
        return _after_dashes(args)
    if name == "ansible":
        module = _valued(args, ("-m", "--module-name"))
        if module is None or module[0].rsplit(".", 1)[-1] in ("command", "shell", "raw"):
            return _valued(args, ("-a", "--args"))
        return None
    if name == "et":
        return _valued(args, ("-c", "--command"))
    if name in ("pdsh", "pssh", "parallel-ssh", "rsh"):
        valued = _PDSH_VALUED if name == "pdsh" else _PSSH_VALUED if name != "rsh" else {"l"}
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "--":
            i += 2 if len(args[i]) == 2 and args[i][1] in valued else 1
        i += (args[i:i + 1] == ["--"]) + (name == "rsh")  # rsh's host
        return (" ".join(args[i:]), i) if i < len(args) else None
    if name == "tsh" and args[:1] == ["ssh"]:
        found = _ssh(args[1:])
        return None if found.remote is None or found.at is None else (found.remote,
                                                                       found.at + 1)
    return None


def _valued(args: list[str], options: tuple[str, ...]) -> tuple[str, int] | None:
    """The value of the last of ``options`` in ``args`` (``-a CMD``, ``--command=CMD``)."""
    found = None
    for k, word in enumerate(args):
        if word in options and k + 1 < len(args):
            found = (args[k + 1], k + 1)
        elif word.startswith("--") and word.partition("=")[0] in options:
            found = (word.partition("=")[2], k)
    return found


def _after_dashes(args: list[str]) -> tuple[str, int] | None:
    """What ssh runs of the words after ``--`` (ssh's own options, then the command)."""
    if "--" not in args:
        return None
    at = args.index("--") + 1
    found = _ssh(["host", *args[at:]])
    return None if found.remote is None or found.at is None else (found.remote,
                                                                   at + found.at - 1)
