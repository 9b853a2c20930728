"""Resuming a session whose working dir is gone: one warning naming the dir and the fix, and
a shell call's error line without a Python repr."""

from __future__ import annotations

from pathlib import Path

from conftest import FAKE_MODEL
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World
from test_run_cmd import Run

from goosectx.config import load_settings
from goosectx.providers.scripted import ScriptedReply
from goosectx.store import SessionStore


def test_a_resumed_repl_warns_once_that_its_working_dir_is_gone(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        world.mode = "auto"
        world.workdir.rmdir()
        world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "ls"})]), "gone")
        out = world.run("list it" + ENTER + CTRL_D, resumed=True)
        flat = " ".join(out.split())  # the console wraps the warning at its width
        warning = f"warning: this session's working dir {world.workdir} no longer exists"
        assert flat.count(warning) == 1 and f"(mkdir -p {world.workdir})" in flat
        assert flat.index(warning) < flat.index("list it")  # said on resume, before the turn
        [result] = [r.output for m in world.provider.requests[-1].messages
                    for r in m.tool_responses]
        assert "PosixPath" not in result and "PosixPath" not in out
        assert str(world.workdir) in result and "no longer exists" in result
    finally:
        world.store.close()


def test_a_bang_command_in_a_gone_working_dir_says_how_to_recreate_it(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        world.workdir.rmdir()
        drawn = world.run("!ls" + ENTER + CTRL_D, resumed=True)
        out = " ".join(drawn.replace("│", " ").split())  # wrapped inside the output's gutter
        assert f"no command can run until it is recreated (mkdir -p {world.workdir})" in out
        assert "ask the user" not in out  # the user typed it: the text speaks to both
    finally:
        world.store.close()


def test_run_resume_warns_on_stderr_that_the_working_dir_is_gone(fake_model: FakeServer,
                                                                  tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    store = SessionStore(load_settings().data_dir)
    session = store.create_session(gone, name="old", model=FAKE_MODEL)
    store.close()
    gone.rmdir()
    fake_model.add({"text": "ok"})
    run = Run(resume="old", text="again")
    warning = next(line for line in run.err.splitlines() if "no longer exists" in line)
    assert str(gone) in warning and "mkdir -p" in warning and session.name == "old"


def test_a_text_editor_write_in_a_gone_working_dir_is_refused_like_a_shell_call(
        tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        world.mode = "auto"
        world.workdir.rmdir()
        world.provider.add(ScriptedReply(tool_calls=[
            ("shell", {"command": "ls"}),
            ("text_editor", {"command": "create", "path": "new.txt", "file_text": "hi"})]),
            "refused")
        world.run("do it" + ENTER + CTRL_D, resumed=True)
        assert not world.workdir.exists()  # not recreated, nothing written there
        shell, edit = [r.output for m in world.provider.requests[-1].messages
                       for r in m.tool_responses]
        fix = f"until it is recreated (mkdir -p {world.workdir})"
        assert fix in shell and fix in edit and edit.startswith("create failed: ")
    finally:
        world.store.close()
