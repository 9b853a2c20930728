"""Extensions in the REPL (pipe input, scripted model, the SDK-written demo server):
``/extension``, ``/prompts``, ``/prompt``, ``@NAME:URI``, tool calls, the toolbar note."""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from extension_support import demo_config, demo_spec
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli import repl_extensions
from goosectx.cli.repl import Repl, ReplIO
from goosectx.config import Settings
from goosectx.conversation import ToolResponse
from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.source import ExtensionToolSource
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.store import SessionStore
from goosectx.tools.builtin import default_registry, make_tool_context

ENTER = "\r"
CTRL_D = "\x04"


class World:
    def __init__(self, tmp_path: Path, manager: ExtensionManager) -> None:
        self.settings = Settings(data_dir=tmp_path / "data", threshold_ratio=0.8)
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        self.store = SessionStore(self.settings.data_dir)
        self.session = self.store.create_session(self.workdir, name="ext",
                                                 model="scripted/test-model")
        self.provider = ScriptedProvider()
        self.manager = manager

    def build(self, approve: ApprovalFn) -> Agent:
        return Agent(self.session, self.settings, provider=self.provider,
                     tools=default_registry(), approve=approve, mode="auto",
                     tool_context=make_tool_context(self.settings, self.workdir),
                     tool_source=ExtensionToolSource(self.manager, 1.0))

    def run(self, *lines: str) -> str:
        buf = io.StringIO()
        with create_pipe_input() as pipe:
            pipe.send_text("".join(line + ENTER for line in lines) + CTRL_D)
            repl = Repl(self.settings, self.store, self.session,
                        io=ReplIO(Console(file=buf, width=120), input=pipe,
                                  output=DummyOutput(), history=False),
                        mode="auto", agent_factory=self.build, background_checks=False,
                        extensions=self.manager)
            assert repl.run() == 0
        self.repl = repl
        return buf.getvalue()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    manager = ExtensionManager([demo_config("demo")], tmp_path)
    try:
        yield World(tmp_path, manager)
    finally:
        manager.stop_all()


def test_tool_call_list_prompts_and_toolbar(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("demo__echo", {"text": "hi from mcp"})]),
                       ScriptedReply("echoed"))
    out = world.run("say hi", "/extension list", "/prompts", "/context")
    assert "echoed" in out
    assert "extension demo (ready): instructions" in out and "resources: 1 offered" in out
    assert "demo: ready" in out and "tools" in out
    assert "demo:review code=…" in out
    stored = world.store.load(world.session.id)
    outputs = [p.output for m in stored.conversation for p in m.content
               if isinstance(p, ToolResponse)]
    assert outputs == ["hi from mcp"]
    request = world.provider.requests[0]
    assert "demo__echo" in [t["name"] for t in request.tools]
    assert "## demo\nThe demo server echoes" in request.system
    assert repl_extensions.toolbar_note(world.repl) == "extensions 1/1"


def test_prompt_is_sent_as_the_users_turn(world: World) -> None:
    world.provider.add(ScriptedReply("reviewed"))
    out = world.run("/prompt review code=x=1", "/prompt nope")
    assert "reviewed" in out
    assert world.provider.requests[0].messages[-1].text == "Please review this code: x=1"
    assert "no prompt named 'nope'" in out


@pytest.mark.skipif(importlib.util.find_spec("goosectx.attachment") is None,
                    reason="the attachment part has not landed in this build")
def test_resource_mention_is_attached(world: World) -> None:
    world.provider.add(ScriptedReply("read it"))
    world.run("summarise @demo:file:///notes.txt please")
    sent = world.provider.requests[0].messages[-1]
    attached = [p for p in sent.content if getattr(p, "type", "") == "attachment"]
    assert attached and attached[0].text == "the notes say: ship it"
    assert attached[0].source == "demo:file:///notes.txt"


def test_extension_add_and_remove(world: World) -> None:
    world.provider.add(ScriptedReply("first"), ScriptedReply("second"))
    out = world.run(f'/extension add "{demo_spec("--name", "two")}"', "hello",
                    "/extension remove demo", "again", "/extension remove ghost",
                    "/extension remove demo_2", "/extension list")
    first, second = world.provider.requests
    assert {"demo__echo", "demo_2__echo"} <= {t["name"] for t in first.tools}
    assert "demo_2__echo" in [t["name"] for t in second.tools]
    assert not any(t["name"].startswith("demo__") for t in second.tools)
    assert "no extension named 'ghost'" in out
    assert "extension demo removed" in out and "extension demo_2 removed" in out
    assert "no extensions in this session" in out  # the list says so, not nothing


def test_a_plain_command_with_arguments_is_named_after_the_command(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    # '/extension add "FOO=1 /nonexistent/bin arg"' named it "arg" (its last argument).
    from cli_support import run_cli

    out = world.run('/extension add "FOO=1 /nonexistent/bin arg"',
                    '/extension add "/nonexistent/python3 /nonexistent/server-notes.py -v"')
    assert "extension bin: starting /nonexistent/bin arg" in out
    assert "extension notes: starting /nonexistent/python3" in out  # a launcher: its script
    code, listed, _ = run_cli(capsys, "extensions", "list", "--with-extension",
                              "FOO=1 /nonexistent/bin arg")
    assert code == 1 and listed.startswith("bin: failed\n")


def test_resource_completion(world: World) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    world.provider.add(ScriptedReply("ok"))
    world.run("hi")  # the servers are up after a turn
    completer = repl_extensions.ResourceCompleter(world.repl)
    got = [c.text for c in completer.get_completions(Document("read @de"), CompleteEvent())]
    assert got == ["@demo:file:///notes.txt"]
    assert list(completer.get_completions(Document("mail a@de"), CompleteEvent())) == []


def test_a_large_resource_is_cut_to_mention_max_tokens_with_a_notice(tmp_path: Path) -> None:
    manager = ExtensionManager([demo_config("demo", "--big-resource", "2000000")], tmp_path)
    try:
        world = World(tmp_path, manager)
        world.settings.mention_max_tokens = 2_000
        world.provider.add(ScriptedReply("read it"))
        out = world.run("summarise @demo:file:///big.txt please")
    finally:
        manager.stop_all()
    sent = world.provider.requests[0].messages[-1]
    (attached,) = [p for p in sent.content if getattr(p, "type", "") == "attachment"]
    assert attached.source == "demo:file:///big.txt" and attached.token_estimate <= 2_000
    assert attached.text.startswith("big line 0000000 ")
    assert attached.text.endswith("big line 0034481 " + "x" * 40 + "\n")
    assert "left out by goosectx: the resource is over mention_max_tokens (2,000 tokens)" \
        in attached.text
    assert len(world.provider.requests) == 1
    assert "@demo:file:///big.txt is " in out and "over mention_max_tokens (2,000): attached " \
        "its first" in out


def test_an_extension_added_again_in_the_repl_runs_though_resume_said_it_needs_its_flag(
        tmp_path: Path) -> None:
    """A resumed session's flag-added extension was not back (it needs its settings again);
    ``/extension add`` gave it back under the same name, yet every call of its tools still
    got "needs its settings again; this call was not run." and the record kept it absent."""
    manager = ExtensionManager([], tmp_path)
    manager.absent = {"demo": "extension demo was added with a flag and needs its settings "
                              "again: resume with --with-extension '…'"}
    try:
        world = World(tmp_path, manager)
        world.provider.add(ScriptedReply(tool_calls=[("demo__echo", {"text": "back"})]),
                           ScriptedReply("echoed"))
        world.run(f'/extension add "{demo_spec()}"', "say it")
        stored = world.store.load(world.session.id)
        outputs = [p.output for m in stored.conversation for p in m.content
                   if isinstance(p, ToolResponse)]
        assert outputs == ["back"]
    finally:
        manager.stop_all()


def test_extension_remove_forgets_one_kept_but_not_back(tmp_path: Path) -> None:
    """rev20 F5: a flag-added extension not back on resume was kept in the session's records
    and named on every resume, and ``/extension remove demo`` answered "no extension named"."""
    manager = ExtensionManager([], tmp_path)
    manager.absent = {"demo": "extension demo was added with a flag and needs its settings "
                              "again: resume with --with-extension '…'"}
    try:
        world = World(tmp_path, manager)
        world.store.save_extensions(world.session.id,
                                    [demo_config(envs={"K": "v"}).public()])
        out = world.run("/extension remove demo")
        assert "extension demo removed" in out and "no extension named" not in out
        assert world.store.load_extensions(world.session.id) == []
    finally:
        manager.stop_all()
