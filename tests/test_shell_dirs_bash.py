"""The walk of a shell line (``shell_dirs.command_dirs``) against bash itself.

Random lines of ``cd`` (into a dir, out, to a missing one, to ``/``), ``pushd``, ``true`` /
``false``, subshells and substitutions, joined by ``&&`` ``||`` ``;`` ``|`` and newlines, with
probes that log ``$PWD`` where they run. Bash runs each line in a project under the test's
temp dir; every dir a probe ran in must be one the walk gave its part (or the walk must have
said it cannot know): a relative path is never judged from the wrong dir
(docs/architecture.md §4). A walk treating ``;`` as ``&&`` fails here with dozens of misses.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from goosectx.shell_dirs import Unknown, command_dirs

ITEMS = ("cd sub", "cd ..", "cd nothere", "cd sub/deeper", "false", "true", "cd sub/..",
         "cd ./sub", "pushd sub >/dev/null", "cd /")
JOINS = ("&&", "||", ";", "|", "&&", ";", "\n")


def _line(rng: random.Random, n: int, probes: list[int]) -> str:
    out: list[str] = []
    for i in range(n):
        r = rng.random()
        probe = f"printf 'P{len(probes)} %s\\n' \"$PWD\" >>\"$LOG\""
        if r < 0.3:
            probes.append(0)
            out.append(probe)
        elif r < 0.4 and n > 2:
            out.append("(" + _line(rng, rng.randint(1, 3), probes) + ")")
        elif r < 0.45:
            probes.append(0)
            out.append(f"echo $({probe})")
        else:
            out.append(rng.choice(ITEMS))
        if i < n - 1:
            out.append(rng.choice(JOINS))
    return " ".join(out)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_every_dir_bash_runs_a_command_in_is_one_the_walk_gives(tmp_path: Path) -> None:
    rng = random.Random(25)
    work = tmp_path / "w"
    (work / "sub" / "deeper").mkdir(parents=True)
    log = tmp_path / "log"
    env = {"LOG": str(log), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": str(tmp_path)}
    missed, judged = [], 0
    for _ in range(150):
        line = _line(rng, rng.randint(2, 7), [])
        log.write_text("")
        subprocess.run(["bash", "-c", line + "\nwait"], cwd=work, env=env, timeout=20,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        walked = {w[1].value.split()[0]: dirs for part, dirs in command_dirs(line, work)
                  if len(w := part.words) > 1 and w[0].value == "printf"}
        for row in log.read_text().splitlines():
            name, _, where = row.partition(" ")
            dirs = walked[name]
            if any(isinstance(d, Unknown) for d in dirs):
                continue
            judged += 1
            if where not in {os.path.normpath(d) for d in dirs if isinstance(d, Path)}:
                missed.append((line, name, where))
    assert not missed
    assert judged > 100  # the probes ran, and mostly where the walk knows the dir
