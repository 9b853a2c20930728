"""Messages that said the wrong thing: ``--history`` with nothing to resume, ``run``'s denial
warning before the call it is about, and piped input that ends at an approval question."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from rich.console import Console
from test_repl import World
from test_run_cmd import Run, shell, store

from goosectx.cli.repl import Repl, ReplIO
from goosectx.providers.scripted import ScriptedReply


@pytest.mark.parametrize("args", [["--history"], ["session", "--history"],
                                  ["--name", "x", "--history"]])
def test_history_without_a_session_to_resume_is_refused(capsys: pytest.CaptureFixture[str],
                                                        workdir: Path, args: list[str]) -> None:
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert err == ("goosectx: error: --history applies only with --resume or --continue (-c): "
                   "a new session has no history to draw — e.g. goosectx --resume SESSION "
                   "--history\n")
    with_store = store()
    try:
        assert with_store.list_sessions() == []
    finally:
        with_store.close()


def test_run_s_denial_warning_comes_after_the_call_it_is_about(fake_model: FakeServer,
                                                               workdir: Path) -> None:
    fake_model.add(shell("touch y"), {"text": "could not"})
    run = Run(text="touch y")
    lines = run.err.splitlines()
    call = lines.index('> shell {"command":"touch y"}')
    assert lines[call + 1] == "  denied: no terminal to ask"
    assert lines[call + 2].startswith("goosectx: warning: shell needs approval and there is no "
                                      "terminal to ask, so it was denied")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_piped_input_ending_at_the_question_is_not_called_a_cancel(world: World) -> None:
    world.provider.add(ScriptedReply("", tool_calls=[("shell", {"command": "touch z"})]))
    buf = io.StringIO()
    console = Console(file=buf, width=200, no_color=True, force_terminal=False)
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=io.StringIO("do it\n"), echo=True),
                agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    out = buf.getvalue()
    assert "shell: input ended at the approval question: the call was not run" in out
    assert "cancelled by you" not in out
    assert "turn ended: input ended at the approval question — the session is saved" in out
    assert "turn cancelled" not in out and "type to continue" not in out
    response = world.stored().conversation.messages[-1].tool_responses[0]
    assert response.output == ("Input ended at the approval question, so this tool call was "
                               "not run. The user did not decide about it.")
    assert not (world.workdir / "z").exists()


def test_input_closed_at_the_terminal_question_is_not_called_a_cancel(world: World) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    world.provider.add(ScriptedReply("", tool_calls=[("shell", {"command": "touch z"})]))
    buf = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text("do it\r")
        pipe.close()  # the input ends while the question waits
        repl = Repl(world.settings, world.store, world.session,
                    io=ReplIO(Console(file=buf, width=200), input=pipe, output=DummyOutput(),
                              history=False),
                    mode="approve", agent_factory=world.agent_factory(),
                    background_checks=False)
        repl.run()
    out = " ".join(buf.getvalue().split())
    assert "shell: input ended at the approval question: the call was not run" in out
    response = world.stored().conversation.messages[-1].tool_responses[0]
    assert response.output.startswith("Input ended at the approval question")
