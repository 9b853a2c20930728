"""A ``text_editor view`` reads the file its approval judged, not what the path leads to later.

In smart_approve a view of an in-project file runs without asking. A background job flipping
``notes.txt`` between a file and a symlink to ``~/.ssh/id_rsa`` made some of those unasked
views return the key (into the model's request and the session). The race is made exact
with the ``tool:approved`` pause point: the path is swapped after the decision, before the
read. What a user would notice: what the fake server received and what the session stored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fakeserver import FakeServer
from pause_support import REFUSED, replace_with, ssh_key, tool_result_after_swap

from goosectx.config import load_settings
from goosectx.store import SessionStore


def _view_with_swap(server: FakeServer, work: Path, tmp_path: Path, path: str,
                    swap: Any) -> str:
    """Run one unasked ``view`` of ``path``, calling ``swap()`` between approval and read.

    Returns what the model was sent as the view's result (the second request's tool message).
    """
    return str(tool_result_after_swap(
        server, {"name": "text_editor", "arguments": {"command": "view", "path": path}},
        "tool:approved", swap, work=work, tmp_path=tmp_path, task="read my notes",
        env={"HOME": str(tmp_path / "home")}))


def _stored() -> str:
    store = SessionStore(load_settings().data_dir)
    try:
        return json.dumps([[m.text for m in store.load(s.id).conversation]
                           for s in store.list_sessions()]
                          + [[r.output for m in store.load(s.id).conversation
                              for r in m.tool_responses] for s in store.list_sessions()])
    finally:
        store.close()


def test_a_file_swapped_for_a_symlink_to_a_key_after_approval_is_not_read(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    key = ssh_key(tmp_path)
    notes = workdir / "notes.txt"
    notes.write_text("harmless\n")
    sent = _view_with_swap(fake_model, workdir, tmp_path, "notes.txt",
                           lambda: replace_with(notes, lambda t: os.symlink(key, t)))
    assert "TOPSECRET" not in sent
    assert REFUSED in sent and f"it now leads to {key}" in sent
    assert "TOPSECRET" not in _stored()


def test_a_file_swapped_for_a_hard_link_to_a_key_after_approval_is_not_read(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    key = ssh_key(tmp_path)
    notes = workdir / "notes.txt"
    notes.write_text("harmless\n")
    sent = _view_with_swap(fake_model, workdir, tmp_path, "notes.txt",
                           lambda: replace_with(notes, lambda t: os.link(key, t)))
    assert "TOPSECRET" not in sent
    assert REFUSED in sent and "other hard links" in sent
    assert "TOPSECRET" not in _stored()


def test_a_directory_swapped_for_a_symlink_to_ssh_after_approval_is_not_listed(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    key = ssh_key(tmp_path)
    (workdir / "docs").mkdir()
    (workdir / "docs" / "readme.txt").write_text("hi\n")

    def swap() -> None:
        os.rename(workdir / "docs", workdir / "docs.old")
        os.symlink(key.parent, workdir / "docs")

    sent = _view_with_swap(fake_model, workdir, tmp_path, "docs", swap)
    assert "id_rsa" not in sent and REFUSED in sent


def test_a_file_saved_anew_in_place_after_approval_is_still_read(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    # An editor's atomic save puts a new file at the same place: that is the file judged.
    notes = workdir / "notes.txt"
    notes.write_text("first draft\n")
    sent = _view_with_swap(fake_model, workdir, tmp_path, "notes.txt",
                           lambda: replace_with(notes, lambda t: t.write_text("saved again\n")))
    assert "saved again" in sent and REFUSED not in sent
