"""Shell rules read the commands tmux, screen, expect, fd -x and make --eval are given.

fresh20c findings 16 and 17: with ``--mode auto --deny 'shell(touch *)'`` the command
``tmux new-session -d 'touch PWN'`` ran and made its file (so did ``tmux new-window``,
``screen -dm sh -c …``, ``expect -c 'spawn …'``), and under ``--deny 'shell(rm *)'``
``fd x -x rm`` and ``make --eval='t: ; rm x' t`` ran. Finding 5: ``env -S 'python3 -u' x.py``
was asked about (read as ``python3 -u`` reading standard input) while ``env python3 -u
x.py`` ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import ALLOW_ALL_DENY_RM, DENY_RM
from rules_support import action as verdict

from goosectx.permissions import suggested_rule


def test_run_denies_the_rm_that_make_eval_and_tmux_would_run(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["make --eval='t: ; rm -f v1' t", "make -E 't: ; rm -f v2' t",
                "tmux -L goosectx-test-v3 new-session -d 'rm -f v3'",
                "fd v4 -x rm -f", "fd -X rm -f"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == len(commands)
    assert ["needs approval" in a for a in answers[:2]] == [True, True], answers
    assert all("permission rule" in a for a in answers[2:]), answers


def test_run_asks_about_the_eval_makeflags_gives_make(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["MAKEFLAGS='--eval=t:\\ ;\\ rm\\ -f\\ v1' make t",
                "export GNUMAKEFLAGS='Et:\\ ;\\ rm\\ -f\\ v2'; make t"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert ["needs approval" in a for a in answers] == [True, True], answers


# fresh21 findings 7 and 8, review21 finding 1: fd's second -x/-X command, tmux's default
# aliases (splitp, split-pane) and detach-client -E, byobu-tmux, dtach, abduco and zellij run
# ran a denied rm unread (real tmux 3.3a removes the file through splitp).
def test_run_denies_the_rm_of_a_second_fd_exec_and_other_terminals(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["fd . -x echo {} \\; -x rm -f v1", "fd . --exec echo ';' --exec-batch rm -f v2",
                "tmux -L goosectx-test-v3 -f /dev/null new -d \\; splitp 'rm -f v3'",
                "tmux -L goosectx-test-v4 split-pane 'rm -f v4'",
                "tmux -L goosectx-test-v5 detach-client -E 'rm -f v5'",
                "byobu-tmux new-session -d 'rm -f v6'", "dtach -n /tmp/gx-v7 rm -f v7",
                "abduco -n gx-v8 rm -f v8", "zellij run -- rm -f v9"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == len(commands)
    assert all("permission rule" in a for a in answers), answers


# fresh21 finding 1, review21 finding 3: a make variable set on the command line or in
# MAKEFLAGS/GNUMAKEFLAGS holds make code make runs at once (x:=$(shell …), x!=…; real make
# 4.3 removes the file with no makefile at all) and ran under --deny 'shell(rm *)'.
def test_run_asks_about_make_variables_whose_text_runs_commands(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["make 'x:=$(shell rm -f v1)'", "make 'x!=rm -f v2'", "make -- 'x::=$(shell rm -f v3)'",
                "GNUMAKEFLAGS='x:=$(shell rm -f v4)' make", "make MAKEFLAGS='x:=$(shell rm -f v5)'"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert ["needs approval" in a for a in answers] == [True] * len(commands), answers


DENIED = [  # read like sh -c: the rm is seen, and denied
    "tmux new-session -d 'rm x'", "tmux new -d rm x", "tmux new-window 'rm x'",
    "tmux neww -t s:1 -n w 'rm x'", "tmux split-window -h -l 20 'cd /tmp && rm x'",
    "tmux respawn-pane -k 'rm x'", "tmux run-shell -b 'rm x'", "tmux pipe-pane -o 'rm x'",
    "tmux display-popup -E 'rm x'", "tmux if-shell 'rm x'", "tmux -L sock new -d 'rm x'",
    "tmux new -d -s a ls \\; new-window 'rm x'", "tmux new -d 'ls;' neww 'rm x'",
    "tmux new -d ls; tmux new-window 'rm x'",
    "tmux -c 'rm x'", "byobu new-session -d 'rm x'", "screen -dm sh -c 'rm x'",
    "screen -dmS build rm x", "screen -d -m -S build -- rm x", "fd x -x rm", "fd -e py -X rm",
    "fd --exec rm {}", "fd --exec-batch rm", "fd -Hx rm {}", "fd -xrm", "fdfind x -x rm",
    "find . -exec rm {} +", "sudo tmux new -d 'rm x'", "ssh host tmux new -d \"'rm x'\"",
    "nohup screen -dm rm x", "env -S 'rm -f' x", "env -S '#comment' rm x",
    "rg --pre rm x", "rg --pre=rm x", "rg -i x --pre /bin/rm", "rg --pre=/bin/rm x",
    "sudo rg --pre rm x", "fd . -x echo {} \\; -x rm {}", "fd -e tmp -x echo \\; --exec rm -f",
    "fdfind -x echo {} ';' -X rm -rf", "fd -xecho {} ';' -Xrm", "fd -X echo ';' --exec=rm",
    "tmux new -d -s s \\; splitp 'rm x'", "tmux split-pane -t s 'rm x'", "tmux splitp rm x",
    "tmux detach-client -E 'rm x'", "tmux detach -E'rm x'", "byobu-tmux new-session -d 'rm x'",
    "byobu-screen rm x", "dtach -n /tmp/s rm x", "dtach -A /tmp/s -z -e ^q rm x",
    "dtach -c s -r winch rm x", "abduco -n s rm x", "abduco -e ^q -c s rm x",
    "abduco -fA s rm x", "zellij run -- rm x", "zellij run -c rm x", "zellij -s x r -f rm x",
    "zellij r --cwd /tmp -- rm x", "zellij action new-pane -- rm x",
]
ASKED = [  # what they would run cannot be read
    "make --eval='t: ; rm x' t", "make -E 't: ; rm x' t", "make --ev=x t", "make -sE x t",
    "tmux send-keys -t s 'rm x' Enter", "tmux send 'rm x' Enter", "tmux source-file x.conf",
    "tmux new -d \\; source x.conf", "tmux run-shell -C 'kill-server'",
    "tmux if-shell true 'new-window ls'", "tmux new-s 'rm x'", "tmux -f evil.conf new -d",
    "tmux -C", "tmux display-message -p '#(rm x)'", "tmux set -g status-right '#(rm x)'",
    "tmux bind-key r run-shell 'rm x'", "tmux choose-tree 'run-shell \"rm x\"'",
    "tmux new -d -e 'PROMPT_COMMAND=rm x' bash", "tmux setenv -g BASH_ENV /tmp/x.sh",
    "screen -S s -X stuff 'rm x\\n'", "screen -c x.rc",
    "expect -c 'spawn rm x'", "expect", "expect -", "expect -f /dev/stdin", "expect -i",
    "MAKEFLAGS=--eval=x make", "MAKEFLAGS='--eval=t: ; rm x' make t", "make MAKEFLAGS=--eval=x",
    "make 'MAKEFLAGS+=-E x' t", "MAKEFLAGS='Et:\\ ;\\ rm\\ x' make t", "GNUMAKEFLAGS='-sE x' make",
    "export MAKEFLAGS=--ev=x; make", "env MAKEFLAGS=--eval=x make", "MAKEFLAGS='-s --eval x' make",
    "rg --pre $X x", "rg --pre=$X x", "rg '--pre=$(echo rm)' x", "rg --pre='r*' x",
    "tmux kill-ses -t x", "tmux newsession x", "tmux splitp -t s \\; neww-x", "dtach -p /tmp/s",
    "abduco -p s", "zellij action write-chars 'rm x'", "zellij ac write 114 109",
    "make 'x:=$(shell rm x)'", "make X='$(shell rm x)' t", "make 'x!=rm x'", "make 'x=${shell rm x}'",
    "make 'x$(shell rm y)=1'", "gmake -- 'x::=$(shell rm x)'", "MAKEFLAGS='x:=$(shell rm y)' make",
    "MAKEFLAGS='-- x:=$(shell rm y)' make", "make MAKEFLAGS='-s x:=$(shell rm y)'",
    "CC='$(shell rm x)' make", "env CC='$(shell rm x)' make all", "env -i X='$(shell rm x)' gmake",
]
STILL_RUN = [
    "tmux ls", "tmux attach -t build", "tmux kill-session -t build", "tmux has-session -t x",
    "tmux new-session -d -s build 'make -j4'", "tmux capture-pane -p -t build",
    "screen -ls", "screen -dmS build make", "expect deploy.exp", "expect -v",
    "sudo tmux new -d 'make'", "tmux new -d 'echo\\;' 'ls x'", "tmux new -d -e PS1='> '",
    "fd -e py x",
    "fd x -x echo {} ';' -e rm", "make -j4 test", "make -f Makefile all",
    "env -S 'python3 -u' x.py", "env -S 'make -j2'", "env python3 -u x.py",
    "env --split-string='python3 -u' x.py", "env -iS 'python3 -u' x.py",
    "MAKEFLAGS=-j4 make", "make MAKEFLAGS=-s", "MAKEFLAGS='-j4 --no-print-directory' make",
    "MAKEFLAGS='s -- EXTRA=-E' make", "rg --pre pdftotext x", "rg --pre=./pre.sh x",
    "rg --pre-glob '*.pdf' x", "rg -e rm x", "fd -x echo {} ';' -x wc -l", "tmux detach",
    "tmux splitp 'make'", "tmux list-sessions", "tmux info", "tmux show-messages",
    "dtach -a /tmp/s", "dtach -n /tmp/s make", "abduco", "abduco -a s", "zellij",
    "zellij attach x", "zellij run -n build -- make", "byobu-tmux ls", "make CC=clang",
    "make -j4 PREFIX=$HOME/.local install", "make V=1 test", "make CFLAGS='-O2 -g'",
    "make DESTDIR=\"$PWD/out\" install", "make PREFIX=${HOME}/x", "CC=clang make",
    "PREFIX=$HOME make install", "X='$(shell rm f)' ls", "X='x!=rm f' make",
]


@pytest.mark.parametrize("command", DENIED)
def test_a_deny_rule_sees_the_command_they_start(command: str) -> None:
    assert verdict(DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", ASKED)
def test_what_the_rules_cannot_read_is_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command
    assert verdict(ALLOW_ALL_DENY_RM,
                   command) == "ask", command


@pytest.mark.parametrize("command", STILL_RUN)
def test_their_everyday_commands_still_run_under_a_deny_rule(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


def test_no_command_prefix_rule_is_offered_for_them() -> None:
    for command in ("tmux new -d 'make'", "tmux ls", "screen -dmS b make", "expect x.exp",
                    "fd -x wc -l", "make --eval='x: ; ls' x", "rg --pre pdftotext x"):
        assert suggested_rule("shell", {"command": command}) is None, command
    # make CC='rm f': only the command as it is, no prefix rule
    assert suggested_rule("shell", {"command": "make -j4 test"}) == "shell(make -j4 test)"


@pytest.mark.parametrize("command", [  # fresh21 #28: they print how a name runs, run nothing
    "command -v python3 >/dev/null && echo y", "command -V python3", "command -pv rm"])
def test_command_v_runs_nothing(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


@pytest.mark.parametrize("command", [  # fresh21 #31: env -a ARG0 (coreutils 9.5's --argv0)
    "env -a foo rm -f v", "env -afoo rm -f v", "command -v ls; rm -f v", "command -p rm -f v"])
def test_a_command_behind_env_a_or_command_p_is_read(command: str) -> None:
    assert verdict(DENY_RM, command) == "deny", command


@pytest.mark.parametrize(("plain", "starts"), [
    ("fd -e py", "fd -e py -x rm -rf {}"), ("fdfind -e py", "fdfind -e py -X rm -rf"),
    ("find . -name x", "find . -name x -exec rm -rf {} +"), ("rg foo", "rg --pre rm foo")])
def test_a_plain_search_gets_no_prefix_rule_that_would_allow_what_it_can_start(
        plain: str, starts: str) -> None:
    # review21 #11: "always allow" on a plain `fd -e py` saved shell(fd*), which then ran
    # `fd -e py -x rm -rf {}` unasked in approve mode
    # (a prefix rule allows every command it starts: `starts`)
    assert suggested_rule("shell", {"command": plain}) is None
    assert suggested_rule("shell", {"command": starts}) is None


@pytest.mark.parametrize("command", [  # fresh22 #04, #05: they run the command after their options
    "ssh-agent rm -f v", "ssh-agent -a /tmp/s -t 60 rm -f v", "ssh-agent -c -- rm -f v",
    "logsave -a log rm -f v", "logsave /dev/null rm -f v", "logsave -asv log sudo rm -f v",
])
def test_ssh_agent_and_logsave_commands_are_read(command: str) -> None:
    assert verdict(DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", [
    "ssh-agent -s", "ssh-agent -k", "ssh-agent make", "logsave log make", "logsave rm ls"])
def test_ssh_agent_and_logsave_otherwise_run(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


@pytest.mark.parametrize("command", ["perf ftrace rm -f v", "perf iostat -- rm -f v",
                                     "perf mem record rm -f v", "perf sched record -- rm -f v"])
def test_more_perf_subcommands_that_run_a_command_ask(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command


# round 31 (appr31c): env -S's strings are found by shell_unwrap.unwrap's walk of env's options
# (a walker of its own before); what a deny rule sees through each form is unchanged.
@pytest.mark.parametrize(("command", "expected"), [
    ("env -S 'rm x'", "deny"), ("env -S'rm x'", "deny"), ("env -iS 'rm x'", "deny"),
    ("env --split-string='rm x'", "deny"), ("env --s='rm x'", "deny"),
    ("env -u HOME -S 'rm x'", "deny"), ("env -iuHOME -S 'rm x'", "deny"),
    ("env -C /tmp -S 'rm x'", "deny"), ("env --unset HOME -S 'rm x'", "deny"),
    ("env A=1 -S 'rm x'", "deny"), ("env - -S 'rm x'", "deny"),
    ("env -S 'ls -l' -S 'rm x'", "run"),  # ls -l -S 'rm x': the later -S is ls's
    ("env -S 'python3 -u' x.py", "run"), ("env -u -S ls", "run"),  # -u takes -S: ls runs
    ("env ls -S 'rm x'", "run"),  # ls's own -S
])
def test_env_split_strings_are_read_by_the_one_walker(command: str, expected: str) -> None:
    assert verdict(DENY_RM, command) == expected, command
