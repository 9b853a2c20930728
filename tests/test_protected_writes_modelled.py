"""Writes into the git dir by programs goosectx models, which it read as no write at all.

Round 8 of the approval testers: under ``--deny 'shell(rm *)'`` in auto mode ``git mv run.sh
.git/hooks/pre-commit`` installed a live hook (a later ``git commit`` ran it), as did ``gcc -o
.git/hooks/pre-commit x.c``; ``zstd -o``, ``lz4 IN OUT``, ``docker cp``/``kubectl cp``'s local
destination, ``gh release download -O/-D`` and ``vim -c 'w! F'`` wrote there too. Each now
names what it writes, judged as ``cp``'s target is; an ordinary use still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules

DENY = PermissionRules(deny=("shell(rm *)",))
HOOK = ".git/hooks/pre-commit"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / "src").mkdir()
    (work / "run.sh").write_text("echo hi\n")
    return work


WRITERS = [
    f"git mv run.sh {HOOK}", f"git -C . mv -f run.sh {HOOK}",
    f"gcc -o {HOOK} x.c", f"cc -O2 -o {HOOK} x.c", f"clang -o {HOOK} x.c",
    f"g++ -o{HOOK} x.cc", f"ld -o {HOOK} x.o",
    f"zstd -d x.zst -o {HOOK}", f"lz4 -d x.lz4 {HOOK}",
    f"docker cp web:/app/x {HOOK}", f"kubectl cp ns/pod:/x {HOOK}",
    f"gh release download v1 -O {HOOK}", "gh release download v1 -D .git/hooks",
    f"vim -es -c 'w! {HOOK}' -c q run.sh", f"vim +'saveas {HOOK}' run.sh",
    f"vim -c 'w >> {HOOK}' run.sh",
]


@pytest.mark.parametrize("command", WRITERS)
def test_a_write_into_the_git_dir_asks_and_names_it(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY, command, "auto", working_dir=project)
    assert verdict.action == "ask", (command, verdict.reason)
    assert ".git/hooks" in verdict.reason, verdict.reason


EVERYDAY = [
    "git mv src/a.py src/b.py", "gcc -O2 -Wall -o app main.c", "gcc -fno-omit-frame-pointer -c x.c",
    "gcc -nostdlib -o build/x x.c", "zstd -d x.zst -o out.txt", "lz4 -d x.lz4 x",
    "docker cp web:/app/log.txt ./log.txt", "kubectl cp ns/pod:/x ./x",
    "gh release download v1 -D dist", "gh release download -O x.tgz",
    "vim -es -c '%s/a/b/g' -c 'w out.txt' -c q run.sh", "vim -c wq run.sh",
]


@pytest.mark.parametrize("command", EVERYDAY)
def test_an_ordinary_write_still_runs(project: Path, command: str) -> None:
    program = command.split()[0]
    rules = PermissionRules(allow=(f"shell({program}*)",))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=project)
    assert verdict.action == "run", (command, verdict.reason)
