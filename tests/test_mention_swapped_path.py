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
import sys
from pathlib import Path
from typing import Any

from fakeserver import FakeServer
from pause_support import replace_with, run_paused_at

SECRET = "SECRET-OUTSIDE-THE-PROJECT"


def _mention_with_swap(server: FakeServer, work: Path, tmp_path: Path,
                       swap: Any) -> tuple[str, str]:
    """``goosectx run -t "look at @notes.txt"``, calling ``swap()`` between check and read.

    Returns what the model was sent (its first request's messages) and stderr.
    """
    server.add({"text": "done"})
    code, _out, err = run_paused_at(
        "mention:checked", [sys.executable, "-m", "goosectx", "run", "-t", "look at @notes.txt"],
        swap, cwd=work, tmp_path=tmp_path, env={"HOME": str(tmp_path / "home")})
    assert code == 0, err
    return json.dumps(server.requests[0]["messages"]), err


def test_a_mention_swapped_for_a_symlink_outside_after_the_check_is_not_attached(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    notes = workdir / "notes.txt"
    notes.write_text("harmless notes\n")
    sent, err = _mention_with_swap(fake_model, workdir, tmp_path,
                                   lambda: replace_with(notes, lambda t: os.symlink(secret, t)))
    assert SECRET not in sent and "harmless notes" not in sent
    assert f"@notes.txt changed after it was checked (it now leads to {secret}) — not attached" in err


def test_a_mention_saved_anew_in_place_after_the_check_is_still_attached(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    notes = workdir / "notes.txt"
    notes.write_text("first draft\n")
    sent, err = _mention_with_swap(fake_model, workdir, tmp_path,
                                   lambda: replace_with(notes, lambda t: t.write_text("saved\n")))
    assert "saved" in sent and "not attached" not in err
