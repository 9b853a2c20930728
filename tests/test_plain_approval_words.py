"""Plain mode's approval question (piped input, ``TERM=dumb``, ``NO_COLOR``): typed answers.

Common yes / no words answer it; a line that answers nothing is re-asked with a hint naming
the answers, and never becomes a denial — so the user's next line is never taken as a deny
reason it was not asked for.
"""

from __future__ import annotations

import io
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from test_repl import World

from goosectx.approval import CANCELLED_TEXT
from goosectx.cli.repl import Repl, ReplIO
from goosectx.cli.sanitize import APPROVAL_MARKER
from goosectx.providers.scripted import ScriptedReply

HINT = (f"{APPROVAL_MARKER} what you typed is not an answer and was not sent — type y, a, n "
        "or c (or yes, no…) and Enter")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def plain_run(world: World, *lines: str) -> str:
    world.provider.add(ScriptedReply("", tool_calls=[("text_editor", {
        "command": "create", "path": "made.txt", "file_text": "hi\n"})]), "done")
    buf = io.StringIO()
    console = Console(file=buf, width=200, no_color=True, force_terminal=False)
    stdin = io.StringIO("".join(line + "\n" for line in ["make the file", *lines]))
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=stdin, echo=True), mode="approve",
                agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    return buf.getvalue()


@pytest.mark.parametrize("said", ["yes please", "Sure!", "go ahead", "OK", "yep", "Yes."])
def test_a_common_yes_allows_the_call(world: World, said: str) -> None:
    out = plain_run(world, said)
    assert "text_editor: allow once" in out and HINT not in out
    assert (world.workdir / "made.txt").read_text() == "hi\n"


@pytest.mark.parametrize("said", ["no thanks", "Nope", "don't"])
def test_a_common_no_denies_and_asks_for_the_reason_it_says_it_asks(world: World,
                                                                     said: str) -> None:
    out = plain_run(world, said, "")
    assert "text_editor: deny" in out and "reason for the model (Enter to skip)" in out
    assert not (world.workdir / "made.txt").exists()


def test_non_answers_are_re_asked_with_a_hint_and_never_deny(world: World) -> None:
    out = plain_run(world, "hmm", "what does it write?", "let me think", "why", "y")
    assert out.count(HINT) == 4
    assert "text_editor: allow once" in out and "text_editor: deny" not in out
    assert (world.workdir / "made.txt").exists()


def test_the_line_after_non_answers_is_not_taken_as_a_deny_reason(world: World) -> None:
    # Three lines that answer nothing used to deny the call and take the next line, meant as
    # the next message, as the reason sent to the model.
    out = plain_run(world, "maybe", "I am not sure", "hmm", "Also, please add tests.")
    assert "reason for the model" not in out and "text_editor: deny" not in out
    response = world.stored().conversation.messages[-1].tool_responses[0]
    assert "Also, please add tests" not in response.output
    assert "Input ended at the approval question" in response.output
    assert not (world.workdir / "made.txt").exists()


class _CtrlCAtTheReason(io.StringIO):
    """Plain stdin on which the user presses Ctrl-C (a SIGINT) at the reason prompt, then
    goes on typing: the line read there would be their half-typed reason."""

    def readline(self, size: int | None = -1) -> str:
        line = super().readline()
        if line == "^C\n":
            os.kill(os.getpid(), signal.SIGINT)
            return "half typed reason\n"
        return line


def test_ctrl_c_at_the_reason_prompt_cancels_the_turn(world: World) -> None:
    world.provider.add(ScriptedReply("", tool_calls=[
        ("text_editor", {"command": "create", "path": "a1.txt", "file_text": "1\n"}),
        ("text_editor", {"command": "create", "path": "a2.txt", "file_text": "2\n"})]), "done")
    buf = io.StringIO()
    console = Console(file=buf, width=200, no_color=True, force_terminal=False)
    stdin = _CtrlCAtTheReason("make the files\nn\n^C\n")
    repl = Repl(world.settings, world.store, world.session,
                io=ReplIO(console, plain=True, stdin=stdin, echo=True), mode="approve",
                agent_factory=world.agent_factory(), background_checks=False)
    assert repl.run() == 0
    out = buf.getvalue()
    assert "(Enter to skip): \n-- text_editor: cancel the turn" in out
    assert "text_editor: deny" not in out
    assert out.count("Run text_editor?") == 1  # the second call is not asked about
    assert not (world.workdir / "a1.txt").exists() and not (world.workdir / "a2.txt").exists()
    answers = [r.output for m in world.stored().conversation for r in m.tool_responses]
    assert len(answers) == 2 and all(a.startswith(CANCELLED_TEXT) for a in answers), answers
    assert len(world.provider.requests) == 1  # the half-typed reason was sent nowhere
