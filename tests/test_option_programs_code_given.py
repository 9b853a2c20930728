"""Programs that run a shell line or code given on their command line ask under a deny rule.

Round 31 (test31c): in auto mode under ``shell(rm *)`` these ran — ``lldb -o 'platform shell rm
x'``, ``echo 'syscmd(rm x)' | m4``, ``gnuplot -e 'system "rm x"'``, ``git filter-repo
--blob-callback CODE``, ``rustc -C linker=rm a.rs``, ``RUSTFLAGS='-C linker=rm' cargo build``,
``gcc -Wl,-plugin=x.so``, ``make CFLAGS=-fplugin=x.so``, ``CFLAGS=-fplugin=x.so make``,
``GOFLAGS=-toolexec=./x go test`` — while their siblings (``gdb -ex 'shell …'``, ``go build
-toolexec``, ``-Wl,--plugin=``, ``make CC='gcc -fplugin=x.so'``) asked. Everyday builds run.
"""

from __future__ import annotations

import pytest
from rules_support import check_under_deny_rm, deny_rm_cases

from goosectx.build_flags import flags_run


@pytest.mark.parametrize(("command", "expected"), deny_rm_cases(denied=(), asked=(
    "lldb -o 'platform shell rm x'",
    """lldb -o 'script import os; os.system("rm x")'""",
    "lldb --one-line 'platform shell rm x' ./a.out",
    "echo 'syscmd(rm x)' | m4",
    "m4 <<'EOF'\nesyscmd(rm x)\nEOF",
    """gnuplot -e 'system "rm x"'""", "gnuplot -e '!rm x'", """gnuplot -e 'plot "< rm x"'""",
    "gnuplot -e 'load \"x.gp\"'", "gnuplot -e 'set output \".git/hooks/pre-commit\"'",
    "gnuplot -e 'set output \"|rm x\"'",
    """git filter-repo --blob-callback 'import os; os.system("rm x")'""",
    "git filter-repo --commit-callback=pass",
    "rustc -C linker=rm a.rs",
    "rustc -Clinker=rm a.rs",
    "rustc --codegen=linker=./x a.rs",
    "RUSTFLAGS='-C linker=rm' cargo build",
    "cargo rustc -- -C linker=rm", "cargo rustc --release -- -Clinker=./x",
    "RUSTFLAGS=-Clinker=./x cargo build",
    "gcc -Wl,-plugin=x.so a.c",
    "gcc -Wl,--plugin=x.so a.c",
    "make CFLAGS=-fplugin=x.so",
    "make all CXXFLAGS='-O2 -fplugin=./x.so'",
    "CFLAGS=-fplugin=x.so make",
    "export CFLAGS=-fplugin=x.so; make",
    "env LDFLAGS=-Wl,-plugin=x.so make",
    "GOFLAGS=-toolexec=./x go test ./...",
    "GOFLAGS=-toolexec=rm go build",
    "GOFLAGS=-exec=rm go test",
    "go build -toolexec ./x",
), still_run=(
    "m4 macros.m4", "gnuplot plot.gp",
    "gnuplot -e 'set term png; set output \"a.png\"; plot x != 1 ? x : 0'",
    "git filter-repo --path src", "rustc a.rs",
    "rustc -C opt-level=3 -Clinker-plugin-lto a.rs", "cargo build",
    "cargo rustc --release -- -C opt-level=3",
    "RUSTFLAGS='-C target-cpu=native' cargo build --release", "gcc -O2 a.c -o a",
    "gcc -Wl,-rpath,/opt/lib a.c", "make", "make CFLAGS=-O2", "CFLAGS='-O2 -g' make",
    "GOFLAGS=-mod=vendor go test ./...", "go test ./...", "make CC=clang",
)))
def test_code_or_a_program_given_on_the_command_line_is_judged(command: str,
                                                               expected: str) -> None:
    check_under_deny_rm(command, expected)


@pytest.mark.parametrize(("variable", "value", "runs"), [
    ("CFLAGS", "-O2 -fplugin=x.so", True),
    ("CGO_LDFLAGS", "-Wl,-plugin,x.so", True),
    ("CARGO_ENCODED_RUSTFLAGS", "-C\x1flinker=rm", True),
    ("GOFLAGS", "-exec=./x", True),
    ("CFLAGS", "-O2 -g -Wall", False),
    ("RUSTFLAGS", "-C target-cpu=native", False),
    ("PYTHONPATH", "-fplugin=x.so", False),
])
def test_a_flags_variable_is_read_as_its_programs_options(variable: str, value: str,
                                                          runs: bool) -> None:
    assert (flags_run(variable, value) is not None) is runs
