"""What goosectx says when it is asked to stop (SIGTERM) while an approval question waits."""

from __future__ import annotations

import io
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_repl import ENTER, World

from goosectx.cli import exit_signals, repl_approval
from goosectx.cli.repl import Repl, ReplIO
from goosectx.providers.scripted import ScriptedReply


def _run_repl_typing_go(world: World, before_run: Callable[[], None] = lambda: None) -> str:
    """The REPL of ``world`` with SIGTERM taken as Ctrl-C, fed "go"; what it drew."""
    buf = io.StringIO()
    try:
        with exit_signals.as_ctrl_c(), create_pipe_input() as pipe:
            pipe.send_text("go" + ENTER)
            repl = Repl(world.settings, world.store, world.session,
                        io=ReplIO(Console(file=buf, width=100), input=pipe,
                                  output=DummyOutput(), history=False),
                        mode=world.mode, agent_factory=world.agent_factory(),
                        background_checks=False)
            before_run()
            repl.run()
    finally:
        exit_signals._received.clear()
    return buf.getvalue()


def test_sigterm_at_an_approval_question_says_goosectx_was_asked_to_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(tmp_path)
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo x"})]), "fine")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGTERM))
    asked = repl_approval.ask_approval

    def ask_then_stop(*args: Any, **kwargs: Any) -> str:
        # the SIGTERM comes while the question waits (a fixed delay from the start raced the
        # model's reply on a loaded machine and came before the question)
        timer.start()
        return asked(*args, **kwargs)

    monkeypatch.setattr(repl_approval, "ask_approval", ask_then_stop)
    try:
        out = _run_repl_typing_go(world)
    finally:
        timer.cancel()
    assert "cancelled by you" not in out and "cancel the turn" not in out, out
    assert "shell: not run: goosectx was asked to stop (SIGTERM)" in out, out
    stored = world.store.load(world.session.id).conversation
    (answer,) = [r for m in stored for r in m.tool_responses]
    assert "The user cancelled" not in answer.output
    assert answer.output.startswith("goosectx was asked to stop (SIGTERM)")
    world.store.close()


def test_sigterm_while_a_tool_runs_tells_the_model_goosectx_was_asked_to_stop(
        tmp_path: Path) -> None:
    world = World(tmp_path)
    world.mode = "auto"
    marker = tmp_path / "started"
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": f"echo partial; touch {marker}; sleep 30"})]), "fine")

    def stop_once_started() -> None:
        for _ in range(600):
            if marker.exists():
                break
            threading.Event().wait(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    stopper = threading.Thread(target=stop_once_started, daemon=True)
    try:
        out = _run_repl_typing_go(world, stopper.start)
    finally:
        stopper.join(timeout=60)
    assert "cancelled by you" not in out, out
    assert "stopped: goosectx was asked to stop (SIGTERM)" in out, out
    stored = world.store.load(world.session.id).conversation
    (answer,) = [r for m in stored for r in m.tool_responses]
    assert "The user cancelled" not in answer.output
    assert answer.output.startswith("goosectx was asked to stop (SIGTERM) while this tool "
                                    "call ran")
    assert "partial" in answer.output  # the output so far still reaches the model
    world.store.close()


def test_run_sigterm_while_a_tool_runs_tells_the_model_goosectx_was_asked_to_stop(
        tmp_path: Path) -> None:
    from fakeserver import FakeServer
    from reliability_support import load, model_env, start, wait_for

    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    marker = work / "started"
    script = [{"tool_calls": [{"name": "shell", "arguments": {
        "command": f"echo partial; touch {marker}; sleep 30"}}]}]
    with FakeServer(script) as server:
        proc = start(model_env(home, server.base_url), "run", "--name", "t", "--mode", "auto",
                     "-t", "go", cwd=work)
        wait_for("the tool call to start", marker.exists, proc)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert b"cancelled (SIGTERM)" in err
    # the call's line says the cause once, as the REPL does
    assert b"  stopped: goosectx was asked to stop (SIGTERM)" in err, err
    assert err.count(b"asked to stop") == 1, err
    answers = [r for m in load(home, "t").conversation for r in m.tool_responses]
    (answer,) = answers
    assert "The user cancelled" not in answer.output
    assert answer.output.startswith("goosectx was asked to stop (SIGTERM) while this tool "
                                    "call ran")
