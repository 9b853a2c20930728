"""A long edit whose whole diff is on screen is approved with one key (no ``v`` first).

A tester approving a 30-line ``write`` with ``a`` was told "press v to see the whole call
first" (that line is drawn by the key question, so these tests see what ``a`` did: the
file, and "text_editor: always allow") although the diff above had shown every line of it. ``v`` is still asked for when the
diff was cut (its lines, or a long line) and for a long call that has no diff (shell).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_security_approval import CTRL_D, ENTER, LONG_COMMAND, World

from goosectx.providers.scripted import ScriptedReply

CONTENT = "".join(f"line {n}\n" for n in range(30))


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def _write(world: World, content: str) -> None:
    world.provider.add(ScriptedReply(tool_calls=[
        ("text_editor", {"command": "write", "path": "notes.txt", "file_text": content})]), "written")


def test_always_allow_counts_when_the_whole_diff_was_shown(world: World) -> None:
    _write(world, CONTENT)
    world.provider.add("ok")  # for the "n" typed next, should "a" not have counted
    out = world.run("go" + ENTER + "a" + "n" + ENTER + CTRL_D)
    assert "text_editor: always allow" in out
    assert (world.workdir / "notes.txt").read_text() == CONTENT
    assert "y and a count only after that" not in out  # the folded call does not say so


def test_a_cut_diff_still_needs_v(world: World) -> None:
    content = "".join(f"row {n}\n" for n in range(200))  # more diff lines than are drawn
    _write(world, content)
    out = world.run("go" + ENTER + "a" + "n" + ENTER + CTRL_D)
    assert "y and a count only after that" in out and "text_editor: deny" in out
    assert not (world.workdir / "notes.txt").exists()


def test_a_long_shell_command_still_needs_v(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": LONG_COMMAND})]), "ok")
    out = world.run("go" + ENTER + "a" + "n" + ENTER + CTRL_D)
    assert "y and a count only after that" in out and "shell: deny" in out
