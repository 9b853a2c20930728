"""More programs that run a command they are given (found after fresh22's #02–#06).

Each of these ran ``rm -f v`` under ``run --mode auto --deny 'shell(rm *)'``. Wrappers whose
command follows their options (``systemd-inhibit``, ``dbus-launch``, ``run-one``, daemontools'
``envdir``/``softlimit``/``setlock``, ``aa-exec``, ``run0``, ``flatpak-spawn`` …) are read as
``sudo`` is: denied. Launchers whose options are too varied to model (MPI, slurm, emulators,
jails, terminal emulators, ``ctest --test-command``) are runners: asked about.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm

from goosectx.permissions import suggested_rule


@pytest.mark.parametrize("command", [
    "systemd-inhibit rm -f v", "systemd-inhibit --what=idle --why=x rm -f v",
    "dbus-launch --exit-with-session rm -f v", "run-one rm -f v", "run-this-one rm -f v",
    "timelimit -t 5 -T 2 rm -f v", "envdir ./env rm -f v", "softlimit -m 1000 rm -f v",
    "setlock ./lock rm -f v", "envuidgid me rm -f v", "with-lock-ex ./lock rm -f v",
    "aa-exec -p prof -- rm -f v", "run0 -u root rm -f v", "flatpak-spawn --host rm -f v",
    "ssh -o RemoteCommand='rm -f v' localhost", "vagrant ssh -c 'rm -f v'",
])
def test_wrappers_and_remote_commands_are_read(command: str) -> None:
    assert action_under_deny_rm(command) == "deny", command


@pytest.mark.parametrize("command", [
    "gpg-agent --daemon rm -f v", "mpirun -n 4 rm -f v", "mpiexec -np 2 rm -f v", "srun rm -f v",
    "qemu-x86_64 /bin/rm -f v", "box64 rm -f v", "jexec 1 rm -f v", "lxc-attach -n c -- rm -f v",
    "nsjail -Mo -- /bin/rm -f v", "minijail0 -u me rm -f v", "ts rm -f v",
    "ctest --build-and-test a b --build-generator Ninja --test-command rm -f v",
    "xterm -e rm -f v", "gnome-terminal -- rm -f v", "xfce4-terminal -e 'rm -f v'",
    "machinectl shell box /bin/rm -f v",
])
def test_launchers_ask_when_they_may_start_a_denied_command(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "mpirun -n 4 ./app", "srun -N2 hostname", "ctest --output-on-failure -j4", "xterm -e htop",
    "make 2>&1 | ts '%H:%M:%S'", "gpg-agent --daemon", "vagrant ssh", "vagrant up",
    "systemd-inhibit --list", "dbus-launch --sh-syntax", "machinectl list",
    "ssh -o RemoteCommand='ls' host",
])
def test_their_everyday_commands_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command


@pytest.mark.parametrize("command", [
    "systemd-inhibit --list", "dbus-launch --sh-syntax", "ssh-agent -s", "logsave log make",
    "ld.so --list ./a.out", "/lib64/ld-linux-x86-64.so.2 --help", "mpirun -n 4 ./app",
])
def test_no_prefix_rule_that_would_allow_any_command_is_offered(command: str) -> None:
    assert suggested_rule("shell", {"command": command}) is None, command


@pytest.mark.parametrize(("command", "expected"), [  # fresh22 #03: capsh -- runs its shell
    ("capsh -- -c 'rm -f v'", "deny"), ("capsh --caps='cap_x+eip' --user=me -- -c 'rm -f v'", "deny"),
    ("capsh --shell=/bin/rm -- -f v", "deny"), ("capsh == -- -c 'rm -f v'", "deny"),
    ("capsh -+ -c 'ls; rm -f v'", "deny"), ("capsh -- -c \"$CMD\"", "ask"),
    ("capsh --shell=$S -- -f v", "ask"), ("capsh --print", "run"), ("capsh -- -c 'make'", "run"),
    ("capsh --drop=cap_net_raw -- -c 'ls rm'", "run"),
])
def test_the_shell_capsh_starts_is_read(command: str, expected: str) -> None:
    assert action_under_deny_rm(command) == expected, command
