"""The seventh tester's approval bypasses under allow rules: each asks now, and the everyday
spellings next to it still run."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(git log*)", "shell(sort*)", "shell(go test*)",
                               "shell(rg*)"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / ".env").write_text("K=1\n")
    (work / "notes.txt").write_text("b\na\n")
    return work


@pytest.mark.parametrize("command", [
    # git log -L's file glued to the option printed a committed .env
    "git log -1 -L1,1:.env", "git log -1 -L:RE:.env", "git log -L :RE:.env",
    "git log -L1,1:'.env'",
    # an interpreter as sort's compressor runs sort's data as a program
    "sort -S 16k --compress-program=python3 notes.txt", "sort --compress-prog=./x notes.txt",
    "sort --compress-program perl notes.txt",
    # go's package pattern before the tool flags hid them
    "go test -ldflags=all=-extld=touch ./...", "go test -ldflags 'all=-extld=touch' ./...",
    "go test '-ldflags=./...=-extld=x' ./...", "go test -gcflags=all=-importcfg=../x ./...",
    # rg 14 runs --hostname-bin's program
    "rg TODO --hostname-bin=python3 src", "rg TODO --hostname-bin python3 src",
])
def test_the_bypass_asks(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "ask"


@pytest.mark.parametrize("command", [
    "git log -L1,5:src/a.py", "git log -L :main:src/a.py", "git log --oneline -5",
    "sort -n notes.txt", "sort -u notes.txt", "go test -ldflags='all=-s -w' ./...",
    "go test -gcflags='all=-N -l' ./...", "go test -ldflags='-s -w -X main.v=1' ./...",
    "rg TODO src", "rg -n TODO src",
])
def test_the_everyday_spelling_runs(project: Path, command: str) -> None:
    assert shell_verdict(RULES, command, "smart_approve", working_dir=project).action == "run"
