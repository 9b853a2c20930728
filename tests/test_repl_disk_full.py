"""A full disk in the REPL: the input history and the session store fail to write.

No real full disk is needed: the history file's write and the store's writes are made to
raise the errors a full disk gives (``OSError(ENOSPC)``, SQLite's "database or disk is full").
"""

from __future__ import annotations

import errno
import io
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.repl import Repl, ReplIO


@pytest.fixture
def world(tmp_path: Path) -> Any:
    w = World(tmp_path)
    yield w
    w.store.close()


def run_with_history(world: World, keys: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run the REPL with its input history file on; returns the transcript and stderr."""
    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()  # the end of input ends the REPL even where a key is left unread
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=100), input=pipe, output=DummyOutput()),
                    mode=world.mode, agent_factory=world.agent_factory(),
                    background_checks=False)
        assert repl.run() == 0
    captured = capsys.readouterr()
    return buf.getvalue() + captured.out + captured.err


def test_input_history_on_a_full_disk_is_one_line_and_the_message_goes_through(
        world: World, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def full(self: Any, string: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", self.filename)

    monkeypatch.setattr(FileHistory, "store_string", full)
    world.provider.add("first answer", "second answer")
    out = run_with_history(world, "hello there" + ENTER + "again" + ENTER + CTRL_D, capsys)
    assert "Traceback" not in out and "Unhandled exception" not in out
    assert "Press ENTER" not in out
    words = " ".join(out.split())
    assert words.count("input history not saved") == 1, out  # once, not after every message
    assert "input history not saved (disk full): free some space" in words
    assert "your message was still sent" in words
    assert "first answer" in out and "second answer" in out
    texts = [m.text for m in world.stored().conversation]
    assert texts == ["hello there", "first answer", "again", "second answer"]
    assert "saved · resume with" in out


def test_input_history_is_kept_when_the_disk_has_room(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    world.provider.add("ok")
    out = run_with_history(world, "remember me" + ENTER + CTRL_D, capsys)
    assert "input history" not in out
    saved = Path(world.settings.data_dir / "repl_history").read_text()
    assert "+remember me" in saved
