"""Compilers' and linkers' output files, and zstd's output dirs, judged as write targets.

test29c HIGH 5 and 6: under ``--deny 'shell(rm *)'`` in auto mode ``gcc --output=.git/hooks/x``,
``gcc -Wl,-o,.git/hooks/x``, ``gcc-12 -o …``, ``x86_64-linux-gnu-gcc``, ``clang-17``,
``musl-gcc``, ``ld --output=`` and ``zstd -d x.zst --output-dir-flat .git/hooks`` ran (only
``-o`` of a fixed list of names was read). Every compiler, assembler and linker the COMPILER
pattern names is read with the same options; an ordinary build still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict
from test_protected_writes_modelled import DENY, HOOK
from test_protected_writes_modelled import project as project  # the fixture: .git/hooks, src

from goosectx.permissions import PermissionRules

COMPILES = [
    f"gcc --output={HOOK} src/main.c", f"gcc --output {HOOK} src/main.c",
    f"cc --output {HOOK} src/main.c", f"gcc -Wl,-o,{HOOK} src/main.c",
    f"gcc -Wl,--output={HOOK} src/main.c", f"gcc -Xlinker -o -Xlinker {HOOK} src/main.c",
    f"gcc-12 -o {HOOK} src/main.c", f"x86_64-linux-gnu-gcc -o {HOOK} src/main.c",
    f"x86_64-linux-gnu-gcc-12 -o {HOOK} src/main.c", f"clang-17 -o {HOOK} src/main.c",
    f"musl-gcc -o {HOOK} src/main.c", f"c++ -o {HOOK} src/main.cc",
    f"g++-13 -o{HOOK} src/main.cc", f"ld --output={HOOK} x.o", f"ld.gold -o {HOOK} x.o",
    f"ld.lld -o {HOOK} x.o", f"ld.bfd -o {HOOK} x.o", f"as -o {HOOK} x.s",
]


@pytest.mark.parametrize("command", COMPILES)
def test_a_compiler_or_linker_output_in_the_git_dir_asks(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=project)
    assert verdict.action == "ask", (command, verdict.reason)
    program = command.split()[0]
    assert verdict.reason.startswith(f"{program} writes {HOOK}: a hook is a command a later git"
                                     ), verdict.reason


@pytest.mark.parametrize("command", [
    "zstd -d pre-commit.zst --output-dir-flat .git/hooks",
    "zstd -d pre-commit.zst --output-dir-mirror .git/hooks",
    "zstd -dr --output-dir-flat=.git/hooks hooks/", "unzstd x.zst --output-dir-flat .git/hooks"])
def test_zstd_output_dirs_are_judged_as_write_targets(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=project)
    assert verdict.action == "ask", (command, verdict.reason)
    assert verdict.reason.startswith(f"{command.split()[0]} writes .git/hooks: a hook"), (
        verdict.reason)


@pytest.mark.parametrize("command", [
    "gcc-12 -O2 -Wall -o build/app src/main.c", "clang-17 --output=build/app src/main.c",
    "gcc -Wl,-rpath,/opt/lib -Wl,-o,build/app src/main.c",
    "gcc -Xlinker --gc-sections -o app src/main.c", "gcc -Wl,-soname,libx.so.1 -shared x.o",
    "x86_64-linux-gnu-gcc -c src/main.c", "ld.lld -o build/app x.o", "g++-13 -o - -E x.cc",
    "zstd -d x.zst --output-dir-flat build", "zstd -r src --output-dir-mirror build/z",
])
def test_an_ordinary_build_still_runs(project: Path, command: str) -> None:
    (project / "build").mkdir()
    program = command.split()[0]
    rules = PermissionRules(allow=(f"shell({program}*)",))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
    assert verdict.action == "run", (command, verdict.reason)
    assert verdict.action == shell_verdict(DENY, command, "auto", working_dir=project).action


SIDE_FILES = [  # test29d: the files a compile writes beside its -o, each named in the reason
    ("gcc -MMD -MF .git/config -c src/a.c", ".git/config"),
    (f"gcc -MF {HOOK} -MD -c src/a.c", HOOK), ("gcc -MD -MF.git/x -c src/a.c", ".git/x"),
    ("clang -MJ .git/config -c src/a.c", ".git/config"),
    ("gcc -c src/a.c -o build/a.o -Wl,-Map=.git/config", ".git/config"),
    ("gcc -c src/a.c -Xlinker -Map=.git/config", ".git/config"),
    ("gcc -Wl,-Map,.git/config src/a.c", ".git/config"), ("ld -Map=.git/config a.o", ".git/config"),
    (f"gcc -fdump-rtl-all -dumpbase {HOOK} -c src/a.c", HOOK),
    ("gcc -fdump-rtl-all -dumpdir .git/hooks -c src/a.c", ".git/hooks"),
]


@pytest.mark.parametrize(("command", "path"), SIDE_FILES)
def test_a_dependency_map_or_dump_file_in_the_git_dir_asks(project: Path, command: str,
                                                           path: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=project)
    assert verdict.action == "ask", (command, verdict.reason)
    assert verdict.reason.startswith(f"{command.split()[0]} writes {path}"), verdict.reason
    rules = PermissionRules(allow=(f"shell({command.split()[0]}*)",))
    assert shell_verdict(rules, command, "smart_approve", working_dir=project).action == "ask"


@pytest.mark.parametrize("command", [
    "gcc -MMD -MF build/a.d -c a.c", "clang -MJ build/a.json -c a.c",
    "gcc -Wl,-Map=build/a.map -o build/app a.c", "gcc -fdump-rtl-all -dumpdir build/ -c a.c"])
def test_an_ordinary_dependency_or_map_file_still_runs(project: Path, command: str) -> None:
    (project / "build").mkdir()
    rules = PermissionRules(allow=(f"shell({command.split()[0]}*)",))
    assert shell_verdict(rules, command, "smart_approve", working_dir=project).action == "run"
    assert shell_verdict(DENY, command, "auto", working_dir=project).action == "run"


@pytest.mark.parametrize("command", [
    "gcc -fplugin=./evil.so src/main.c", "g++-13 -fplugin=/tmp/evil.so src/main.cc",
    "clang -Xclang -load -Xclang ./evil.so src/main.c", "clang-17 -fpass-plugin=./evil.so x.c",
    "gcc -Wl,-plugin,./evil.so src/main.c", "cc -Wl,--plugin=./evil.so src/main.c",
    "ld -plugin ./evil.so x.o", "gcc -specs=./evil.specs src/main.c",
])
def test_a_plugin_the_compiler_loads_asks(project: Path, command: str) -> None:
    # its code runs in the compiler: gcc -fplugin=x.so may rm -rf under a shell(rm *) deny rule
    verdict = shell_verdict(DENY, command, "auto", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert "runs another program" in verdict.reason, verdict.reason
    allowed = shell_verdict(PermissionRules(allow=("shell(gcc*)", "shell(clang*)", "shell(cc*)",
                                                   "shell(g++*)", "shell(ld*)")),
                            command, "smart_approve", working_dir=project)
    assert allowed.action == "ask", allowed.reason


@pytest.mark.parametrize("command", [
    "gcc -fplugin-arg-x-y=1 -O2 -o build/main src/main.c", "gcc -flto -o build/main src/main.c",
    "clang -Xclang -ast-dump -fsyntax-only src/main.c", "gcc -Wl,-Bstatic -o build/m src/main.c",
])
def test_a_build_loading_no_plugin_still_runs(project: Path, command: str) -> None:
    assert shell_verdict(DENY, command, "auto", working_dir=project).action == "run"
