"""A project's custom command file must not lead outside the project (fresh16b finding 01).

A hostile repository shipped ``.claude/commands/review.md`` as a symlink to
``~/.ssh/id_rsa``; typing ``/review`` sent the private key to the model. Command files from a
project directory are now read only when they resolve inside the project, are regular files
and are not sensitive; others are skipped with the usual one-line warning saying why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.config import Settings

KEY_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEYMATERIAL\n"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def commands(world: World, kind: str = ".claude") -> Path:
    path = world.workdir / kind / "commands"
    path.mkdir(parents=True, exist_ok=True)
    return path


def flat(out: str) -> str:
    return " ".join(out.split())


def sent_texts(world: World) -> str:
    return " ".join(m.text for r in world.provider.requests for m in r.messages)


def test_a_link_to_a_key_outside_the_project_is_not_sent(world: World, tmp_path: Path) -> None:
    key = tmp_path / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text(KEY_TEXT)
    (commands(world) / "review.md").symlink_to(os.path.relpath(key, commands(world)))
    world.provider.add("thanks")
    out = flat(world.run("/review" + ENTER + CTRL_D))
    assert "SECRETKEYMATERIAL" not in sent_texts(world) and "SECRETKEYMATERIAL" not in out
    assert not world.provider.requests
    warning = (".claude/commands/review.md skipped: it leads outside the project "
               f"(to {key})")
    assert out.count(warning) == 2, out  # when the REPL starts, and when /review is typed


def test_links_outside_are_skipped_from_both_project_dirs(world: World, tmp_path: Path
                                                          ) -> None:
    (tmp_path / "notes.txt").write_text("OUTSIDE NOTES")
    (commands(world, ".goosectx") / "notes.md").symlink_to(tmp_path / "notes.txt")
    outside_dir = tmp_path / "elsewhere"
    outside_dir.mkdir()
    (outside_dir / "plan.md").write_text("OUTSIDE PLAN")
    (world.workdir / ".claude").mkdir()
    (world.workdir / ".claude" / "commands").symlink_to(outside_dir)  # the directory a link
    world.provider.add("a", "b")
    out = flat(world.run("/notes" + ENTER + "/plan" + ENTER + "/commands" + ENTER + CTRL_D))
    assert not world.provider.requests
    assert ".goosectx/commands/notes.md skipped: it leads outside the project" in out
    assert ".claude/commands/plan.md skipped: it leads outside the project" in out


def test_a_link_to_a_sensitive_file_inside_the_project_is_skipped(world: World) -> None:
    (world.workdir / ".env").write_text("API_TOKEN=ENVSECRET")
    (commands(world) / "setup.md").symlink_to("../../.env")
    out = flat(world.run("/setup" + ENTER + CTRL_D))
    assert not world.provider.requests
    assert ("setup.md skipped: it leads to a sensitive file (.env): keys and credentials "
            "are never sent") in out


def test_a_link_inside_the_project_still_works(world: World) -> None:
    (world.workdir / "docs").mkdir()
    (world.workdir / "docs" / "review-prompt.md").write_text("Review the diff carefully.")
    (commands(world) / "review.md").symlink_to("../../docs/review-prompt.md")
    (commands(world, ".goosectx") / "id_check.md").write_text("Check the ids.")
    world.provider.add("ok", "ok")
    out = world.run("/review" + ENTER + "/id_check" + ENTER + CTRL_D)
    assert "skipped" not in out
    assert [r.messages[-1].text for r in world.provider.requests] == [
        "Review the diff carefully.", "Check the ids."]


def test_the_users_own_command_may_link_anywhere(world: World, tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "mine.md").write_text("My own prompt.")
    user = Settings().config_file.parent / "commands"  # next to $GOOSECTX_CONFIG (conftest)
    user.mkdir(parents=True, exist_ok=True)
    (user / "mine.md").symlink_to(tmp_path / "prompts" / "mine.md")
    world.provider.add("ok")
    world.run("/mine" + ENTER + CTRL_D)
    assert world.provider.requests[0].messages[-1].text == "My own prompt."


def test_a_fifo_is_skipped_without_waiting(world: World) -> None:
    os.mkfifo(commands(world) / "pipe.md")
    out = flat(world.run("/pipe" + ENTER + CTRL_D))
    assert "pipe.md skipped: not a regular file" in out
    assert not world.provider.requests


def test_the_link_target_is_shown_through_the_sanitiser(world: World, tmp_path: Path) -> None:
    target = tmp_path / "evil\x1b]52;c;cHduZWQ=\x07.txt"
    target.write_text("x")
    (commands(world) / "evil.md").symlink_to(target)
    out = world.run(CTRL_D)
    assert "evil.md skipped: it leads outside the project" in flat(out)
    assert "\x1b]52" not in out and "\x07" not in out
