"""An ``@path`` mention attaches the file that was checked, not what the path leads to later.

A background job flipping ``notes.txt`` between a file and a symlink to a file outside the
working dir got that file attached (and sent to the model) for some mentions: the path was
checked resolved, then opened again by name. The race is made exact with the
``mention:checked`` pause point: the path is swapped after the check, before the read. What a
user would notice: what the fake server received, and the notice on stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fakeserver import FakeServer

SECRET = "SECRET-OUTSIDE-THE-PROJECT"


def _mention_with_swap(server: FakeServer, work: Path, tmp_path: Path,
                       swap: Any) -> tuple[str, str]:
    """``goosectx run -t "look at @notes.txt"``, calling ``swap()`` between check and read.

    Returns what the model was sent (its first request's messages) and stderr.
    """
    server.add({"text": "done"})
    marker = tmp_path / "paused"
    env = {**os.environ, "GOOSECTX_TEST_PAUSE_AT": "mention:checked",
           "GOOSECTX_TEST_PAUSE_FILE": str(marker), "HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([sys.executable, "-m", "goosectx", "run", "-t",
                             "look at @notes.txt"], env=env, cwd=work,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    swap()
    marker.unlink()
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return json.dumps(server.requests[0]["messages"]), err


def _replace(path: Path, make: Any) -> None:
    """Put what ``make(tmp)`` creates at ``path`` with one rename, as the flipping job did."""
    tmp = path.with_name("n.tmp")
    make(tmp)
    os.replace(tmp, path)


def test_a_mention_swapped_for_a_symlink_outside_after_the_check_is_not_attached(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    notes = workdir / "notes.txt"
    notes.write_text("harmless notes\n")
    sent, err = _mention_with_swap(fake_model, workdir, tmp_path,
                                   lambda: _replace(notes, lambda t: os.symlink(secret, t)))
    assert SECRET not in sent and "harmless notes" not in sent
    assert f"@notes.txt changed after it was checked (it now leads to {secret}) — not attached" in err


def test_a_mention_saved_anew_in_place_after_the_check_is_still_attached(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    notes = workdir / "notes.txt"
    notes.write_text("first draft\n")
    sent, err = _mention_with_swap(fake_model, workdir, tmp_path,
                                   lambda: _replace(notes, lambda t: t.write_text("saved\n")))
    assert "saved" in sent and "not attached" not in err
