"""What goosectx says when it is asked to stop (SIGTERM) while an approval question waits."""

from __future__ import annotations

import io
import os
import signal
import threading
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_repl import ENTER, World

from goosectx.cli import exit_signals
from goosectx.cli.repl import Repl, ReplIO
from goosectx.providers.scripted import ScriptedReply


def test_sigterm_at_an_approval_question_says_goosectx_was_asked_to_stop(
        tmp_path: Path) -> None:
    world = World(tmp_path)
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo x"})]), "fine")
    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGTERM))
    buf = io.StringIO()
    try:
        with exit_signals.as_ctrl_c(), create_pipe_input() as pipe:
            pipe.send_text("go" + ENTER)
            repl = Repl(world.settings, world.store, world.session,
                        io=ReplIO(Console(file=buf, width=100), input=pipe,
                                  output=DummyOutput(), history=False),
                        mode=world.mode, agent_factory=world.agent_factory(),
                        background_checks=False)
            timer.start()
            repl.run()
    finally:
        timer.cancel()
        exit_signals._received.clear()
    out = buf.getvalue()
    assert "cancelled by you" not in out and "cancel the turn" not in out, out
    assert "shell: not run: goosectx was asked to stop (SIGTERM)" in out, out
    stored = world.store.load(world.session.id).conversation
    (answer,) = [r for m in stored for r in m.tool_responses]
    assert "The user cancelled" not in answer.output
    assert answer.output.startswith("goosectx was asked to stop (SIGTERM)")
    world.store.close()
