"""Runners' options, for the command an allow rule must cover: ``uv run rm x`` runs ``rm``.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A runner
(:data:`goosectx.shell_runners.RUNNERS`) starts the program named after its options; for the
runners listed here the options are read as :func:`goosectx.shell_unwrap.unwrap` reads a
wrapper's (``strace -o log pytest``: ``-o`` takes ``log``), so ``shell(uv run*)`` covers
``uv`` and ``shell(pytest*)`` must cover the ``pytest`` of ``uv run pytest``. A runner not
listed here has every word where its command may start read as one
(:func:`goosectx.shell_runners.runner_starts`): each must be covered. ``cargo watch -s CMD``
runs a shell line (:func:`watch_lines`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import shlex
from itertools import takewhile
from typing import NamedTuple

from goosectx.shell_options import long_option, short_value, value_at


class Grammar(NamedTuple):
    """A runner's options as getopt reads them (the fields of a wrapper's in shell_unwrap)."""

    valued: str = ""  # short options that take a value (the rest of the word, or the next)
    positionals: int = 0  # words before the command (chroot's NEWROOT, docker exec's box)
    optional: str = ""  # short options whose value is the rest of their word only
    flags: tuple[str, ...] = ()  # long options that take no next word (or only `=VALUE`)
    long_valued: tuple[str, ...] = ()  # long options that take the next word
    given: str = ""  # short options whose value is the command line it runs (su -c CMD)
    long_given: tuple[str, ...] = ()  # long ones (su --command CMD, nix-shell --run CMD)


_NAMESPACES = ("--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time")
_CONTAINER_EXEC = Grammar("euw", 1, "", (
    "--detach", "--interactive", "--tty", "--privileged", "--no-TTY", "--help"), (
    "--env", "--env-file", "--user", "--workdir", "--detach-keys", "--index"))
_CONTAINER_RUN = Grammar("acehlmpuvw", 1, "", (
    "--rm", "--detach", "--interactive", "--tty", "--privileged", "--init", "--read-only",
    "--publish-all", "--quiet", "--oom-kill-disable", "--no-healthcheck", "--help"), (
    "--add-host", "--annotation", "--attach", "--cap-add", "--cap-drop", "--cgroup-parent",
    "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota", "--cpu-shares", "--cpus",
    "--cpuset-cpus", "--device", "--dns", "--entrypoint", "--env", "--env-file", "--expose",
    "--gpus", "--group-add", "--health-cmd", "--hostname", "--ip", "--ipc", "--label",
    "--label-file", "--link", "--log-driver", "--log-opt", "--mac-address", "--memory",
    "--mount", "--name", "--network", "--net", "--pid", "--platform", "--publish", "--pull",
    "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout",
    "--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "--user", "--userns", "--uts",
    "--volume", "--volumes-from", "--workdir"))
"""``docker run [OPTIONS] IMAGE CMD``: the image is a positional, CMD the program it starts."""
_NPX = Grammar("pw", 0, "", ("--yes", "--no", "--quiet", "--ignore-existing", "--no-install"),
               ("--package", "--workspace"))
_CONDA = Grammar("np", 0, "", ("--no-capture-output", "--live-stream", "--verbose",
                               "--debug-wrapper-scripts"), ("--name", "--prefix", "--cwd"))

GRAMMARS: dict[str, Grammar] = {
    "uv run": Grammar("pCfPiwcb", 0, "", (
        "--frozen", "--locked", "--no-sync", "--isolated", "--all-extras", "--no-dev", "--dev",
        "--all-packages", "--no-project", "--script", "--module", "--active", "--no-active",
        "--exact", "--offline", "--no-cache", "--native-tls", "--quiet", "--verbose",
        "--no-editable", "--all-groups", "--no-default-groups", "--only-dev", "--refresh",
        "--upgrade", "--reinstall", "--no-build", "--no-binary", "--compile-bytecode",
        "--no-config", "--no-progress", "--gui-script", "--no-env-file", "--help"), (
        "--with", "--with-editable", "--with-requirements", "--python", "--package",
        "--env-file", "--directory", "--project", "--index", "--default-index", "--index-url",
        "--extra-index-url", "--find-links", "--extra", "--group", "--only-group", "--no-group",
        "--config-file", "--cache-dir", "--color", "--refresh-package", "--reinstall-package",
        "--upgrade-package", "--resolution", "--prerelease", "--exclude-newer", "--link-mode",
        "--config-setting", "--no-build-package", "--no-binary-package", "--keyring-provider",
        "--index-strategy", "--allow-insecure-host", "--python-platform")),
    "poetry run": Grammar("PC", 0, "", (
        "--quiet", "--verbose", "--no-interaction", "--no-ansi", "--ansi", "--no-plugins",
        "--no-cache", "--help"), ("--project", "--directory")),
    "pipenv run": Grammar(),
    "bundle exec": Grammar("", 0, "", ("--keep-file-descriptors",
                                       "--no-keep-file-descriptors"), ("--gemfile",)),
    "direnv exec": Grammar("", 1),
    "npx": _NPX, "npm exec": _NPX, "npm x": _NPX,
    "pnpm exec": Grammar("CF", 0, "", (
        "--recursive", "--parallel", "--shell-mode", "--report-summary", "--workspace-root",
        "--silent"), ("--resume-from", "--filter", "--filter-prod", "--dir")),
    "yarn exec": Grammar(),
    "conda run": _CONDA, "mamba run": _CONDA, "micromamba run": _CONDA,
    "docker exec": _CONTAINER_EXEC, "podman exec": _CONTAINER_EXEC,
    "nerdctl exec": _CONTAINER_EXEC, "docker-compose exec": _CONTAINER_EXEC,
    "podman-compose exec": _CONTAINER_EXEC,
    "docker run": _CONTAINER_RUN, "podman run": _CONTAINER_RUN, "nerdctl run": _CONTAINER_RUN,
    "fakeroot": Grammar("lsibf", 0, "", ("--unknown-is-real", "--help", "--version"),
                        ("--lib", "--faked")),
    "chroot": Grammar("", 1, "", ("--skip-chdir", "--help", "--version"),
                      ("--userspec", "--groups")),
    "strace": Grammar("abeEIoOpPsSuUX", 0, "", (
        "--follow-forks", "--output-separately", "--summary-only", "--summary",
        "--summary-wall-clock", "--seccomp-bpf", "--kill-on-exit", "--instruction-pointer",
        "--syscall-number", "--stack-traces", "--absolute-timestamps", "--relative-timestamps",
        "--syscall-times", "--decode-fds", "--quiet", "--timestamps", "--help", "--version"), (
        "--output", "--attach", "--trace-path", "--string-limit", "--summary-sort-by", "--user",
        "--env", "--trace", "--signal", "--status", "--columns", "--detach-on",
        "--interruptible")),
    "ltrace": Grammar("aADeFlnopsuwx", 0, "", ("--demangle", "--help", "--version"), (
        "--align", "--debug", "--config", "--library", "--indent", "--output", "--where")),
    "valgrind": Grammar("", 0, "", ("--help", "--version", "--quiet", "--verbose")),
    "taskset": Grammar("", 1, "", ("--all-tasks", "--cpu-list", "--help", "--version")),
    "unshare": Grammar("SGRwl", 0, "muinpUCT", (
        *_NAMESPACES, "--fork", "--map-root-user", "--map-current-user", "--map-auto",
        "--keep-caps", "--mount-proc", "--kill-child", "--mount-binfmt", "--help", "--version"), (
        "--setuid", "--setgid", "--root", "--wd", "--map-user", "--map-group", "--map-users",
        "--map-groups", "--propagation", "--setgroups", "--monotonic", "--boottime",
        "--load-interp")),
    "nsenter": Grammar("tSG", 0, "muinpUCTrwW", (
        *_NAMESPACES, "--all", "--no-fork", "--preserve-credentials", "--follow-context",
        "--root", "--wd", "--help", "--version"), ("--target", "--setuid", "--setgid")),
    "runuser": Grammar("ugGsw", 0, "", (
        "--login", "--preserve-environment", "--fast", "--pty", "--help", "--version"), (
        "--user", "--group", "--supp-group", "--shell", "--whitelist-environment")),
    "chrt": Grammar("TPD", 1, "", (
        "--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--other", "--rr",
        "--reset-on-fork", "--max", "--verbose", "--help", "--version"), (
        "--sched-runtime", "--sched-period", "--sched-deadline")),
    "numactl": Grammar("ipCNmwP", 0, "", (
        "--all", "--localalloc", "--balancing", "--show", "--hardware", "--help"), (
        "--interleave", "--preferred", "--physcpubind", "--cpunodebind", "--membind",
        "--weighted-interleave", "--preferred-many")),
    "prlimit": Grammar("po", 0, "cdefilmnqrstuvxy", (
        "--noheadings", "--raw", "--verbose", "--help", "--version", "--core", "--data",
        "--nice", "--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue",
        "--rtprio", "--stack", "--cpu", "--nproc", "--as", "--locks", "--rttime"), (
        "--pid", "--output")),  # prlimit --nofile=1024 CMD: a limit's value only with `=`
    "cpulimit": Grammar("lpePcs", 0, "", (
        "--lazy", "--include-children", "--verbose", "--kill", "--restore", "--background",
        "--quiet", "--monitor-forks", "--help"), (
        "--limit", "--pid", "--exe", "--path", "--cpu", "--signal")),
    "sops exec-env": Grammar("", 1, "", ("--background", "--no-fifo", "--pristine",
                                         "--same-process"), ("--user",)),
}
"""Runners (``NAME`` or ``NAME VERB`` after its running subcommand) whose options are read."""
GRAMMARS["sops exec-file"] = GRAMMARS["sops exec-env"]
GRAMMARS["uvx"] = GRAMMARS["uv run"]._replace(  # uv tool run: uvx -p 3.12 --from x ruff
    long_valued=(*GRAMMARS["uv run"].long_valued, "--from"))
GRAMMARS["parallel"] = GRAMMARS["sem"] = Grammar("aCdEIjLNnPSs", 0, "il", (
    "--keep-order", "--group", "--ungroup", "--line-buffer", "--tag", "--eta", "--bar",
    "--progress", "--pipe", "--pipepart", "--dry-run", "--verbose", "--quote", "--null",
    "--no-run-if-empty", "--xargs", "--will-cite", "--semaphore", "--fg", "--bg", "--files",
    "--halt-on-error", "--linebuffer", "--plus", "--help", "--version"), (
    "--jobs", "--arg-file", "--colsep", "--delimiter", "--joblog", "--results", "--res",
    "--halt", "--delay", "--timeout", "--retries", "--tmpdir", "--workdir", "--wd",
    "--sshlogin", "--sshloginfile", "--slf", "--env", "--basefile", "--bf", "--return",
    "--transferfile", "--tf", "--max-args", "--max-lines", "--max-replace-args", "--max-chars",
    "--load", "--memfree", "--nice", "--tagstring", "--rpl", "--id", "--semaphorename",
    "--block", "--block-size", "--recstart", "--recend", "--header", "--eof"))
"""``parallel -j 4 pytest {} ::: a b``: ``-j`` takes ``4`` (GNU parallel's options)."""
MARKED: dict[str, tuple[str, ...]] = {
    "kubectl exec": ("--",), "chamber exec": ("--",), "mise exec": ("--",), "mise x": ("--",),
    "tox exec": ("--",), "nix develop": ("-c", "--command"), "nix shell": ("-c", "--command")}
"""Runners whose command follows a marker word, when it is there (``kubectl exec POD -c C --
CMD``, ``nix develop -c CMD``); without one, read as a runner not listed."""


def runner_grammars(name: str, args: list[str], verb_at: int | None) -> list[str] | None:
    """The :data:`GRAMMARS` keys ``name ARGS`` is read by (each reading must be covered).

    ``None``: a runner not listed. ``verb_at``: the index of its running subcommand (``uv
    run``), ``None`` for a runner without one. ``runuser USER ARGS`` (no ``-u``) passes ARGS
    to USER's shell: read both with and without the user as a positional. ``taskset -p``,
    ``chrt -p`` change a running process: no reading.
    """
    key = name if verb_at is None else f"{name} {args[verb_at]}"
    if key not in GRAMMARS:
        return None
    if key in ("taskset", "chrt", "prlimit", "cpulimit") and any(
            long_option(a, "--pid") if a.startswith("--") else "p" in a
            for a in takewhile(lambda a: a.startswith("-"), args)):
        return []  # taskset -p MASK PID, prlimit -p PID, cpulimit -p PID -l 50
    return [key, "runuser USER"] if key == "runuser" else [key]


GRAMMARS["runuser USER"] = GRAMMARS["runuser"]._replace(positionals=1)


def watch_lines(name: str, args: list[str]) -> list[str]:
    """The command lines ``cargo watch`` runs (``cargo-watch``, a runner no round read).

    ``-s CMD`` (a shell line), ``-x CMD`` (``cargo CMD``), ``--use-shell PROG`` and the
    command after ``--``.
    """
    if name == "cargo" and args[:1] == ["watch"]:
        args = args[1:]
    elif name != "cargo-watch":
        return []
    lines: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return [*lines, shlex.join(args[i + 1:])] if args[i + 1:] else lines
        value, letter = None, ""
        if word.startswith("--"):
            option = next((o for o in ("--exec", "--shell", "--use-shell") if long_option(
                word, o)), None)
            letter = {"--exec": "x", "--shell": "s", "--use-shell": "u"}.get(option or "", "")
            value = word.partition("=")[2] if "=" in word else value_at(args, i + 1)
            i += 1 if "=" in word or not letter else 2
        elif word.startswith("-") and word != "-":
            short = short_value(args, i, "xswidCBL")
            value, letter, i = short.value, short.letter, short.next
        else:
            i += 1
        if value is not None and letter in ("x", "s", "u"):
            lines.append(f"cargo {value}" if letter == "x" else value)
    return lines


_DOTENV_VALUED = "fqepvc"
"""dotenv's short options that take a value: python-dotenv's ``-f FILE``, ``-q MODE``, ``-e
BOOL``; dotenv-cli's ``-e FILE``, ``-v K=V``, ``-p VAR``, ``-c ENV``."""
_DOTENV_LONG_VALUED = ("--file", "--quote", "--export")


def dotenv_start(args: list[str]) -> int | None:
    """Where the command of ``dotenv ARGS`` starts, when its words say; else ``None``.

    Two programs are called ``dotenv``: python-dotenv (``dotenv [-f FILE] run [--override]
    CMD…``) and npm's dotenv-cli (``dotenv [-e FILE]… [-v K=V]… -- CMD…``). Its options are
    read up to ``run`` (the command follows it, after ``--override`` / ``--no-override`` and
    a ``--``) or ``--`` (the command follows); a word before either may be the program
    itself (``dotenv node app.js``), and ``dotenv -- run CMD`` is either program's: ``None``,
    every word is then tried as any runner's.
    The index may be ``len(args)``: nothing is run.
    """
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":  # `-- run CMD`: python-dotenv's run, or dotenv-cli's program "run"
            return None if args[i + 1:i + 2] == ["run"] else i + 1
        if word == "run":
            i += 1
            while i < len(args) and args[i] in ("--override", "--no-override"):
                i += 1
            return i + 1 if args[i:i + 1] == ["--"] else i
        if not word.startswith("-") or word == "-":
            return None
        if word.startswith("--"):
            valued = word in _DOTENV_LONG_VALUED
        else:
            valued = len(word) == 2 and word[1] in _DOTENV_VALUED
        i += 2 if valued else 1
    return None
