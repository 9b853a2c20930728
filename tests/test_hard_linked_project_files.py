"""Project files that are hard links to a secret are not sent (fresh20b finding 16).

``AGENTS.md`` and ``.goosectx/commands/leak.md`` made hard links to ``~/.ssh/id_rsa`` passed
the "resolves inside the project, leads to no sensitive file" checks (a hard link resolves
to itself): the key went into the system prompt and the ``/leak`` message. Symlinks were
already skipped. A project file with other hard links is now skipped with a warning, as read
scoping asks about one; instruction files hard-linked to each other (``CLAUDE.md`` and
``AGENTS.md``) are all inside, and read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from test_instruction_trust import system_prompt, warnings
from test_repl import CTRL_D, ENTER, World

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- HARDLINKEDKEYMATERIAL\n"


@pytest.fixture
def key(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".ssh" / "id_rsa"
    path.parent.mkdir(parents=True)
    path.write_text(KEY)
    return path


def test_an_instruction_file_hard_linked_to_a_key_is_skipped_with_a_warning(
    fake_model: FakeServer, workdir: Path, key: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    os.link(key, workdir / "AGENTS.md")
    (workdir / ".goosehints").write_text("use pytest -q")
    fake_model.add({"text": "hi"})
    _out, err = cli(capsys, "run", "-t", "hello")
    assert "HARDLINKEDKEYMATERIAL" not in system_prompt(fake_model)
    assert "use pytest -q" in system_prompt(fake_model)
    assert warnings(err) == [
        "goosectx: warning: project instructions AGENTS.md skipped: it has other hard links, "
        "which may be outside the project (`ln ~/.ssh/id_rsa AGENTS.md`); copy the file in if "
        "it should be read"]


def test_instruction_files_hard_linked_to_each_other_are_read_once(
    fake_model: FakeServer, workdir: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (workdir / "AGENTS.md").write_text("run the tests with pytest -q")
    os.link(workdir / "AGENTS.md", workdir / "CLAUDE.md")
    fake_model.add({"text": "hi"})
    _out, err = cli(capsys, "run", "-t", "hello")
    assert system_prompt(fake_model).count("run the tests with pytest -q") == 1
    assert warnings(err) == []


def test_a_custom_command_hard_linked_to_a_key_is_not_sent(tmp_path: Path, key: Path) -> None:
    world = World(tmp_path)
    try:
        commands = world.workdir / ".goosectx" / "commands"
        commands.mkdir(parents=True)
        os.link(key, commands / "leak.md")
        (commands / "ok.md").write_text("say OKCOMMANDTEXT")
        world.provider.add("thanks")
        out = " ".join(world.run("/leak" + ENTER + "/ok" + ENTER + CTRL_D).split())
        sent = " ".join(m.text for r in world.provider.requests for m in r.messages)
        assert "HARDLINKEDKEYMATERIAL" not in sent and "HARDLINKEDKEYMATERIAL" not in out
        assert "OKCOMMANDTEXT" in sent
        assert (".goosectx/commands/leak.md skipped: it has other hard links, which may be "
                "outside the project (`ln ~/.ssh/id_rsa leak.md`); copy the file in if it "
                "should be read") in out  # the same words, and the fix, as an AGENTS.md's
    finally:
        world.store.close()
