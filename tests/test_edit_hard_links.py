"""An edit of a file with other hard links says that it splits them.

Every edit writes a new file and renames it over the old one (atomically): the edited name
gets the new text, the file's other names keep the old one and the link count drops. The
approval question's diff, the result the model reads and the stored diff say so (fresh20c
finding #8). Driven through the REPL over pipe input with the scripted model.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.providers.scripted import ScriptedReply

NOTE = "has 1 other hard link; the edit writes a new file, so the other name keeps the old text"


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def _linked(world: World) -> Path:
    """``real.txt`` and ``hard.txt``: two names of one file in the project."""
    real = world.workdir / "real.txt"
    real.write_text("hello\n")
    os.link(real, world.workdir / "hard.txt")
    return real


@pytest.mark.parametrize("call", [
    {"command": "str_replace", "path": "hard.txt", "old_str": "hello", "new_str": "hey"},
    {"command": "insert", "path": "hard.txt", "insert_line": 0, "new_str": "hey"},
    {"command": "write", "path": "hard.txt", "file_text": "hey\n"},
])
def test_the_question_and_the_result_say_the_edit_splits_the_hard_link(
        world: World, call: dict[str, object]) -> None:
    real = _linked(world)
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", call)]), "done")
    out = world.run("edit it" + ENTER + "y" + ENTER + CTRL_D)
    question = out.index("goosectx asks: run text_editor?")
    assert NOTE in " ".join(out[:question].split())  # the diff drawn before the question
    result = [r for m in world.stored().conversation for r in m.tool_responses][-1]
    assert NOTE in result.output
    assert result.diff is not None and NOTE in result.diff
    assert real.read_text() == "hello\n"  # what the note says
    assert os.stat(real).st_nlink == 1


def test_auto_mode_tells_the_model(world: World) -> None:
    _linked(world)
    world.mode = "auto"
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "hard.txt", "old_str": "hello", "new_str": "hey"})]),
        "done")
    world.run("edit it" + ENTER + CTRL_D)
    sent = world.provider.requests[-1].messages[-1]
    assert any(NOTE in r.output for r in sent.tool_responses)


def test_a_file_with_one_name_has_no_note(world: World) -> None:
    (world.workdir / "plain.txt").write_text("hello\n")
    world.mode = "auto"
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "plain.txt", "old_str": "hello", "new_str": "hey"})]),
        "done")
    world.run("edit it" + ENTER + CTRL_D)
    result = [r for m in world.stored().conversation for r in m.tool_responses][-1]
    assert "hard link" not in result.output and "hard link" not in (result.diff or "")


def test_the_note_heads_the_diff_and_ends_the_result_once(world: World) -> None:
    # pins what the editor says when the count it carries from the read is 2 (fix22a #2)
    hard = _linked(world).with_name("hard.txt")
    world.mode = "auto"
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {
        "command": "str_replace", "path": "hard.txt", "old_str": "hello", "new_str": "hey"})]),
        "done")
    world.run("edit it" + ENTER + CTRL_D)
    result = [r for m in world.stored().conversation for r in m.tool_responses][-1]
    note = f"(hard links: {hard} {NOTE})"
    assert result.output.count("(hard links: ") == 1 and result.output.endswith("\n" + note)
    assert result.diff is not None and result.diff.startswith(note + "\n--- a/hard.txt\n")
