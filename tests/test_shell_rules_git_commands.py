"""Command text git runs from its own options and environment is read like ``sh -c``'s.

fresh21 #20: under ``--mode auto --deny 'shell(rm *)'``, ``git -c core.sshCommand='rm f'
ls-remote ssh://h/x``, ``git ls-remote --upload-pack='rm f;' ./``, an ``ext::`` remote, ``git
-c core.fsmonitor='rm f' status`` and ``GIT_SSH_COMMAND='rm f' git …`` each deleted ``f``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import action_under_deny_rm as verdict

DENIED = [
    "git -c core.sshCommand='rm f' ls-remote ssh://h/x", "git -c core.fsmonitor='rm f' status",
    "git -c core.pager='rm f' log", "git -c core.editor='rm f' commit",
    "git -c diff.external='rm f' diff", "git -c diff.x.textconv='rm f' diff",
    "git -c filter.x.smudge='rm f' checkout .", "git -c credential.helper='!rm f' fetch",
    "git -c sequence.editor='rm f' rebase -i", "git -c alias.x='!rm f' x",
    "git -c pager.log='rm f' log", "git ls-remote --upload-pack='rm f;' ./",
    "git fetch --upload-p 'rm f;' ./", "git push --receive-pack='rm f' o",
    "git archive --remote=o --exec='rm f' HEAD", "git rebase -x 'rm f' HEAD~2",
    "git bisect run rm f", "git submodule foreach 'rm f'",
    "GIT_SSH_COMMAND='rm f' git ls-remote ssh://h/x", "GIT_SSH=/bin/rm git fetch",
    "GIT_EXTERNAL_DIFF='rm f' git diff", "GIT_PAGER='rm f' git log", "PAGER='rm f' git log",
    "GIT_EDITOR='rm f' git commit", "EDITOR='rm f' git commit", "VISUAL='rm f' git commit",
    "env GIT_SSH_COMMAND='rm f' git fetch", "export GIT_PAGER='rm f'; git log",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm f' git log",
    "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm f'\" git log",
    "git config alias.x '!rm f' && git x", "git clone -u 'rm f;' ./a b",
    "git grep -O'rm f' x", "git grep --open-files-in-pager='rm f' x",
    "git send-email --to-cmd='rm f' p.patch", "git difftool --extcmd 'rm f'", "SYSTEMD_PAGER='rm f' journalctl -u x", "git config --local core.pager 'rm f'; git log",
]
ASKED = ["git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% f'",
         "git ls-remote 'ext::sh -c rm% f'", "git -c core.hooksPath=hooks commit -m x",
         "git -c include.path=x.cfg status", "git --config-env=core.pager=P log",
         "git --exec-path=/tmp/x status",
         # a config file the line points git to, which may set core.pager, a ! alias …
         "GIT_CONFIG_GLOBAL=/tmp/c git log", "GIT_CONFIG_SYSTEM=/tmp/c git log",
         "env GIT_CONFIG_GLOBAL=/tmp/c git log", "export GIT_CONFIG_GLOBAL=/tmp/c; git log",
         "GIT_CONFIG=/tmp/c git config --get x", "GIT_DIR=/tmp/x/.git git log",
         "git --git-dir=/tmp/x/.git log", "git --git-dir /tmp/x/.git log",
         # env-given keys read like -c's
         "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=/tmp/c git log",
         "GIT_CONFIG_PARAMETERS=\"'include.path'='/tmp/c'\" git log",
         "git --config-env=include.path=P log", "git --config-env core.hooksPath=P commit"]


@pytest.mark.parametrize("command", DENIED)
def test_a_command_git_runs_from_its_options_or_environment_is_denied(command: str) -> None:
    assert verdict(command) == "deny", command


@pytest.mark.parametrize("command", ASKED)
def test_what_git_would_run_from_unreadable_text_is_asked(command: str) -> None:
    assert verdict(command) == "ask", command


EVERYDAY = ["git -c user.name=x -c user.email=x@y commit -m 'rm dead code'",
            "git -c core.pager=cat log", "git -c color.ui=always diff",
            "git -c core.hooksPath=/dev/null commit -m x", "git -c core.fsmonitor=false status",
            "git -c credential.helper= fetch", "git -c credential.helper=store push",
            "GIT_PAGER=cat git log", "GIT_EDITOR=true git rebase --continue",
            "GIT_SEQUENCE_EDITOR=\"sed -i 's/pick/squash/'\" git rebase -i HEAD~3",
            "EDITOR=nano git commit", "GIT_SSH_COMMAND='ssh -i ~/.ssh/k' git fetch",
            "git log --exec-path", "git -c alias.st=status st", "git rebase -i HEAD~2",
            "git -c protocol.file.allow=always submodule update --init",
            "git -c url.https://github.com/.insteadOf=git@github.com: clone x",
            "git config --global core.editor 'code --wait'", "git config user.name 'A B'",
            "git grep -O x", "git clone --depth 1 https://x/y.git", "git rebase --exec 'make test' main",
            "git log", "GIT_CONFIG_GLOBAL=/dev/null git log", "GIT_CONFIG_NOSYSTEM=1 git log",
            "GIT_DIR=.git git log", "git --git-dir=.git log", "git -c user.name=x commit -m y",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x git commit -m y",
            "git --config-env=user.name=NAME commit -m y"]


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_git_still_runs(command: str) -> None:
    assert verdict(command) == "run", command


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_run_keeps_the_files_git_command_strings_would_remove(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    subprocess.run(["git", "init", "-q", str(workdir.parent / "repo")], check=True)
    repo = workdir.parent / "repo"
    commands = [f"git -C {repo} -c core.fsmonitor='rm -f {workdir}/v1' status",
                f"git ls-remote --upload-pack='rm -f {workdir}/v2;' {repo}",
                f"GIT_SSH_COMMAND='rm -f {workdir}/v3' git ls-remote ssh://h/x"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)


def test_an_editor_variable_is_read_as_the_editor_itself() -> None:
    # git runs the editor as a command line: vim, which may run keys it reads, is asked about
    # whether it is named directly or as git's editor
    assert verdict("EDITOR=vim git commit") == verdict("vim x.txt")
    assert verdict("git -c core.editor=nano commit") == verdict("nano x.txt") == "run"
