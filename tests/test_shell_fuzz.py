"""Differential fuzzing of the shell permission rules against real bash (tests/shell_fuzz.py,
the oracle in tests/shell_oracle.py).

A fixed-seed run of 150 generated command lines is always on: on none of them may
the rules allow what bash runs beyond ``shell(ls*)`` / ``shell(git status*)``, or let through
(neither deny nor ask) a line on which bash runs ``rm`` under ``shell(rm *)``. The long run
(thousands of lines, a new seed each time unless ``GOOSECTX_FUZZ_SEED`` is set) runs only with
``GOOSECTX_FUZZ_BASH=1``; otherwise it is reported as skipped, saying so.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
import shell_fuzz
import shell_oracle

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture(scope="module")
def bash():  # type: ignore[no-untyped-def]
    oracle = shell_oracle.Bash()
    yield oracle
    oracle.close()


def test_the_oracle_reports_what_bash_runs(bash: shell_oracle.Bash) -> None:
    def ran(line: str) -> tuple[tuple[str, ...], ...]:
        return bash.run(line, timeout_s=30).argvs  # none of these loops: a loaded CI is slow

    assert ran("l\\s -la") == (("ls", "-la"),) * 2
    assert ran("{rm,x} y")[0] == ("rm", "x", "y")
    assert ran("ls$'\\r'/x")[0] == ("ls\r/x",)  # a path: refused by `set -r`
    assert ran("ls && rm v || x") == (("ls",), ("rm", "v"), ("ls",), ("x",))
    both = bash.run("ls >/dev/null && x 2>/dev/null", timeout_s=30)
    if bash.restricted:  # no exec-reporting shim: `set -r` refuses output redirections
        assert both.blind
    else:
        assert both.argvs[:2] == (("ls",), ("x",))


def test_the_oracle_runs_no_program_it_reports(bash: shell_oracle.Bash, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    ran = bash.run(f"/bin/rm -f {victim}; command -p rm -f {victim}; echo x > {victim}",
                   timeout_s=30)
    assert ran.argvs[0][0] == "/bin/rm" and victim.read_text() == "keep"
    assert not os.listdir(bash.dir)


def test_the_oracle_runs_real_wrappers_without_running_what_they_exec(
        bash: shell_oracle.Bash) -> None:
    if "env" not in bash.wrappers.ready:
        pytest.skip("the exec-reporting shim did not come up (no C compiler, or its probes "
                    "failed): wrappers are judged by a model")
    assert bash.wrappers.run(("env", "-iS", "/bin/rm -rf v")) == [("/bin/rm", "-rf", "v")]
    assert bash.wrappers.run(("timeout", "--signal", "KILL", "5", "rm", "v")) == [("rm", "v")]
    assert shell_oracle.runs_rm([("xargs", "--max-args", "1", "rm")], bash)
    assert shell_oracle.runs_rm([("jobs", "-x", "rm", "v")], bash)  # rev20 F2
    assert not shell_oracle.runs_rm([("env", "ls", "rm")], bash)


def test_the_rules_agree_with_bash_on_where_a_shells_command_string_starts(
        bash: shell_oracle.Bash) -> None:
    """Bash's options may follow -c, and `--` or `-` ends them (fresh20b finding 2)."""
    assert bash.command_string(("-c", "--", "rm x")) == "rm x"
    assert bash.command_string(("-o", "pipefail", "-xc", "rm x")) == "rm x"
    assert bash.command_string(("script.sh",)) is None
    for line in ("bash -c -- rm x", "sh -c -x 'rm x'", "sh -c - rm",
                 "bash -o pipefail -c -- 'rm x'", "env bash -c -- rm"):
        assert shell_fuzz.check(line, bash, bash.run(line, timeout_s=30)) == [], line


def test_the_rules_agree_with_bash_on_quoted_array_values_of_declare(
        bash: shell_oracle.Bash) -> None:
    """Bash evaluates ``declare -a a='($(rm v))'`` as ``a=($(rm v))`` (fresh21 finding 5)."""
    for line in ("declare -a A='($(rm v))'", 'declare -a "A=(\\$(rm v))"',
                 "declare -a A=\\(\\$\\(rm\\ v\\)\\)", "typeset -A A='([k]=`rm v`)'",
                 "declare -ia A='(1+$(rm v))'", "declare -g -a A='($(rm v))'",
                 "readonly -a A='( $(rm v) )'", "export -a 'A=(<(rm v))'",
                 "x='($(rm v))'; declare -a A=\"$x\""):
        ran = bash.run(line, timeout_s=30)
        assert shell_oracle.runs_rm(ran.argvs, bash), (line, ran.argvs)
        assert shell_fuzz.check(line, bash, ran) == [], line


def test_the_rules_agree_with_bash_on_a_fixed_set_of_generated_lines(
        bash: shell_oracle.Bash) -> None:
    found, stats = shell_fuzz.fuzz(150, seed=21, bash=bash)
    assert stats["allowed"] >= 15 and stats["bash_ran_something"] >= 60, stats
    assert found == [], [(d.kind, d.line) for d in found]


@pytest.mark.skipif(os.environ.get("GOOSECTX_FUZZ_BASH") != "1",
                    reason="the long bash fuzz runs with GOOSECTX_FUZZ_BASH=1")
def test_the_rules_agree_with_bash_on_many_generated_lines(bash: shell_oracle.Bash) -> None:
    seed = int(os.environ.get("GOOSECTX_FUZZ_SEED") or random.randrange(1 << 30))
    cases = int(os.environ.get("GOOSECTX_FUZZ_CASES") or 5000)
    found, _stats = shell_fuzz.fuzz(cases, seed=seed, bash=bash)
    assert found == [], (seed, [(d.kind, d.line) for d in found])
