"""A deny rule for a program catches an awk program that runs commands however it spells it
(docs/architecture.md §4, permission rules: inline code that runs commands).

``shell(rm *)`` in deny asked about ``awk '{print | "sh"}'`` but let ``awk '{print | c}'``,
``awk '{print |& "cat"}'``, ``awk '{print | $1}'``, a second ``-e`` and ``--source=`` run: the
check matched words of the program against a list, not awk's reading of it
(:mod:`goosectx.awk_program`). Now every program text awk is given is read as awk reads it.
"""

from __future__ import annotations

import pytest
from rules_support import check_under_deny_rm, deny_rm_cases

from goosectx.awk_program import awk_commands, awk_runs


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(
    denied=[
        "awk 'BEGIN{system(\"rm -rf x\")}'", "awk '{print | \"rm x\"}' f",
        "awk 'BEGIN{\"rm x\" | getline}'", "gawk 'BEGIN { system( \"rm x\" ) }'",
        "awk 'BEGIN{print \"y\" |& \"rm -i x\"}'", "awk -e 'BEGIN{}' -e '{system(\"rm x\")}' f",
        "awk 'BEGIN{system(\"ls; rm x\")}'",
    ],
    asked=[
        "awk '{print |& \"cat\"}' f", "awk --source='{print | \"sh\"}' f",
        "awk -v a=1 -e 'BEGIN{}' -e '{print | \"sh\"}' f", "awk '{c=\"sh\"; print | c}' f",
        "awk '{print|c}' c=sh f", "awk '{print | $1}' f", "gawk '{c | getline}' f",
        "awk '{ $1 |& getline x }' f", "awk -F: -- '{print|c}' f", "awk --source '{print|c}' f",
        "awk -e '{print|c}' f", "mawk -Wx '{print|c}' f", "awk 'BEGIN{f=\"system\"; @f(\"x\")}'",
        "awk '{system($0)}' f", "awk 'BEGIN{system(\"r\" \"m x\")}'",
        "awk 'BEGIN{system(\"\\x72m x\")}'", "nawk '{printf \"%s\", $0 | c}' f",
        "awk -f /dev/stdin f", "gawk -e 'BEGIN{}' -f prog.awk -e '{print|c}' f",
    ],
    still_run=[
        "awk '{print}' f", "awk -F, '{print $1}' f", "awk 'a || b {print}' f",
        "awk -v x='a|b' '{print x}' f", "awk '{print}' 'a|b'", "awk -f prog.awk f",
        "awk -F'|' '{print $2}' f", "awk 'BEGIN{print \"system\"}'",
    ]))
def test_awk_programs_that_run_commands_meet_the_deny_rule(command: str, expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize(("args", "runs"), [
    (["{print}", "f"], False), (["-e", "{print}", "-e", "{print|c}"], True),
    (["--source={print|c}"], True), (["-v", "x=|", "{print x}"], False),
    (["-W", "exec", "{print|c}"], True), (["--", "{system(x)}"], True),
])
def test_awk_runs_reads_every_program_text(args: list[str], runs: bool) -> None:
    assert awk_runs(args) is runs


@pytest.mark.parametrize(("args", "lines"), [
    (["BEGIN{system(\"rm -rf x\")}"], ["rm -rf x"]),
    (["{print | \"sort -u\"; \"date\" | getline d}"], ["sort -u", "date"]),
    (["BEGIN{system(\"a\\\"b\")}"], ['a"b']), (["BEGIN{system(\"r\" \"m\")}"], []),
    (["BEGIN{print \"rm x\"}"], []), (["{print | c}"], []),
])
def test_awk_commands_are_the_plain_strings_it_runs(args: list[str], lines: list[str]) -> None:
    assert awk_commands(args) == lines
