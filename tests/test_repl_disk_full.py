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

from goosectx.cli.common import OpenSession
from goosectx.cli.repl import Repl, ReplIO
from goosectx.cli.startup import AgentLoader
from goosectx.conversation import Message
from goosectx.errors import StoreError
from goosectx.providers.scripted import ScriptedReply


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
    assert "your message was sent" in words
    # one line that fits an 80-column terminal, not a notice wrapped around a long path
    said = [line for line in out.splitlines() if "input history" in line]
    assert len(said) == 1 and said[0].rstrip().endswith("your message was sent"), said
    assert len(said[0].rstrip()) <= 80, said
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


class FullDisk:
    """Makes the session store's writes fail as on a full disk while :attr:`full` is set.

    ``fail_next`` writes fail, then the disk has room again (a user freed some space).
    """

    WRITES = ("append_message", "add_usage", "replace_history", "save_token_counts")

    def __init__(self, world: World, monkeypatch: pytest.MonkeyPatch,
                 writes: tuple[str, ...] = WRITES) -> None:
        self.full = False
        self.fail_next = 0
        for name in writes:
            monkeypatch.setattr(world.store, name, self._guarded(getattr(world.store, name)))

    def _guarded(self, write: Any) -> Any:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.full or self.fail_next > 0:
                self.fail_next = max(0, self.fail_next - 1)
                raise StoreError("disk full: cannot write session database sessions.db "
                                 "(database or disk is full)",
                                 "free some space and retry; the database keeps its last "
                                 "complete state")
            return write(*args, **kwargs)
        return guarded


def test_a_request_that_could_not_be_saved_is_saved_before_its_answer(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = FullDisk(world, monkeypatch)
    disk.fail_next = 1  # the user's message; then space is freed
    world.provider.add(ScriptedReply("Let me look.", tool_calls=[
        ("shell", {"command": "echo found-it"})]), "It says found-it.")
    out = world.run("look it up" + ENTER + "y" + CTRL_D)
    words = " ".join(out.split())
    assert words.count("disk full") == 1, out  # one error, not one per event
    stored = world.stored().conversation.messages
    assert stored[0].role == "user" and stored[0].text == "look it up"
    assert [m.text for m in stored][-1] == "It says found-it."
    assert len(stored) == 4  # request, tool call, tool result, answer: in order
    assert "saved · resume with: goosectx --resume demo" in out


def test_a_turn_lost_to_a_full_disk_is_not_called_saved(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = FullDisk(world, monkeypatch)
    world.provider.add("first answer")
    world.run("first" + ENTER + CTRL_D)
    disk.full = True
    world.provider.add("second answer")
    out = world.run("second" + ENTER + CTRL_D, status=1)  # a script sees the loss too
    assert "second answer" in out  # the turn itself still ran
    words = " ".join(out.split())
    assert "saved · resume with" not in words
    assert "NOT fully saved" in words and "free some space" in words
    assert [m.text for m in world.stored().conversation] == ["first", "first answer"]


def test_resume_elsewhere_waits_until_the_held_back_writes_are_saved(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    other = world.store.create_session(world.workdir, name="docs")
    world.store.append_message(other.id, Message.user("Write the install section"))
    world.store.append_message(other.id, Message.assistant("Added it."))
    disk = FullDisk(world, monkeypatch, ("append_message", "add_usage"))  # no counts to save
    world.provider.add("lost answer")
    disk.full = True
    opened = OpenSession(world.store, world.session, world.store.lock(world.session.id),
                         resumed=False)
    out = world.run("kept in memory" + ENTER + "/resume docs" + ENTER + CTRL_D, opened=opened,
                    status=1)
    opened.lock.release()
    words = " ".join(out.split())
    assert "resumed docs" not in words  # the user stays where the unsaved messages are
    assert "NOT fully saved" in words
    assert world.repl.session.id == world.session.id


def test_the_message_is_saved_before_the_model_client_is_waited_for(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_while_loading: list[list[str]] = []
    wait = AgentLoader.wait

    def watched(self: AgentLoader, renderer: Any, **options: Any) -> bool:  # kill -9 here?
        stored_while_loading.append([m.text for m in world.stored().conversation])
        return wait(self, renderer, **options)

    monkeypatch.setattr(AgentLoader, "wait", watched)
    world.provider.add("fast answer")
    world.run("slow one" + ENTER + CTRL_D)
    assert stored_while_loading == [["slow one"]]
    assert [m.text for m in world.stored().conversation] == ["slow one", "fast answer"]
    assert [m.text for m in world.provider.requests[0].messages] == ["slow one"]


def test_without_a_model_a_new_session_still_saves_nothing(world: World) -> None:
    world.provider.add()  # never called
    out = world.run("hello" + ENTER + CTRL_D, provider=None)
    assert "nothing to save" in out
    assert list(world.stored().conversation) == []


def test_a_message_the_key_check_stopped_is_not_kept(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.errors import AuthFailed

    def failing_check(self: AgentLoader, provider: object) -> None:
        self.late_error = AuthFailed("the API key was rejected", "set OPENAI_API_KEY")

    monkeypatch.setattr(AgentLoader, "_check", failing_check)
    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text("never sent" + ENTER + CTRL_D)
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=100), input=pipe, output=DummyOutput(),
                              history=False),
                    mode=world.mode, agent_factory=world.agent_factory())
        assert repl.run() == 0
    out = buf.getvalue()
    assert "not sent" in out and "nothing to save" in out
    assert list(world.stored().conversation) == [] and world.provider.requests == []


def test_a_message_the_key_check_stopped_comes_back_once_model_switches(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.errors import AuthFailed

    def failing_check(self: AgentLoader, provider: object) -> None:
        self.late_error = AuthFailed("the API key was rejected", "set OPENAI_API_KEY")

    monkeypatch.setattr(AgentLoader, "_check", failing_check)
    world.provider.add("sent at last")
    buf = io.StringIO()
    with create_pipe_input() as pipe:  # Enter alone after /model: the prompt holds the line
        pipe.send_text("first try" + ENTER + "/model scripted/other" + ENTER + ENTER + CTRL_D)
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=100), input=pipe, output=DummyOutput(),
                              history=False),
                    mode=world.mode, agent_factory=world.agent_factory(),
                    provider_factory=lambda name: world.provider)
        assert repl.run() == 0
    out = buf.getvalue()
    assert "not sent — switch with /model NAME (your message then comes back in the prompt" in out
    assert [m.text for m in world.provider.requests[0].messages] == ["first try"]
    assert [m.text for m in world.stored().conversation] == ["first try", "sent at last"]
