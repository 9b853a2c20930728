"""A rule for ssh covers ssh only: the command it runs on the remote host needs its own rule.

appb29 (runs28's "a runner's rule covers the runner only", for the remote shells): under
``shell(ssh*)`` ``ssh host 'rm -rf ~'`` and ``ssh host -- git push --force`` ran unasked, and so
did ``ssh -o ProxyCommand='rm x' host`` (a LOCAL command, through a shell); ``mosh host -- CMD``
and ``autossh -M 0 host CMD`` were not read at all (a deny rule on ``rm`` did not hold behind
them). A login or a tunnel (``ssh host``, ``ssh -N -L …``) is still covered by ``shell(ssh*)``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules


def _rules(allow: str = "", deny: str = "") -> PermissionRules:
    return PermissionRules(allow=tuple(filter(None, allow.split(","))),
                           deny=tuple(filter(None, deny.split(","))))


ASKED = [
    ("ssh host 'rm -rf ~'", "shell(ssh*)", "ssh runs rm"),
    ("ssh host -- git push --force", "shell(ssh*)", "ssh runs git"),
    ("ssh -p 2222 host git push --force", "shell(ssh*),shell(git pull*)", "ssh runs git"),
    ("ssh host -- git push --force", "shell(ssh host git pull*)",
     "ssh host -- git push --force is covered by no allow rule"),
    ("ssh host 'cd /srv && ls -la'", "shell(ssh*),shell(cd*)", "ssh runs ls"),
    ("ssh -o ProxyCommand='rm x' host", "shell(ssh*)", "ssh -o runs rm"),
    ("ssh -o 'LocalCommand touch x' -o PermitLocalCommand=yes host", "shell(ssh*)",
     "ssh -o runs touch"),
    ("mosh host -- rm -rf x", "shell(mosh*)", "mosh runs rm"),
    ("mosh --ssh='ssh -p 2222' host", "shell(mosh*)", "mosh runs ssh"),
    ("mosh -p 60001 host rm -rf x", "shell(mosh*)", "mosh runs rm"),
    ("autossh -M 0 host rm -rf x", "shell(autossh*)", "autossh runs rm"),
    ("autossh -f -M 20000 -N host touch y", "shell(autossh*)", "autossh runs touch"),
]


@pytest.mark.parametrize(("command", "allow", "named"), ASKED,
                         ids=[f"{allow}: {command}" for command, allow, _ in ASKED])
def test_a_remote_command_needs_its_own_allow_rule(command: str, allow: str,
                                                   named: str) -> None:
    found = shell_verdict(_rules(allow), command, "smart_approve")
    assert found.action == "ask", (command, found.reason)
    assert found.read_why is not None and found.read_why.startswith(named), found.read_why


COVERED = [
    ("ssh host", "shell(ssh*)"),
    ("ssh -N -L 8080:localhost:80 host", "shell(ssh*)"),
    ("ssh -i key -p 2222 user@host", "shell(ssh*)"),
    ("autossh -M 0 -f -N -L 8080:localhost:80 host", "shell(autossh*)"),
    ("mosh host", "shell(mosh*)"),
    ("ssh host git pull", "shell(ssh host git pull*)"),
    ("ssh host git pull --ff-only", "shell(ssh*),shell(git pull*)"),
    ("ssh host 'git pull'", "shell(ssh*),shell(git*)"),
    ("ssh host -- uptime", "shell(ssh*),shell(uptime*)"),
    ("mosh host -- htop", "shell(mosh*),shell(htop*)"),
    ("autossh -M 0 host uptime", "shell(autossh*),shell(uptime*)"),
]


@pytest.mark.parametrize(("command", "allow"), COVERED,
                         ids=[f"{allow}: {command}" for command, allow in COVERED])
def test_a_login_a_tunnel_or_a_covered_remote_command_runs(command: str, allow: str) -> None:
    found = shell_verdict(_rules(allow), command, "smart_approve")
    assert found.action == "run", (command, found.reason)


@pytest.mark.parametrize("command", [
    "ssh host 'rm -rf ~'", "ssh host -- rm -rf ~", "mosh host -- rm -rf x",
    "mosh host rm -rf x", "autossh -M 0 host rm -rf x", "autossh -M0 -f host 'rm x'",
    "ssh -o ProxyCommand='rm x' host", "mosh --ssh='rm x' host"])
def test_a_deny_rule_holds_over_a_remote_shell(command: str) -> None:
    found = shell_verdict(_rules("shell(*)", "shell(rm *)"), command)
    assert found.action == "deny", (command, found.reason)
    assert "shell(rm *)" in found.reason


@pytest.mark.parametrize(("command", "expected"), [
    ("autossh -M 0 -F ./cfg host", "ask"), ("autossh -M 0 -N -F none host", "run"),
    ("autossh -M 0 -N host", "run")])
def test_an_autossh_config_file_is_read_as_ssh_s(command: str, expected: str) -> None:
    found = shell_verdict(_rules(deny="shell(rm *)"), command)
    assert found.action == expected, found.reason
    if expected == "ask":
        assert "autossh -F reads a configuration file" in found.reason


STDIN = ["ssh dev <<'EOF'\nrm -rf /srv/app\nEOF", "echo 'rm -rf ~' | ssh dev",
         "ssh dev < cleanup.sh", "ssh -T dev <<< 'rm -rf x'", "ssh -tt dev < ./steps.txt",
         "cat cmds | autossh -M 0 dev", "mosh dev <<< 'rm x'",
         # round 30: through a wrapper too (sudo ssh dev < x ran under a deny rule on rm)
         "sudo ssh dev < cleanup.sh", "sudo -u deploy ssh dev <<'EOF'\nrm -rf /srv/app\nEOF",
         "timeout 60 ssh dev < ./steps.txt"]


@pytest.mark.parametrize("command", STDIN)
def test_a_remote_shell_fed_its_commands_on_stdin_asks(command: str) -> None:
    """test29c HIGH 7: with no remote command ssh's remote login shell runs what it reads —
    ``ssh dev <<'EOF' rm -rf /srv/app`` ran under a deny rule on rm and under shell(ssh*)."""
    why = "runs the commands it reads from its standard input on the remote host"
    denied = shell_verdict(_rules("shell(*)", "shell(rm *)"), command)
    assert denied.action == "ask" and why in denied.reason, denied.reason
    smart = shell_verdict(_rules("shell(ssh*),shell(mosh*),shell(autossh*),shell(echo*),"
                                 "shell(cat*)"), command, "smart_approve")
    assert smart.action == "ask" and why in smart.reason, smart.reason


@pytest.mark.parametrize(("command", "said"), [
    ("ssh dev < cleanup.sh", "(each line of cleanup.sh)"),
    ("ssh dev <<'EOF'\nls\nEOF", "(each line of its here-document or here-string)"),
    ("sudo ssh dev <<< 'ls'", "(each line of its here-document or here-string)"),
])
def test_the_reason_names_what_feeds_the_remote_shell(command: str, said: str) -> None:
    """A here-document's lines are not read as the remote shell's commands: the reason says
    which stream it runs (round 30)."""
    found = shell_verdict(_rules("shell(*)", "shell(rm *)"), command)
    assert found.action == "ask" and said in found.reason, found.reason


@pytest.mark.parametrize("command", [
    "ssh dev < /dev/null", "ssh -N -L 8080:localhost:80 dev < /dev/null",
    "echo x | ssh -N -L 8080:localhost:80 dev", "ssh dev uptime < /dev/null",
    "echo hi | ssh dev uptime"])
def test_a_tunnel_or_a_remote_command_with_stdin_still_runs(command: str) -> None:
    found = shell_verdict(_rules("shell(*)", "shell(rm *)"), command)
    assert found.action == "run", found.reason


def test_mosh_server_is_a_remote_command_line() -> None:
    """test29c HIGH 7: ``mosh --server='rm -rf /srv' dev`` ran under a deny rule on rm."""
    for command in ("mosh --server='rm -rf /srv' dev", "mosh --server 'rm -rf /srv' dev"):
        found = shell_verdict(_rules("shell(*)", "shell(rm *)"), command)
        assert found.action == "deny" and "shell(rm *)" in found.reason, found.reason
    assert shell_verdict(_rules("shell(*)", "shell(rm *)"),
                         "mosh --server='mosh-server new -p 60001' dev").action == "run"


REMOTE_PATHS = [
    ("ssh dev 'cd /srv/app && git pull && make restart'",
     "shell(ssh*),shell(cd*),shell(git*),shell(make*)"),
    ("ssh dev git -C /srv/app pull", "shell(ssh*),shell(git*)"),
    ("ssh -p 2222 dev tail -n 50 /var/log/app.log", "shell(ssh*),shell(tail*)"),
    ("mosh dev -- tail -f /var/log/syslog", "shell(mosh*),shell(tail*)")]


@pytest.mark.parametrize(("command", "allow"), REMOTE_PATHS,
                         ids=[command for command, _ in REMOTE_PATHS])
def test_a_remote_commands_paths_are_the_remote_hosts(command: str, allow: str) -> None:
    """test29c: ``ssh -p 2222 dev tail -n 50 /var/log/app.log`` asked (``/var/log/app.log is
    outside the project``) — a path on the remote host is none of this project's."""
    found = shell_verdict(_rules(allow), command, "smart_approve")
    assert found.action == "run", found.reason
    denied = shell_verdict(_rules(allow, "shell(make *),shell(tail *),shell(git pull*)"),
                           command)
    assert denied.action == "deny", denied.reason


@pytest.mark.parametrize(("command", "named"), [
    ("ssh -E /tmp/ssh.log dev uptime", "/tmp/ssh.log is outside the project"),
    ("ssh -o ProxyCommand='cd /tmp && make' dev", "make runs the build file in /tmp"),
    ("ssh dev uptime && tail /var/log/x", "/var/log/x is outside the project")])
def test_local_paths_of_a_remote_shells_line_are_still_judged(command: str,
                                                               named: str) -> None:
    found = shell_verdict(_rules("shell(ssh*),shell(uptime*),shell(cd*),shell(tail*),"
                                 "shell(make*)"), command, "smart_approve")
    assert found.action == "ask" and named in found.reason, found.reason


@pytest.mark.parametrize(("command", "written"), [
    ("ssh -E .git/config dev", ".git/config"),
    ("ssh -S .git/hooks/post-checkout -M dev", ".git/hooks/post-checkout"),
    ("ssh dev -o UserKnownHostsFile=.git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("ssh -o 'ControlPath .git/hooks/pre-push' dev", ".git/hooks/pre-push"),
    ("autossh -M 0 -E .git/config dev", ".git/config")])
def test_the_local_files_ssh_writes_are_judged_as_write_targets(tmp_path: Path, command: str,
                                                                written: str) -> None:
    """test29c MEDIUM: ``ssh -E .git/config host`` ran under auto and a deny rule, and its
    debug log broke the repository's config."""
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    found = shell_verdict(_rules("shell(*)", "shell(rm *)"), command, working_dir=tmp_path)
    assert found.action == "ask" and f"ssh writes {written}" in found.reason, found.reason


@pytest.mark.parametrize("command", [
    "ssh -E ssh.log dev uptime", "ssh -S ctl -M -N dev", "ssh -i .git/../key dev",
    "ssh -o IdentityFile=id_ed25519 -o UserKnownHostsFile=known dev",
    "ssh -o ControlPath=none dev", "ssh dev tee -a .git/config"])
def test_ssh_files_read_or_written_elsewhere_still_run(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    found = shell_verdict(_rules("shell(*)", "shell(rm *)"), command, working_dir=tmp_path)
    assert found.action == "run", found.reason


OTHER_RUNNERS = [
    ("gcloud compute ssh vm --zone z --command 'rm -rf /srv'", "gcloud"),
    ("gcloud compute ssh vm --command='rm -rf /srv'", "gcloud"),
    ("gcloud compute ssh vm -- rm -rf /srv", "gcloud"),
    ("az ssh vm -n box -g rg -- rm -rf /srv", "az"),
    ("ansible all -a 'rm -rf /srv'", "ansible"),
    ("ansible web -m shell -a 'rm -rf /srv'", "ansible"),
    ("et dev -c 'rm -rf /srv'", "et"), ("et dev --command='rm -rf /srv'", "et"),
    ("pdsh -w web[1-3] rm -rf /srv", "pdsh"), ("pssh -h hosts.txt -i rm -rf /srv", "pssh"),
    ("rsh -l me dev rm -rf /srv", "rsh"), ("tsh ssh -p 22 me@dev rm -rf /srv", "tsh")]


@pytest.mark.parametrize(("command", "runner"), OTHER_RUNNERS,
                         ids=[command for command, _ in OTHER_RUNNERS])
def test_other_remote_runners_command_lines_are_remote_commands(command: str,
                                                                runner: str) -> None:
    """test29c MEDIUM: ``gcloud compute ssh vm --command 'rm -rf /srv'``, ``ansible all -a``,
    ``et -c`` ran under a deny rule on rm; pdsh/tsh asked only that they may write /srv."""
    denied = shell_verdict(_rules("shell(*)", "shell(rm *)"), command)
    assert denied.action == "deny" and "shell(rm *)" in denied.reason, denied.reason
    asked = shell_verdict(_rules(f"shell({runner}*)"), command, "smart_approve")
    assert asked.action == "ask", asked.reason
    assert asked.read_why is not None and asked.read_why.startswith(f"{runner} runs rm")


@pytest.mark.parametrize(("command", "allow"), [
    ("gcloud compute ssh vm --command 'tail -n 50 /var/log/app.log'",
     "shell(gcloud*),shell(tail*)"),
    ("ansible all -a 'uptime'", "shell(ansible*),shell(uptime*)"),
    ("ansible all -m copy -a 'src=a dest=/etc/a'", "shell(ansible*)"),
    ("pdsh -w web1 tail /var/log/syslog", "shell(pdsh*),shell(tail*)"),
    ("gcloud compute ssh vm", "shell(gcloud*)")])
def test_other_remote_runners_covered_commands_run(command: str, allow: str) -> None:
    found = shell_verdict(_rules(allow), command, "smart_approve")
    assert found.action == "run", found.reason
