"""What the REPL's slash commands say back: errors name what the user typed, caps warn.

A fresh-eyes tester's report: ``/extension add "unclosed`` blamed ``--with-extension``
(``/model``'s ``(--model)`` is in test_provider_litellm.py, where litellm is loaded anyway).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repl import CTRL_D, ENTER, World

from goosectx.providers.scripted import ScriptedReply


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_unbalanced_quotes_in_extension_add_name_extension_add(world: World) -> None:
    out = world.run('/extension add "unclosed' + ENTER + CTRL_D)
    assert "/extension add '\"unclosed': No closing quotation" in out
    assert 'quote it whole: /extension add "ENV=v cmd args"' in out
    assert "--with-extension" not in out


def test_always_allow_says_it_lasts_until_exit_as_it_does(world: World) -> None:
    # The answer is not stored with the session: a resumed session asks again.
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo one"})]), "done")
    out = world.run("run it" + ENTER + "a" + CTRL_D)
    assert "shell: always allow (this tool, until you exit)" in out
    assert "this session" not in out
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo two"})]), "done")
    world.session = world.stored()
    out = world.run("again" + ENTER + "y" + CTRL_D, resumed=True)
    assert "shell: allow once" in out  # asked again after the resume


def test_the_plain_question_offers_always_allow_until_exit(world: World) -> None:
    import io

    from rich.console import Console

    from goosectx.cli.repl import Repl, ReplIO

    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "echo one"})]), "done")
    buf = io.StringIO()
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(Console(file=buf, width=200), plain=True,
                          stdin=io.StringIO("run it\na\n"), echo=True),
                mode=world.mode, agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    assert "[a] always allow (this tool, until you exit)" in buf.getvalue()
