"""Shell rules read $'…' words, and ask where a wrapper's words are made at run time.

fresh21 findings 21, 22 and 25: under ``--mode auto --deny 'shell(rm *)'`` these deleted a
file: ``find . -name f $'-exec' rm {} +`` and ``tmux new -d 'sleep 2' $'\\x3b' neww -d 'rm f'``
($'…' kept as written), ``find . -name f {-exec,} rm {} +``, ``find … -exe[c] rm {} +`` and
``bash -? 'rm f'`` beside a file so named (bash's expansion made the option), ``echo rm f |
xargs -n2 env`` and ``xargs -I{} sh -c {}`` (the program from xargs' input), and ``find
/usr/bin -name rm -exec {} f ;`` (the found file run as the program).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import action_under_deny_rm as verdict


@pytest.mark.parametrize("command", [
    "find . -name f $'-exec' rm {} +", "find . -name f -exec true $';' -exec rm {} +",
    "tmux $'new' -d 'rm f'", "tmux new -d 'sleep 2' $'\\x3b' neww -d 'rm f'",
    "timeout $'-s' KILL 5 rm f", "find . $'-\\x65xec' rm {} +",
])
def test_ansi_c_quoted_words_are_read_as_bash_decodes_them(command: str) -> None:
    assert verdict(command) == "deny"


def test_an_ansi_c_escape_not_decoded_makes_the_command_unreadable() -> None:
    assert verdict("find . $'-\\cexec' rm {} +") == "ask"
    assert verdict("echo $'a\\tb'") == "run"


@pytest.mark.parametrize("command", [
    "find . -name f {-exec,} rm {} +", "find . -name f -exec {rm,{}} +", "tmux {new,-d,'rm f'}",
    "find . -name f -exe[c] rm {} +", "bash -? 'rm f'", "tmux ne[w] -d 'rm f'",
    "timeout -[s] KILL 5 rm f", "find . -exec true [\\;] -exec rm {} +",
])
def test_a_glob_or_brace_where_a_wrapper_reads_an_option_or_command_is_asked(command: str) -> None:
    assert verdict(command) == "ask"


@pytest.mark.parametrize("command", [
    "find . -name '*.py' -exec grep -n x {} +", "timeout 5 ls *.py", "nice cp a{,.bak}",
    "ls | xargs -n1 basename", "find . -exec sh -c 'wc -l \"$1\"' _ {} \\;",
    "xargs -I{} cp {} /tmp", "git ls-files | xargs grep -n x",
])
def test_everyday_wrapper_commands_still_run(command: str) -> None:
    assert verdict(command) == "run"


@pytest.mark.parametrize("command", [
    *(f"echo rm f | xargs -n2 {w}" for w in (
        "env", "nohup", "nice", "timeout 5", "xargs", "time", "stdbuf", "setsid", "flock",
        "ionice", "chrt", "taskset", "unshare", "strace", "sh", "bash -c")),
    "echo 'rm f' | xargs -I{} sh -c {}", "echo f | xargs -I X X", "xargs --replace sh -c '{}'",
    "find /usr/bin -maxdepth 1 -name rm -exec {} \"$PWD/f\" \\;",
    "find /usr/bin -name rm -exec env {} f \\;", "fd rm /usr/bin -x {} f",
])
def test_a_program_xargs_or_find_takes_from_its_input_is_asked(command: str) -> None:
    assert verdict(command) == "ask"


def test_run_keeps_the_files_these_would_delete(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["find . -name v1 $'-exec' rm {} +", "find . -name v2 {-exec,} rm {} +",
                "touch ./-exec; find . -name v3 -exe[c] rm {} +",
                "echo rm v4 | xargs -n2 env", "echo 'rm v5' | xargs -I{} sh -c {}"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)
