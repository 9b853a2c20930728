"""Configuration a command points a program at, or writes for git, that may run other code.

Cases left open by the earlier rounds (sh23): apt reads ``APT_CONFIG``'s file (whose
``DPkg::Pre-Invoke`` runs a command), ssh loads a library named by ``-I`` or
``-o PKCS11Provider=``, ``ctest -S`` runs a CMake script, a line written into
``.git/config`` or a hook by a redirection or ``tee`` sets a command a later git runs, and
bash's ``NAME+=VALUE`` appends to ``GIT_CONFIG_PARAMETERS`` or ``GIT_SSH`` as ``=`` sets them.
Each is asked about under ``run --mode auto --deny 'shell(rm *)'``; the everyday forms run.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    "APT_CONFIG=/tmp/apt.conf apt-get update", "APT_CONFIG=./x.conf sudo apt-get install foo",
    "sudo APT_CONFIG=x.conf apt install foo", "env APT_CONFIG=x.conf apt-get update",
    "export APT_CONFIG=x.conf; apt-get update", "APT_CONFIG=\"$C\" apt-get update",
])
def test_an_apt_config_file_from_the_environment_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "ssh -I /tmp/lib.so host ls", "ssh -I/tmp/lib.so host", "ssh -vI lib.so host ls",
    "ssh -o PKCS11Provider=/tmp/x.so host ls", "ssh -o 'PKCS11Provider /tmp/x.so' host",
    "ssh -oSecurityKeyProvider=./sk.so host", "ssh host -o pkcs11provider=x.so ls",
    "scp -o PKCS11Provider=x.so a host:b", "sftp -o SecurityKeyProvider=x.so host",
    "ssh -F ./ssh_config host ls", "ssh -Fcfg host",
])
def test_ssh_loading_a_library_or_config_file_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "ctest -S dashboard.cmake", "ctest -SP x.cmake", "ctest -V -S x.cmake,Debug",
    "ctest --script x.cmake", "ctest --script-new-process x.cmake", "ctest -Sx.cmake",
])
def test_ctest_running_a_cmake_script_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "echo '[core] pager = rm x' >> .git/config", "printf x > .git/config",
    "cat <<'EOF' >> .git/config\n[alias]\n\tx = !rm v\nEOF", "echo x >> ../repo/.git/config",
    "echo x | tee -a .git/config", "tee .git/config < new", "echo x | sudo tee -a .git/config",
    "echo 'rm v' > .git/hooks/pre-commit", "cp hook .git/hooks/pre-commit", "cp cfg .git/config",
    "mv x .git/hooks/post-checkout", "echo x >> ~/.gitconfig", "echo x >> ~/.config/git/config",
    "cp config .git/", "install -m 755 h .git/hooks/pre-push", "cp -t .git/hooks a b",
    "dd of=.git/config", "echo x >> \"$d\"/.git/config",
])
def test_writing_git_config_or_a_hook_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "git -C sub config core.pager 'rm x'", "git -C sub config alias.x '!rm x'",
    "git -C \"$d\" config --global core.sshCommand 'rm x'",
])
def test_git_config_after_a_directory_option_is_read_like_git_config(command: str) -> None:
    assert action_under_deny_rm(command) == "deny", command


@pytest.mark.parametrize("command", [
    "GIT_CONFIG_PARAMETERS+=\"'core.pager'='rm x'\" git log",
    "GIT_CONFIG_PARAMETERS+=\" 'core.pager'='rm x'\" git log",
    "export GIT_CONFIG_PARAMETERS+=\"'core.sshCommand'='rm x'\"; git fetch",
    "GIT_CONFIG_PARAMETERS=\"'a.b'='c'\" GIT_CONFIG_PARAMETERS+=\" 'core.pager'='rm x'\" git log",
    "GIT_SSH+=/bin/rm git fetch", "GIT_SSH=/usr GIT_SSH+=/bin/rm git fetch",
])
def test_an_append_to_a_git_command_variable_is_read_like_an_assignment(command: str) -> None:
    assert action_under_deny_rm(command) == "deny", command


@pytest.mark.parametrize("command", [
    "GIT_SSH+=m git fetch", "GIT_SSH=r; GIT_SSH+=m git fetch",
    "GIT_CONFIG_PARAMETERS+=\"'core.hooksPath'='h'\" git commit",
])
def test_an_append_to_a_value_not_shown_is_asked_about(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "apt-get update", "sudo apt-get install -y foo", "APT_CONFIG=/dev/null apt-get update",
    "LANG=C apt-cache policy foo", "ssh host ls", "ssh -i ~/.ssh/key -p 2222 host uptime",
    "ssh -o StrictHostKeyChecking=no host ls", "ssh -J jump host ls", "ssh -V",
    "ctest", "ctest -N", "ctest --output-on-failure -j4", "ctest -R unit -V",
    "cat .git/config", "cp .git/config /tmp/config.bak", "grep -n url .git/config",
    "git config --get remote.origin.url", "git -C sub config --get user.name",
    "echo x >> .gitignore", "echo x > config", "tee out.txt < in", "cp a .github/workflows/",
    "GIT_CONFIG_PARAMETERS=\"'color.ui'='auto'\" git log", "GIT_SSH=/usr/bin/ssh git fetch",
])
def test_everyday_forms_still_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command
