"""Shell rules read the command a program is given as the program reads it.

review21 findings 8, 14 and 15: under ``--mode auto --deny 'shell(rm *)'``, ``tmux new -d
$(echo rm) -rf y`` and ``fd -x$(echo rm) -rf`` ran: their words were joined into a line of
their values, which quoted the program bash computes into a literal word (real tmux 3.3a
removes the file); ``find . -exec env
-u + rm -rf {} \\;`` ran: the reader ended ``-exec`` at any ``+``, GNU find only at a ``+`` right
after ``{}``, so env's rm was never read (real find removes the file); ``screen -x sess -X
stuff 'rm -rf y^M'`` ran: the session name ``-r``/``-R``/``-x`` take was read as the program,
and the ``-X`` after it never seen (``-Q`` was not flagged at all).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import ALLOW_ALL_DENY_RM, DENY_RM
from rules_support import action as verdict


def test_run_denies_the_rm_find_runs_after_a_plus_argument(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["find . -name v1 -exec env -u + rm -f {} \\;",
                "find . -name v2 -execdir env -u + rm -f {} +"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(answers) == len(commands)
    assert all("permission rule" in a for a in answers), answers


def test_run_asks_about_a_tmux_program_bash_computes(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["tmux -L goosectx-test-c1 -f /dev/null new -d $(echo rm) -f v1",
                "tmux -L goosectx-test-c2 -f /dev/null new -d -s s env $X rm -f v2"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
    answers = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert ["needs approval" in a for a in answers] == [True, True], answers


DENIED = [  # the rm is read, and denied
    "find . -name victim -exec env -u + rm -rf {} \\;", "find . -execdir env -u + rm -rf {} +",
    "find . -exec rm {} +", "find . -exec rm -f {} \\;", "find . -ok echo + \\; -exec rm {} +",
    "find . -exec rm {}x + \\;", "screen -R sess rm -rf y", "screen -d -R sess rm x",
    "screen -R s -S rm -rf y", "screen -x s -- rm x", "screen -dmS build rm x",
    "tmux new -d rm -rf y", "tmux new -d -s s rm -f \"$HOME/x\"", "tmux new -d ls \\; neww rm x",
    "tmux new -d rm -f y\\;", "tmux new -d nice -n 5 rm x", "fd -xrm -rf", "fd --exec=rm {}",
    "fd -x echo {} \\; -xrm -f",
]
ASKED = [  # what they would run cannot be read
    "screen -x sess -X stuff 'rm -rf y^M'", "screen -r sess -X exec rm -rf y",
    "screen -R sess -X screen rm -rf y", "screen -S s -Q stuff 'rm x'", "screen -Q windows",
    "screen -dr sess -X quit", "screen -d -r sess -Q select 1", "screen -rX stuff x",
    "screen -t title -X stuff x", "screen -tX title stuff x", "screen -r s -S t -X stuff x",
    "screen -x s -c x.rc", "tmux new -d $(echo rm) -rf y", "tmux new -d $X -rf y",
    "tmux new -d `echo rm` -rf y", "tmux new -d {rm,-rf} y", "tmux new -d r? -rf y",
    "tmux new -d env $X -rf y", "tmux new -d ls \\; neww $X -rf y", "tmux splitp $X -rf y",
    "tmux new -d $X -rf y\\;", "byobu new -d $X y", "fd -x$(echo rm) -rf", "fd --exec=$X -rf",
    "fd -X$X", "fd -xenv $X -rf", "fd -Hxr* {}", "fd -x echo \\; -x$X {}",
]
STILL_RUN = [
    "find . -name '*.pyc' -exec echo + {} \\;", "find . -ok echo {} + \\;",
    "find . -exec echo {} + -print", "screen -r build", "screen -x build", "screen -R build",
    "screen -dr build", "screen -S build -dm make", "screen -ls", "screen -c /dev/null -dm make",
    "tmux new -d -s b make -j4", "tmux new -d 'echo $HOME'", "tmux new -d -s b npm run dev -- $P",
    "fd -x echo {}", "fd -xecho {}", "fd -e py -x wc -l \"$F\"", "fd -Hx'r*' {}",
]


@pytest.mark.parametrize("command", DENIED)
def test_a_deny_rule_sees_the_command_they_are_given(command: str) -> None:
    assert verdict(DENY_RM, command) == "deny", command


@pytest.mark.parametrize("command", ASKED)
def test_a_command_the_rules_cannot_read_is_asked_about(command: str) -> None:
    assert verdict(DENY_RM, command) == "ask", command
    assert verdict(ALLOW_ALL_DENY_RM,
                   command) == "ask", command


@pytest.mark.parametrize("command", STILL_RUN)
def test_their_everyday_commands_still_run_under_a_deny_rule(command: str) -> None:
    assert verdict(DENY_RM, command) == "run", command


@pytest.mark.parametrize(("command", "expected"), [  # fresh22 #24: cmake -E runs a command
    ("cmake -E env rm -f v", "deny"), ("cmake -E env --unset=X CC=gcc -- rm -f v", "deny"),
    ("cmake -E time sudo rm -f v", "deny"), ("cmake -E chdir /tmp rm -f v", "deny"),
    ("cmake -E env X=1 $CMD v", "ask"), ("cmake -P /dev/stdin <<<'file(REMOVE v)'", "ask"),
    ("cmake -E env CC=gcc make", "run"), ("cmake -E chdir rm ls", "run"),
    ("cmake -DX=1 -P build.cmake", "run"), ("cmake -E echo rm", "run"),
    ("cmake --build build -j4", "run"), ("cmake -S . -B build", "run"),
])
def test_cmake_e_commands_that_run_a_command_are_read(command: str, expected: str) -> None:
    assert verdict(DENY_RM, command) == expected, command
