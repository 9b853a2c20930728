"""Shell deny and ask rules see the command a runner starts, and inline code that names it.

A runner is a program that runs another one given in its arguments (``fakeroot rm x``,
``chroot / rm x``, ``ssh host rm x``, ``docker exec box rm x``); an interpreter's inline code
(``python3 -c "os.system('rm x')"``) runs what its text names. Before, a deny rule for ``rm``
let all of them through.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import ALLOW_ALL_DENY_RM, shell_verdict
from rules_support import action as verdict

from goosectx.permissions import PermissionRules, suggested_rule

RUNNERS = [
    "fakeroot rm x", "fakeroot -u -- rm x", "chroot / rm x", "chroot --userspec=1:1 / rm x",
    "unshare -r rm x", "unshare --mount --pid --fork rm x", "nsenter -t 1 -m rm x",
    "setpriv --reuid=1 rm x", "runuser -u bob -- rm x", "runuser bob -c 'rm x'",
    "taskset -c 0 rm x", "chrt -f 10 rm x", "prlimit --nofile=10 rm x", "faketime -f +1d rm x",
    "strace -f -o log rm x", "ltrace -S rm x", "valgrind --tool=memcheck rm x",
    "systemd-run --user --wait -p Nice=5 rm x", "firejail --noprofile rm x",
    "bwrap --bind / / --dev /dev rm x", "ssh host rm x", "ssh -p 2222 -i key host rm -rf x",
    "ssh host 'cd /tmp && rm x'", "docker exec -it box rm x", "docker run --rm img rm x",
    "kubectl exec pod -- rm x", "podman exec box sh -c 'rm x'", "sudo fakeroot chroot / rm x",
]


@pytest.mark.parametrize("command", RUNNERS)
def test_a_deny_rule_sees_the_command_a_runner_starts(command: str) -> None:
    # ssh's command line is read as it is (denied); another runner's command is read from
    # every word where it may start, so a deny rule matching one of them asks
    # (systemd-run is a wrapper now: its command read exactly, shell22c)
    expected = "deny" if command.startswith(("ssh", "runuser bob -c", "systemd-run")) else "ask"
    assert verdict(ALLOW_ALL_DENY_RM, command) == expected, command


INLINE = [
    "python3 -c \"import os; os.system('rm -rf x')\"",
    "python -c 'import subprocess; subprocess.run([\"rm\", \"x\"])'",
    "perl -e 'system(\"rm x\")'", "perl -we 'unlink; `rm x`'",
    "node -e \"require('child_process').execSync('rm x')\"", "ruby -e '`rm x`'",
    "awk 'BEGIN { system(\"r\" \"m x\") }'", "php -r 'shell_exec(\"rm x\");'",
    # shell22c: languages whose libraries are not read: any inline code asks
    "julia -e 'run(`rm x`)'", "elixir -e 'System.cmd(\"rm\", [\"x\"])'",
    "erl -noshell -eval 'os:cmd(\"rm x\")'", "guile -c '(system \"rm x\")'",
    "racket -e '(system \"rm x\")'", "sbcl --eval '(run-program \"rm\")'",
    "groovy -e '\"rm x\".execute()'", "emacs --batch --eval '(shell-command \"rm x\")'",
]


@pytest.mark.parametrize("command", INLINE)
def test_inline_code_naming_a_denied_program_is_asked_about(command: str) -> None:
    found = shell_verdict(ALLOW_ALL_DENY_RM, command)
    assert found.action == "ask", command
    assert "code runs commands" in found.reason and "cannot check" in found.reason


def test_runners_and_inline_code_that_name_no_rule_still_run() -> None:
    for command in ("docker ps -a", "ssh host ls", "python3 -c 'print(1)'",
                    "perl -e 'print 42'", "awk '{print $1}' f", "strace -f ls",
                    "python3 -c 'import shutil; print(shutil.which(\"git\"))'", "git rm -n x",
                    "kubectl get pods", "chroot / ls"):
        assert verdict(ALLOW_ALL_DENY_RM, command) == "run", command
    # without shell deny or ask rules, inline code is never looked into
    only_allow = PermissionRules(allow=("shell(*)",))
    assert verdict(only_allow, "python3 -c \"import os; os.system('rm x')\"") == "run"
    # an allow rule for a runner's own command keeps covering it
    docker = PermissionRules(allow=("shell(docker ps*)",), deny=("shell(rm *)",))
    assert verdict(docker, "docker ps --all") == "run"


def test_a_runner_given_too_many_words_to_read_is_asked_about() -> None:
    command = "bwrap " + "--ro-bind a a " * 40 + "rm x"
    assert verdict(ALLOW_ALL_DENY_RM, command) in ("ask", "deny")


def test_no_rule_is_offered_for_a_runner() -> None:
    for command in ("fakeroot make", "chroot / ls", "unshare -r id", "strace ls",
                    "docker exec box ls", "kubectl exec pod -- ls", "runuser -u bob ls"):
        assert suggested_rule("shell", {"command": command}) is None, command
    assert suggested_rule("shell", {"command": "docker ps -a"}) == "shell(docker ps*)"


def test_run_in_auto_mode_runs_no_rm_hidden_behind_a_runner(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_auto_denying_rm(fake_model, workdir, capsys, [
        "fakeroot rm v1", f"chroot / rm {workdir}/v2", "taskset -c 0 rm v3",
        "setpriv --reuid=0 rm v4", "python3 -c \"import os; os.system('rm v5')\""])


def test_a_tools_running_subcommand_is_read_and_its_rule_names_the_command() -> None:
    for command in ("uv run rm x", "poetry run rm x", "bundle exec rm x", "direnv exec . rm x",
                    "conda run -n env rm x", "pkexec rm x", "gosu app rm x", "tini -- rm x"):
        assert verdict(ALLOW_ALL_DENY_RM, command) == "ask", command
    assert verdict(ALLOW_ALL_DENY_RM, "uv run python -c \"import os; os.system('rm x')\"") == "ask"
    assert verdict(ALLOW_ALL_DENY_RM, "uv pip install rm") == "run"  # no running subcommand
    assert suggested_rule("shell", {"command": "uv run ls -la"}) == "shell(uv run ls*)"
    assert suggested_rule("shell", {"command": "poetry run git status"}) == (
        "shell(poetry run git status*)")
    for command in ("uv run bash -c ls", "uv --quiet run pytest", "uv run", "poetry run sudo ls"):
        assert suggested_rule("shell", {"command": command}) is None, command
    assert suggested_rule("shell", {"command": "uv sync"}) == "shell(uv sync)"


# -- what a review and a tester found in the first version ---------------------------------
@pytest.mark.parametrize("command", [
    "ssh -o ProxyCommand='rm x' nohost true", "ssh -oProxyCommand='rm x' h true",
    "ssh -o 'LocalCommand rm x' h", "ssh host -- rm x", "ssh host -p 22 rm x",
    "ssh -vp 22 host rm x", "ssh -4l user host rm x"])
def test_ssh_options_anywhere_and_local_commands_are_read(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", [
    "taskset 1 \"$(printf rm)\" x", "strace -o log $P x", "python3 -W ignore -c "
    "\"import os; os.system('rm x')\"", "perl -I lib -e 'system(\"rm x\")'",
    "node -r fs -e \"require('child_process').execSync('rm x')\"",
    "python3 - <<'EOF'\nimport os; os.system('rm x')\nEOF", "echo 'rm x' | python3",
    "perl <<'X'\nsystem('rm x')\nX", "echo rm x | awk '{system($0)}'",
    "echo x | sed 's/.*/rm x/e'", "sed -e '1e rm x' f", "[[ 'a[$(rm x)]' -eq 0 ]]",
    "x='a[$(rm x)]'; echo $((x))", "setarch x86_64 rm x", "linux64 rm x",
    "gdb -batch -ex run --args rm x", "tar xf a.tar --to-command='rm x'",
    "tar cf a.tar --checkpoint-action=exec='rm x' .", "rsync -e 'rm x' a b:c",
    "vim -es -c '!rm x' -c 'q!'", "nix-shell -p hello --run 'rm x'", "npx -c 'rm x'",
    "parallel rm ::: x", "parallel -j2 'rm {}' ::: x", "os=1 python3 -c \"import os as o; "
    "o.system('r'+'m x')\""])
def test_commands_that_hid_an_rm_are_asked_about_or_denied(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) in ("ask", "deny"), command


def test_everyday_commands_are_not_flagged() -> None:
    for command in ("docker run -v $PWD:/w img make", "kubectl exec $POD -- ls",
                    "uv run git commit -m 'rm dead code'", "pytest -k 'rm or unlink'",
                    "uv run pytest " + " ".join(f"t{i}.py" for i in range(40)),
                    "perl -ne 'print if /rm -f/' log", "awk '$1 == \"rm\" {print $2}' f",
                    "python3 -c \"print('do not rm it')\"", "python3 --version",
                    "sed -e 's/rm/del/g' f", "sed -n '/rm /p' f", "python3 script.py rm",
                    "tar xf a.tar", "ssh host ls", "grep -r 'rm -rf' ."):
        assert verdict(ALLOW_ALL_DENY_RM, command) == "run", command


def test_a_word_read_only_because_a_command_may_start_there_asks_not_denies() -> None:
    found = shell_verdict(ALLOW_ALL_DENY_RM, "uv run pytest -k rm")
    assert found.action == "ask" and "shell(rm *)" in found.reason


def test_no_rule_names_an_option_or_a_directory_after_a_running_subcommand() -> None:
    for command in ("uv run -q pytest", "uv run -- pytest", "conda run -n x pytest",
                    "direnv exec ./proj pytest", "distrobox enter dev -- make",
                    "uv run --with rich python app.py", "Rscript -e 1", "luajit -e 1",
                    "powershell -c 1"):
        assert suggested_rule("shell", {"command": command}) is None, command


# fresh21 finding 9: rbash (shipped with bash) and other POSIX shells were not read as shells:
# `rbash -c 'rm f'`, `echo 'rm f' | rbash` and `rbash <<< 'rm f'` deleted f under
# --mode auto --deny 'shell(rm *)'; csh/tcsh, pwsh, xonsh, nu, elvish -c ran unread too.
def test_run_keeps_the_files_rbash_would_remove(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = run_auto_denying_rm(fake_model, workdir, capsys, [
        "rbash -c 'rm -f v1'", "echo 'rm -f v2' | rbash", "rbash <<< 'rm -f v3'"])
    assert "rbash runs the commands it reads from its standard input" in err, err


@pytest.mark.parametrize("command", [
    "rbash -c 'rm x'", "mksh -c 'rm x'", "yash -c 'rm x'", "posh -c 'rm x'", "ksh93 -c 'rm x'",
    "osh -c 'rm x'", "toybox sh -c 'rm x'", "busybox sh -c 'rm x'", "lksh -c 'rm x'"])
def test_a_posix_shells_command_string_is_read_like_bash_c(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", [
    "echo 'rm x' | mksh", "yash <<< 'rm x'", "tcsh -c 'rm x'", "csh -fc 'rm x'",
    "echo 'rm x' | tcsh", "pwsh -c 'Remove-Item x'", "pwsh -NoProfile -Command 'rm x'",
    "pwsh -EncodedCommand cgBtACAAeAA=", "echo 'rm x' | pwsh", "xonsh -c 'rm x'",
    "nu -c 'rm x'", "nu --commands 'rm x'", "nu -e 'rm x'", "elvish -c 'rm x'",
    "echo 'rm x' | elvish", "ysh -c 'rm x'", "pwsh -ExecutionPolicy Bypass"])
def test_another_command_languages_code_is_asked_about(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) == "ask", command


@pytest.mark.parametrize("command", [
    "tcsh script.csh", "pwsh -NoProfile -File ./build.ps1", "pwsh -ep Bypass -File x.ps1",
    "pwsh ./x.ps1", "nu script.nu", "xonsh x.xsh", "elvish x.elv", "rbash x.sh",
    "mksh ./configure", "toybox ls", "pwsh --version", "rbash -c 'ls'"])
def test_their_script_files_still_run(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) == "run", command
    assert suggested_rule("shell", {"command": command}) is None, command


@pytest.mark.parametrize(("command", "expected"), [  # a config file may set ProxyCommand
    ("ssh -F ./cfg host", "ask"), ("ssh host -F ./cfg", "ask"), ("ssh -vF cfg host", "ask"),
    ("scp -F ./cfg a b:", "ask"), ("sftp -F cfg host:f", "ask"),
    ("ssh -F none host", "run"), ("ssh -F /dev/null -o BatchMode=yes host true", "run"),
    ("ssh host ls -F /tmp", "run"), ("ssh -p 22 host -- ls -F x", "run"),
    ("scp -P 22 a b:", "run"),
])
def test_an_ssh_config_file_named_on_the_line_is_asked_about(command: str,
                                                             expected: str) -> None:
    assert verdict(PermissionRules(deny=("shell(rm *)",)), command) == expected, command
