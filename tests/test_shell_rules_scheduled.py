"""Shell rules ask about jobs handed to a scheduler, and read systemd-run's command.

shell22c findings: under ``--mode auto --deny 'shell(rm *)'`` ``echo 'rm f' | at now``, ``at
-f job.sh now``, ``batch`` and ``echo '* * * * * rm f' | crontab -`` ran (at and cron run the
job's commands later, read from standard input or a file the rules do not see), and
``systemd-run rm f`` was only asked about.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm as verdict

from goosectx.permissions import suggested_rule


@pytest.mark.parametrize("command", [
    "echo 'rm f' | at now", "at now < job.sh", "at -f job.sh now", "at -fjob.sh now",
    "at -m -q b now + 1 minute <<<'rm f'", "echo 'rm f' | batch", "batch -f job.sh",
    "echo '* * * * * rm f' | crontab -", "crontab file", "crontab -u me jobs.txt",
    "crontab -- jobs.txt", "at now",
])
def test_a_job_handed_to_at_or_cron_is_asked_about(command: str) -> None:
    assert verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "at -l", "atq", "atrm 3", "at -c 3", "at -r 3", "crontab -l", "crontab -u me -l",
    "crontab -r", "at -V",
])
def test_listing_or_removing_jobs_still_runs(command: str) -> None:
    assert verdict(command) == "run", command


@pytest.mark.parametrize("command", [
    "systemd-run rm f", "systemd-run --user rm f", "systemd-run --user -t rm f",
    "systemd-run -u job -p CPUQuota=10% rm f", "systemd-run --unit job --wait rm f",
    "systemd-run -tu job -- rm f", "sudo systemd-run --scope rm f",
])
def test_systemd_run_is_read_as_a_wrapper(command: str) -> None:
    assert verdict(command) == "deny", command


def test_systemd_run_of_another_program_runs_and_offers_no_prefix_rule() -> None:
    assert verdict("systemd-run --user --scope make build") == "run"
    assert suggested_rule("shell", {"command": "systemd-run --user ls"}) is None


@pytest.mark.parametrize("command", [
    "less $'+!rm f\\n' x", "less '+!rm f' x", "less -R '++!rm f' x", "more '+!rm f' x",
    "less '+|rm f' x", "less $'+/x\\n!rm f\\n' x", "less +v x",
])
def test_less_keys_that_may_run_a_shell_command_are_asked_about(command: str) -> None:
    # less 590 ran `less $'+!touch p\n' f` (and `++…`) under a terminal
    assert verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "less +G x", "less +F log.txt", "less -R +42 x", "less '+/def main' x.py", "more +10 x",
    "less ++G a b", "less -- '+!x' f", "less -N x",
])
def test_less_moving_or_searching_at_start_still_runs(command: str) -> None:
    assert verdict(command) == "run", command


@pytest.mark.parametrize("command", [
    "man -aP 'rm f' ls", "man -P'rm f' ls", "man -Hrm ls", "man --html=rm ls",
    "man -M /x -P 'rm f' ls",
])
def test_mans_pager_and_browser_are_read_in_clusters(command: str) -> None:
    assert verdict(command) == "deny", command
    assert verdict(command.replace("rm", "cat")) == "run"


@pytest.mark.parametrize("command", [
    "proxychains4 rm f", "proxychains4 -q -f p.conf rm f", "tsocks rm f", "nocache rm f",
    "eatmydata rm f", "pv f | ifne rm f", "ifne -n rm f",
])
def test_more_wrappers_are_read(command: str) -> None:
    # shell22c: each of these ran `rm f` under --deny 'shell(rm *)'
    assert verdict(command) == "deny", command


@pytest.mark.parametrize("command", [
    "cpulimit -l 50 rm f", "trickle -d 100 rm f", "ccache rm f", "rr record rm f",
    "perf stat rm f", "perf record -g rm f", "hyperfine 'rm f'", "hyperfine -N rm",
    "arch -x86_64 rm f", "ip netns exec ns rm f", "scl enable devtoolset-9 'rm f'",
    "cross-env X=1 rm f", "concurrently 'ls' 'rm f'", "nodemon --exec 'rm f'",
    "runcon -t x rm f", "sandbox-exec -f p rm f", "lldb -- rm f", "dotenvx run -- rm f",
    "env-cmd rm f", "sem 'rm f'", "lckdo /tmp/l rm f", "daemonize /bin/rm f",
    "start-stop-daemon --start --exec /bin/rm -- f", "tsp rm f",
    "rlwrap rm f", "rlwrap -z rm cat",
])
def test_more_runners_ask_when_they_may_start_a_denied_command(command: str) -> None:
    # shell22c: each of these ran `rm f` under --deny 'shell(rm *)'
    assert verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "perf stat make", "ccache gcc -c x.c", "hyperfine 'make build'", "ip addr",
    "perf report", "concurrently 'npm run a' 'npm run b'",
])
def test_those_runners_run_other_commands(command: str) -> None:
    assert verdict(command) == "run", command


@pytest.mark.parametrize(("command", "expected"), [
    ("scp -o ProxyCommand='rm f' a b:", "deny"), ("scp -qo 'ProxyCommand rm f' a b:", "deny"),
    ("sftp -o ProxyCommand='rm f' h", "deny"), ("scp -S rm a b:", "deny"),
    ("echo '!rm f' | sftp -b - h", "ask"), ("sftp -b job.txt h", "ask"),
    ("sftp h <<< '!rm f'", "ask"), ("ftp h < cmds", "ask"), ("lftp -c '!rm f'", "ask"),
    ("scp -P 2222 -o ProxyCommand='ssh -W %h:%p bastion' a b:", "run"), ("scp -r d h:/x", "run"),
    ("sftp -P 22 h", "ask"), ("sftp -P 22 h:f.txt .", "run"), ("sftp h:f.txt", "run"),
])
def test_file_transfer_clients_commands_are_read(command: str, expected: str) -> None:
    # shell22c: each of the denied or asked ones ran `rm f` under --deny 'shell(rm *)'
    assert verdict(command) == expected, command
