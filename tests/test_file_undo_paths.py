"""``/undo`` and the paths it writes: symlinks swapped in since, one file under two names,
files deleted since, directories an edit created.

Driven through the REPL over pipe input with the scripted model (auto mode). What a user
notices: the lines ``/undo`` prints and the bytes and directories on disk, inside the project
and outside it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.providers.scripted import ScriptedReply

HOSTS = "127.0.0.1 localhost\n"


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.mode = "auto"
    yield w
    w.store.close()


def _edit(world: World, *calls: dict[str, str]) -> None:
    """One turn ("edit") of text_editor calls, one per model reply."""
    world.provider.add(*[ScriptedReply(tool_calls=[("text_editor", call)]) for call in calls],
                       "done")
    world.run("edit" + ENTER + CTRL_D)


def test_undo_does_not_follow_a_directory_swapped_for_a_symlink_since(world: World) -> None:
    victim_dir = world.workdir.parent / "victim"
    victim_dir.mkdir()
    victim = victim_dir / "hosts"
    victim.write_text(HOSTS)
    (world.workdir / "d").mkdir()
    (world.workdir / "d" / "hosts").write_text("ATTACKER CONTENT\n")
    (world.workdir / "kept.txt").write_text("k1\n")
    _edit(world, {"command": "write", "path": "d/hosts", "file_text": HOSTS},
          {"command": "write", "path": "kept.txt", "file_text": "k2\n"})
    shutil.rmtree(world.workdir / "d")
    os.symlink(victim_dir, world.workdir / "d")  # the outside file holds what the edit wrote
    out = world.run("/undo --force" + ENTER + CTRL_D, resumed=True)
    flat = " ".join(out.split())  # where the terminal wraps depends on the temp path's length
    assert "not undone d/hosts: the path now leads elsewhere" in flat
    assert "it is left alone, also with --force" in flat
    assert victim.read_text() == HOSTS  # the outside file is untouched
    assert "restored kept.txt" in flat and (world.workdir / "kept.txt").read_text() == "k1\n"


def test_undo_does_not_follow_a_file_swapped_for_a_symlink_since(world: World) -> None:
    outside = world.workdir.parent / "outside.txt"
    outside.write_text("new\n")
    (world.workdir / "x.txt").write_text("old\n")
    _edit(world, {"command": "write", "path": "x.txt", "file_text": "new\n"})
    (world.workdir / "x.txt").unlink()
    os.symlink(outside, world.workdir / "x.txt")
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "not undone  x.txt: the path now leads elsewhere" in out
    assert outside.read_text() == "new\n"
    assert (world.workdir / "x.txt").is_symlink()


def test_edits_of_one_file_through_two_names_undo_as_one(world: World) -> None:
    script = world.workdir / "run.sh"
    script.write_text("#!/bin/sh\necho a\n")
    os.symlink("run.sh", world.workdir / "link.sh")
    _edit(world, {"command": "str_replace", "path": "run.sh", "old_str": "echo a",
                  "new_str": "echo b"},
          {"command": "str_replace", "path": "link.sh", "old_str": "echo b",
           "new_str": "echo c"})
    assert script.read_text().endswith("echo c\n")
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "changed" not in out and "restored  run.sh" in out
    assert script.read_text() == "#!/bin/sh\necho a\n"
    assert (world.workdir / "link.sh").is_symlink()


def test_a_deleted_file_is_named_deleted_and_force_recreates_it(world: World) -> None:
    (world.workdir / "a.txt").write_text("A1\n")
    _edit(world, {"command": "write", "path": "new/deep/x.txt", "file_text": "x\n"},
          {"command": "write", "path": "a.txt", "file_text": "A2\n"})
    (world.workdir / "a.txt").unlink()
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "deleted  a.txt (deleted since goosectx edited it)" in out
    assert "changed  a.txt" not in out
    assert ("/undo --force restores them anyway (their later changes are lost; deleted ones are "
            "recreated)") in out
    assert not (world.workdir / "a.txt").exists() and (world.workdir / "new/deep/x.txt").exists()
    out = world.run("/undo --force" + ENTER + CTRL_D, resumed=True)
    assert (world.workdir / "a.txt").read_text() == "A1\n"
    assert "removed   new/deep/x.txt (that turn created it)" in out
    assert "removed   new/deep/ (empty; that turn created it)" in out
    assert not (world.workdir / "new").exists()


def test_a_created_directory_that_holds_other_files_stays(world: World) -> None:
    _edit(world, {"command": "write", "path": "pkg/sub/mod.py", "file_text": "x = 1\n"})
    (world.workdir / "pkg" / "README").write_text("mine\n")
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "removed   pkg/sub/mod.py" in out and "removed   pkg/sub/ (empty" in out
    assert "removed   pkg/ (" not in out
    assert (world.workdir / "pkg" / "README").read_text() == "mine\n"


def test_a_created_file_deleted_since_is_not_called_changed(world: World) -> None:
    (world.workdir / "b.txt").write_text("B1\n")
    _edit(world, {"command": "write", "path": "scratch.txt", "file_text": "tmp\n"},
          {"command": "write", "path": "b.txt", "file_text": "B2\n"})
    (world.workdir / "scratch.txt").unlink()
    out = world.run("/undo" + ENTER + CTRL_D, resumed=True)
    assert "nothing was undone" not in out
    assert (world.workdir / "b.txt").read_text() == "B1\n"
