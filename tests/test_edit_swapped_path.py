"""An edit reads, shows and writes one file, also when its path is swapped meanwhile.

``str_replace`` and ``insert`` read the old text by path after the write target was
checked, and wrote what they computed from it to the target resolved again: a background
job flipping ``notes.txt`` to a link to ``other.txt`` between the read and the write made
the edit of ``notes.txt`` overwrite ``other.txt`` with ``notes.txt``'s edited text (and the
diff showed a change of another file than the one written). The races are made exact with
the pause points of :mod:`goosectx.testhooks`; what a user notices is the files' bytes and
the result the model reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from pause_support import tool_result_after_swap

CALLS = [
    {"command": "str_replace", "path": "notes.txt", "old_str": "hello", "new_str": "hey"},
    {"command": "insert", "path": "notes.txt", "insert_line": 0, "new_str": "hey"},
]


def _edit_swapped_at(point: str, server: FakeServer, work: Path, tmp_path: Path,
                     call: dict[str, object]) -> str:
    """``run --mode auto`` of one edit, ``notes.txt`` flipped to a link to ``other.txt`` at
    ``point``; the edit's result as the model was sent it."""
    notes, other = work / "notes.txt", work / "other.txt"

    def swap() -> None:
        notes.unlink()
        notes.symlink_to("other.txt")

    result = tool_result_after_swap(
        server, {"name": "text_editor", "arguments": call}, point, swap, work=work,
        tmp_path=tmp_path, task="edit", options=("--mode", "auto"))
    assert other.read_text() == "other words\n"  # never written
    return json.dumps(result)


@pytest.fixture
def notes(workdir: Path) -> Path:
    (workdir / "notes.txt").write_text("hello\n")
    (workdir / "other.txt").write_text("other words\n")
    return workdir


@pytest.mark.parametrize("call", CALLS)
def test_a_swap_after_the_read_writes_no_other_file(
        fake_model: FakeServer, notes: Path, tmp_path: Path, call: dict[str, object]) -> None:
    result = _edit_swapped_at("edit:read", fake_model, notes, tmp_path, call)
    assert "nothing was written" in result


@pytest.mark.parametrize("call", CALLS)
def test_a_swap_after_the_check_reads_no_other_file(
        fake_model: FakeServer, notes: Path, tmp_path: Path, call: dict[str, object]) -> None:
    result = _edit_swapped_at("edit:checked", fake_model, notes, tmp_path, call)
    assert "changed after this call was checked" in result and "nothing was read" in result
    assert "other words" not in result
