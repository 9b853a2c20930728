"""A command given to a long option is seen under any prefix GNU getopt accepts.

review21 02 and fresh21 #18: under ``--mode auto --deny 'shell(rm *)'``, ``env --split='rm
-rf y'`` / ``env --s=…`` (getopt_long takes an unambiguous prefix of ``--split-string``),
``flock --comm='rm y'``, ``su --comm …``, ``tar --to-comm=…`` ran, and so did coreutils'
options that run a program: ``split --filter='rm f' in`` (run by the shell) and ``sort
--compress-program=rm``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import action_under_deny_rm as verdict

DENIED = [
    "env --split='rm -rf y'", "env --s='rm -rf y'", "env --spl='rm y' x", "env --split-s 'rm y'",
    "env --u HOME --s 'rm y'", "env --un=HOME --s='rm y'", "env --ch /tmp -S 'rm y'",
    "flock --comm='rm y' /tmp/l", "flock /tmp/l --comm 'rm y'", "su --comm='rm y'",
    "su bob --command 'rm y'", "runuser -u b --comm 'rm y'", "script -q --comm 'rm y' log",
    "npx --call='rm y'", "tar --to-comm='rm y' -xf a.tar", "rsync --rsync-p='rm y' a b:",
    "zip --unzip-c='rm y' -T a.zip x", "tar --checkpoint-act=exec='rm y' -cf a .",
    "split --filter='rm f' in", "split --filt='rm f' in", "split -l 1 --filter 'rm $FILE' in",
    "sort --compress-program=rm in", "sort --compress-prog=rm in", "sort --compress-pro rm in",
    "install -s --strip-program=rm a b", "man -P 'rm f' ls", "man --pager='rm f' ls",
    "sdiff --diff-program=rm a b", "diff3 --diff-prog=rm a b c", "tar --rsh-command=rm -cf h:a .",
    "wget --use-askpass='rm f' http://x",
]


@pytest.mark.parametrize("command", DENIED)
def test_a_command_given_to_a_long_option_prefix_is_denied(command: str) -> None:
    assert verdict(command) == "deny", command


EVERYDAY = ["env --unset HOME ls", "env --chdir /tmp ls", "split -l 100 big.txt part_",
            "sort --compress-program=gzip -S 1M big.txt", "sort -u --stable f",
            "split --filter='gzip > $FILE.gz' in", "flock /tmp/l --command 'make'",
            "tar --to-command='cat' -xf a.tar", "man -P cat ls", "install -m 644 a b"]


@pytest.mark.parametrize("command", EVERYDAY)
def test_other_commands_still_run(command: str) -> None:
    assert verdict(command) == "run", command


def test_run_keeps_the_file_a_prefixed_option_would_remove(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir.parent / "in.txt").write_text("a\nb\n")
    commands = ["env --s='rm -f v1'", "split --filter='rm -f v2' ../in.txt",
                "sort --compress-prog=rm -S 1 ../in.txt v3"]
    run_auto_denying_rm(fake_model, workdir, capsys, commands)


@pytest.mark.parametrize("command", ["make --fil=- <<< 'x:=$(shell rm -rf y)'",
                                     "make --fil - <<< x", "make --makef=/dev/stdin <<< x",
                                     "gawk --fi /dev/stdin <<< x"])
def test_a_program_file_from_stdin_under_a_long_option_prefix_is_asked(command: str) -> None:
    assert verdict(command) == "ask", command
