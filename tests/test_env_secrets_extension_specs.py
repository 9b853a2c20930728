"""A value handed to an extension on a spec is a secret like any other, added at start or later.

``--with-extension "ACME_AUTH=… cmd"`` and, mid-session, ``/extension add "ACME_AUTH=… cmd"``
give a server a credential whose name need not look secret. The shell tool's environment
drops that name (goosectx's own ``ACME_AUTH`` is likely the same kind of credential), and the
value is redacted wherever this environment's secrets are: tool output, what is typed (the
input history file, ``/search``), an import.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.repl import Repl, ReplIO
from goosectx.config import Settings
from goosectx.conversation import ToolResponse
from goosectx.env_secrets import make_redactor
from goosectx.extensions.manager import ExtensionManager
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.runtime import build_agent
from goosectx.store import SessionStore
from goosectx.tools.builtin import tool_env

ENTER = "\r"
CTRL_D = "\x04"
OURS = "acme-ours-Lq8vX2mK9pL4sR6y"  # goosectx's own ACME_AUTH (a name that looks harmless)
GIVEN = "acme-given-Zt5wQ9rB3nJ7hD1k"  # the value the spec hands the server


def test_a_with_extension_value_is_redacted_and_its_name_dropped() -> None:
    settings = Settings()
    settings.extensions.flags = ((f"ACME_AUTH={GIVEN} /opt/acme/server --fast",), ())
    redact = make_redactor(settings, {"HOME": "/root"})
    assert redact(f"the server got {GIVEN}.") == "the server got [REDACTED]."
    assert "ACME_AUTH" not in tool_env(settings, {"ACME_AUTH": OURS, "HOME": "/root"})


def test_a_short_with_extension_value_echoed_upper_cased_is_redacted() -> None:
    settings = Settings()
    settings.extensions.flags = (("TOKEN=abcdefghij1234 /opt/acme/server",), ())
    redact = make_redactor(settings, {"HOME": "/root"})
    assert redact("echo $TOKEN | tr a-z A-Z: ABCDEFGHIJ1234") == (
        "echo $TOKEN | tr a-z A-Z: [REDACTED]")


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.settings = Settings(data_dir=tmp_path / "data")
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        self.store = SessionStore(self.settings.data_dir)
        self.session = self.store.create_session(self.workdir, name="ext",
                                                 model="scripted/test-model")
        self.provider = ScriptedProvider()
        self.manager = ExtensionManager([], self.workdir)

    def build(self, approve: ApprovalFn) -> Agent:  # the REPL's agent, as runtime wires it
        agent = build_agent(self.settings, self.session, approve=approve, mode="auto",
                            extensions=self.manager)
        agent.set_provider(self.provider)
        return agent

    def run(self, *lines: str) -> str:
        buf = io.StringIO()
        with create_pipe_input() as pipe:
            pipe.send_text("".join(line + ENTER for line in lines) + CTRL_D)
            repl = Repl(self.settings, self.store, self.session,
                        io=ReplIO(Console(file=buf, width=200), input=pipe,
                                  output=DummyOutput()),
                        mode="auto", agent_factory=self.build, background_checks=False,
                        extensions=self.manager)
            assert repl.run() == 0
        return buf.getvalue()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.setenv("ACME_AUTH", OURS)
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.manager.stop_all()
        w.store.close()


def test_an_extension_added_mid_session_counts_as_one_given_at_start(world: World) -> None:
    world.provider.add(
        ScriptedReply(tool_calls=[("shell", {"command": f"env | grep ACME; echo {GIVEN}"})]),
        ScriptedReply("done"))
    out = world.run(f'/extension add "ACME_AUTH={GIVEN} /nonexistent/acme-server --x"',
                    "check the env", f"/search {GIVEN}")
    stored = world.store.load(world.session.id)
    output = next(p.output for m in stored.conversation for p in m.content
                  if isinstance(p, ToolResponse))
    assert "ACME_AUTH" not in output and OURS not in output  # dropped from the shell's env
    assert "[REDACTED]" in output and GIVEN not in output
    shown = [line for line in out.splitlines() if "❯" not in line and "/extension" not in line]
    assert GIVEN not in "\n".join(shown)  # (but the lines echoed as typed)
    assert "mentions '[REDACTED]'" in out
    history = (world.settings.data_dir / "repl_history").read_text()
    assert "/extension add" in history and "/search [REDACTED]" in history
    assert GIVEN not in history


def test_a_removed_extensions_variable_is_back_in_the_shell_env_its_value_still_redacted(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # ACME_SERVICE does not look secret: only the spec dropped it from the shell's env. Once
    # the extension is removed goosectx's own ACME_SERVICE is the shell's again; the value
    # the spec handed the server stays a secret for the process (it may be in the server's
    # output already, or in the model's view of it).
    monkeypatch.setenv("ACME_SERVICE", "acme-prod-eu")
    world.provider.add(
        ScriptedReply(tool_calls=[("shell", {"command": f"env | grep ACME_S; echo {GIVEN}"})]),
        ScriptedReply("done"),
        ScriptedReply(tool_calls=[("shell", {"command": f"env | grep ACME_S; echo {GIVEN}"})]),
        ScriptedReply("done"))
    world.run(f'/extension add "ACME_SERVICE={GIVEN} /nonexistent/acme-server --x"',
              "check the env", "/extension remove acme", "check it again")
    stored = world.store.load(world.session.id)
    outputs = [p.output for m in stored.conversation for p in m.content
               if isinstance(p, ToolResponse)]
    assert len(outputs) == 2
    assert "ACME_SERVICE" not in outputs[0] and "[REDACTED]" in outputs[0]
    assert "ACME_SERVICE=acme-prod-eu" in outputs[1] and "[REDACTED]" in outputs[1]
    assert GIVEN not in "".join(outputs)
    settings = world.settings
    assert "ACME_SERVICE" in tool_env(settings, {"ACME_SERVICE": "x"})  # a later agent's too
    assert make_redactor(settings, {})(f"it was {GIVEN}") == "it was [REDACTED]"
