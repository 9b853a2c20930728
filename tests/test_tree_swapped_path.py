"""``tree`` lists what its approval judged, not what a swapped path leads to later.

In smart_approve a ``tree`` of an in-project directory runs without asking; it then walked
by path: a background job flipping ``docs`` (the root) or ``docs/sub`` (a directory below)
to a symlink to ``~/.ssh`` after the check made it list the key's name. The root is now
checked to be the directory judged (as ``view`` checks), and no directory below is entered
through a symlink. Exact races with the pause points; what a user notices is what the fake
server received.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from fakeserver import FakeServer
from pause_support import REFUSED, ssh_key, tool_result_after_swap


def _tree_with_swap(server: FakeServer, work: Path, tmp_path: Path, point: str,
                    swap: Callable[[], None]) -> str:
    """One unasked ``tree`` of ``docs``, ``swap()`` run at ``point``; the result sent."""
    return str(tool_result_after_swap(
        server, {"name": "tree", "arguments": {"path": "docs"}}, point, swap, work=work,
        tmp_path=tmp_path, task="look around", env={"HOME": str(tmp_path / "home")}))


def test_a_root_swapped_for_a_symlink_after_approval_is_not_listed(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    key = ssh_key(tmp_path)
    (workdir / "docs").mkdir()
    (workdir / "docs" / "readme.txt").write_text("hi\n")

    def swap() -> None:
        os.rename(workdir / "docs", workdir / "docs.old")
        os.symlink(key.parent, workdir / "docs")

    sent = _tree_with_swap(fake_model, workdir, tmp_path, "tool:approved", swap)
    assert "id_rsa" not in sent and REFUSED in sent


def test_a_directory_below_swapped_for_a_symlink_is_not_entered(
        fake_model: FakeServer, workdir: Path, tmp_path: Path) -> None:
    key = ssh_key(tmp_path)
    (workdir / "docs" / "sub").mkdir(parents=True)
    (workdir / "docs" / "sub" / "page.txt").write_text("hi\n")

    def swap() -> None:
        os.rename(workdir / "docs" / "sub", workdir / "docs" / "sub.old")
        os.symlink(key.parent, workdir / "docs" / "sub")

    sent = _tree_with_swap(fake_model, workdir, tmp_path, "tree:descending", swap)
    assert "id_rsa" not in sent
    assert "sub/ (cannot list:" in sent
