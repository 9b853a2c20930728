"""A runner given no command runs a shell that reads its standard input: judged as bash is.

approval round 11 HIGH 3: ``echo 'touch PWNED' | setarch x86_64`` ran under deny
shell(touch *) end to end, as did ``| linux64``, ``| unshare -r``, ``| script -q /dev/null``,
``| fakeroot``, ``| su``, ``| sudo -s``, ``| chroot /``, ``| nix-shell``, ``| parallel``,
``parallel < cmds.txt`` and over ssh ``ssh host sudo -s < script.sh``, ``ssh host parallel <
s``, ``ssh host 'ssh other' < s``.
"""

from __future__ import annotations

import pytest
from rules_support import DENY_RM, action, action_under_deny_rm, check_under_deny_rm, shell_verdict

from goosectx.permissions import PermissionRules

FED = ["setarch x86_64", "setarch x86_64 -R", "linux64", "unshare -r", "script -q /dev/null",
       "fakeroot", "su", "su - root", "sudo -s", "sudo -u root -i", "sudo --user root -s",
       "sudo --user=root --login", "chroot /", "nix-shell",
       "nix-shell -p python3", "nix develop", "parallel", "parallel -j 2", "pkexec", "doas -s"]


@pytest.mark.parametrize("runner", FED)
def test_a_runner_without_a_command_fed_commands_asks(runner: str) -> None:
    check_under_deny_rm(f"echo 'rm -rf src' | {runner}", "ask")


def test_the_reason_says_a_shell_reads_the_input() -> None:
    reason = shell_verdict(PermissionRules(deny=("shell(touch *)",)),
                           "echo 'touch PWNED' | setarch x86_64").reason
    assert reason.startswith("setarch has no command of its own: it runs a shell, which runs "
                             "the commands it reads from its standard input")


@pytest.mark.parametrize("command", [
    "parallel < cmds.txt", "parallel :::: cmds.txt", "fakeroot < build.sh",
    "ssh host sudo -s < script.sh", "ssh host parallel < s", "ssh host 'ssh other' < s",
    "ssh host 'sudo -i' < s"])
def test_commands_read_from_a_file_or_over_ssh_ask(command: str) -> None:
    check_under_deny_rm(command, "ask")


@pytest.mark.parametrize("command", [
    "echo 'rm -rf src' | setarch x86_64 -R rm -rf src", "unshare -r rm -rf src",
    "chroot / rm x", "su -c 'rm x' root", "sudo -s rm x", "fakeroot -- rm x",
    "nix-shell --run 'rm x'", "script -qc 'rm x' /dev/null", "parallel rm ::: a b"])
def test_a_runner_s_own_command_is_still_read(command: str) -> None:
    """Denied, or asked where the runner's command is one of the words it may start at."""
    assert action_under_deny_rm(command) != "run"
    assert "has no command of its own" not in shell_verdict(DENY_RM, command).reason


@pytest.mark.parametrize("command", [
    "setarch x86_64 ls", "unshare -r ls", "nix-shell -p python3 --run 'python3 -V'",
    "parallel -j 2 echo {} ::: a b", "echo hi | sudo tee out.txt", "echo x | nice",
    "echo x | xargs", "sudo -u x ls", "nix build"])
def test_a_runner_with_a_command_or_no_shell_still_runs(command: str) -> None:
    assert action(DENY_RM, command) == "run"


# round 31: stdin_shells read runners' words with a getopt walker of its own beside
# shell_unwrap.unwrap; unwrap reads them now (its tables, or the runner's grammar). run0's
# long options were all flags there: `run0 --user root` took root for its command.
@pytest.mark.parametrize("runner", [
    "run0 --user root", "run0 --user=root", "run0 -u root", "doas -u root -s", "doas -s",
    "sudo -Eu root -s", "sudo --user root --login", "sudo -h host -s", "setarch x86_64 -R",
    "su - root", "su root -", "su -l root -s /bin/sh", "unshare -r --fork", "nsenter -t 1 -m",
    "chroot --userspec u:g /", "fakeroot -l lib", "parallel -j 2 --eta", "runuser -u root",
    "nix-shell -p python3 -A x", "script -q /dev/null", "sg grp", "firejail --private"])
def test_a_runner_read_by_the_one_walker_without_a_command_asks(runner: str) -> None:
    check_under_deny_rm(f"echo 'rm -rf src' | {runner}", "ask")


@pytest.mark.parametrize("command", [
    "su root -c 'rm x'", "su -lc 'rm x' root", "su --command='rm x' root", "sg grp -c 'rm x'",
    "script -q -c 'rm x' /dev/null", "runuser -u root -c 'rm x'", "nix develop -c rm x",
    "nix-shell -p x --run 'rm x'", "run0 --user root rm x", "doas -u root rm x",
    "setarch x86_64 -R rm x"])
def test_a_command_given_past_options_or_positionals_is_read_not_asked_as_a_shell(
        command: str) -> None:
    reason = shell_verdict(DENY_RM, command).reason
    assert action_under_deny_rm(command) != "run", reason
    assert "has no command of its own" not in reason


@pytest.mark.parametrize("command", [
    "echo hi | sudo -u root tee out.txt", "echo hi | run0 --user root tee out.txt",
    "echo hi | doas -u root tee out.txt", "echo x | setarch x86_64 -R cat",
    "echo x | unshare -r cat", "echo x | su root -c cat", "echo x | chroot / cat"])
def test_a_runner_fed_input_with_a_command_still_runs(command: str) -> None:
    assert action(DENY_RM, command) == "run"


# round 31 (appr31c): `runuser USER` without -u is su's form: it starts USER's shell, which runs
# what its input gives; it ran, read as the program USER.
@pytest.mark.parametrize("runner", ["runuser bob", "runuser - bob", "runuser -l bob",
                                    "runuser bob -s /bin/sh", "runuser -u bob"])
def test_runuser_with_a_user_and_no_command_asks_as_su_does(runner: str) -> None:
    check_under_deny_rm(f"echo 'rm -rf src' | {runner}", "ask")
    assert "runuser has no command of its own" in shell_verdict(DENY_RM, runner).reason


@pytest.mark.parametrize("command", [
    "runuser -u bob make", "runuser --user=bob pytest -q", "runuser -u bob -- npm test",
    "echo x | runuser -u bob cat", "runuser bob -c make"])
def test_runuser_with_a_command_still_runs(command: str) -> None:
    assert action(DENY_RM, command) == "run"
