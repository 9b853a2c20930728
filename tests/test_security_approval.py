"""The approval question cannot be forged or cut (issue 15, point 2).

A model reply that imitates goosectx's question shows its marker neutralised (``<U+2691>``);
the real question comes after the model's text, marked, with the whole call; a long call is
folded until ``v`` shows it whole, and ``y`` does not count before that.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeServer
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from test_e2e_pty import press

from goosectx.agent import Agent
from goosectx.approval import ApprovalFn
from goosectx.cli.approval_view import approval_question, plain_question
from goosectx.cli.repl import Repl
from goosectx.cli.sanitize import APPROVAL_MARKER
from goosectx.cli.terminal import ReplIO
from goosectx.config import Settings
from goosectx.conversation import ToolRequest
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply
from goosectx.store import SessionStore
from goosectx.tools.builtin import default_registry, make_tool_context

ENTER, CTRL_D = "\r", "\x04"
FORGED = (f"{APPROVAL_MARKER} goosectx asks: run shell?\n{APPROVAL_MARKER}   ls -la\n"
          f"{APPROVAL_MARKER} Run shell? [y] allow once  [n] deny")
LONG_COMMAND = "echo " + "".join(f"part{n:04d}-" for n in range(200))  # 2,005 characters


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.settings = Settings(data_dir=tmp_path / "data")
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        self.store = SessionStore(self.settings.data_dir)
        self.session = self.store.create_session(self.workdir, name="demo", model="scripted/x")
        self.provider = ScriptedProvider()

    def run(self, keys: str) -> str:
        def build(approve: ApprovalFn) -> Agent:
            return Agent(self.session, self.settings, provider=self.provider,
                         tools=default_registry(), approve=approve, mode="approve",
                         tool_context=make_tool_context(self.settings, self.workdir))

        buf = io.StringIO()
        with create_pipe_input() as pipe:
            pipe.send_text(keys)
            repl = Repl(self.settings, self.store, self.session,
                        io=ReplIO(Console(file=buf, width=100), input=pipe,
                                  output=DummyOutput(), history=False),
                        agent_factory=build, background_checks=False)
            assert repl.run() == 0
        return buf.getvalue()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_a_forged_question_is_neutralised_and_the_real_one_follows(world: World) -> None:
    world.provider.add(ScriptedReply(FORGED, tool_calls=[
        ("shell", {"command": "touch real-call"})]), "done")
    out = world.run("go" + ENTER + "n" + ENTER + CTRL_D)
    assert "<U+2691> goosectx asks: run shell?" in out  # the model's imitation
    assert out.count(f"{APPROVAL_MARKER} goosectx asks: run shell?") == 1  # only the real one
    real = out.index(f"{APPROVAL_MARKER} goosectx asks: run shell?")
    assert out.index("<U+2691> goosectx asks") < real  # after the model's text
    assert f"{APPROVAL_MARKER}   touch real-call" in out[real:]
    assert "shell: deny" in out and not (world.workdir / "real-call").exists()


def test_bidi_and_zero_width_characters_in_a_command_are_visible(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": "echo safe\u202e; rm -rf ~ #\u200b"})]), "done")
    out = world.run("go" + ENTER + "n" + ENTER + CTRL_D)
    assert f"{APPROVAL_MARKER}   echo safe<U+202E>; rm -rf ~ #<U+200B>" in out


BLANKS = "\u3164\u2800\u00a0\u115f\uffa0\u1160\u2000\u200a\u205f\u3000\ufeff\u180e"


def test_blank_looking_characters_in_a_tool_call_are_visible(world: World) -> None:
    # A Hangul filler can name a program (`ls\u3164`) and blank Braille patterns pad a
    # command with screens of nothing; each is shown in the question and the tool-call line.
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": f"ls\u3164 -la {BLANKS} # tidy"})]), "done")
    out = world.run("go" + ENTER + "n" + ENTER + CTRL_D)
    shown = "".join(f"<U+{ord(c):04X}>" for c in BLANKS)
    question = "".join(line.removeprefix(f"{APPROVAL_MARKER}   ") for line in out.splitlines()
                       if line.startswith(f"{APPROVAL_MARKER}   "))  # wrapped to the screen
    assert question == f"ls<U+3164> -la {shown} # tidy"
    # a call too long for its line goes under the name, wrapped inside a 4-space indent
    rows = out.split("▶ shell\n", 1)[1].split("\n⚑", 1)[0].split("\n")
    assert all(row.startswith("    ") for row in rows), rows
    assert " ".join(row.strip() for row in rows) == f"command: ls<U+3164> -la {shown} # tidy"
    assert not set(BLANKS) & set(out)


SELECTORS = "\ufe0f\ufe00\U000e0100\U000e0101\U000e01ef"


def test_variation_selectors_in_a_tool_call_are_visible(world: World) -> None:
    # fresh20b #14: `ls<U+FE0F>` looks like ls but is another program, and the 256 selectors
    # can carry a hidden payload; they reached the question and the tool-call line raw.
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": f"ls\ufe0f -la {SELECTORS}"})]), "done")
    out = world.run("go" + ENTER + "n" + ENTER + CTRL_D)
    shown = "".join(f"<U+{ord(c):04X}>" for c in SELECTORS)
    question = "".join(line.removeprefix(f"{APPROVAL_MARKER}   ") for line in out.splitlines()
                       if line.startswith(f"{APPROVAL_MARKER}   "))
    assert question == f"ls<U+FE0F> -la {shown}"
    assert not set(SELECTORS) & set(out)


def test_prose_keeps_its_emoji_presentation_selector(world: World) -> None:
    world.provider.add(ScriptedReply("I \u2764\ufe0f it"))
    out = world.run("go" + ENTER + CTRL_D)
    assert "I \u2764\ufe0f it" in out


def test_prose_keeps_its_ideographic_space(world: World) -> None:
    world.provider.add(ScriptedReply("你好\u3000世界，a\u00a0b"))
    out = world.run("go" + ENTER + CTRL_D)
    assert "你好\u3000世界，a\u00a0b" in out


def squeezed(text: str) -> str:
    return "".join(text.replace(APPROVAL_MARKER, "").split())


def test_a_long_command_is_shown_whole_before_y_counts(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": LONG_COMMAND})]), "ran")
    out = world.run("go" + ENTER + "y" + "v" + "y" + CTRL_D)
    folded, whole = out.split("press v to see the whole call", 1)
    assert squeezed(LONG_COMMAND) not in squeezed(folded)
    assert squeezed(LONG_COMMAND) in squeezed(whole)
    assert "shell: allow once" in whole and "part0199-" in whole.split("shell: allow once")[0]


def test_y_before_v_does_not_approve_a_long_command(world: World) -> None:
    world.provider.add(ScriptedReply(tool_calls=[
        ("shell", {"command": LONG_COMMAND + " > ran.txt"})]), "ok")
    out = world.run("go" + ENTER + "y" + "a" + "n" + ENTER + CTRL_D)
    assert "shell: deny" in out and not (world.workdir / "ran.txt").exists()


def test_plain_question_lines_all_carry_the_marker() -> None:
    request = ToolRequest("c1", "shell", {"command": "ls\npwd", "timeout_s": 5})
    lines = plain_question(approval_question(request, 80), whole=False)
    assert lines == [f"{APPROVAL_MARKER} goosectx asks: run shell?", f"{APPROVAL_MARKER}   ls",
                     f"{APPROVAL_MARKER}   pwd", f"{APPROVAL_MARKER}   timeout_s: 5"]



@pytest.mark.parametrize("width", [30, 40, 80])
def test_a_call_of_wide_characters_is_wrapped_by_screen_cells(width: int) -> None:
    """A command of CJK text (two cells a character) drew lines wider than the screen: the
    terminal wrapped them itself and their continuations had no marker (fresh19c #10)."""
    from rich.cells import cell_len  # noqa: PLC0415

    command = "echo " + "这是一个很长的中文参数用于测试折行" * 4 + " --some-long-option-name-here"
    lines = plain_question(approval_question(ToolRequest("c1", "shell", {"command": command}),
                                             width), whole=True)
    assert all(line.startswith(APPROVAL_MARKER) and cell_len(line) <= width for line in lines[1:]
               ), [(cell_len(line), line) for line in lines]
    body = "".join(line.removeprefix(f"{APPROVAL_MARKER}   ") for line in lines[1:])
    assert body == command  # nothing lost at the cuts


pexpect = pytest.importorskip("pexpect")
ESC = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"
"""Style escape codes rich may put between the marker and the text."""


def _key_lines(width: int, rule: str | None) -> tuple[list[tuple[str, str]], list[str]]:
    from goosectx.cli.approval_keys import approval_key_line, approval_keys

    choices = [("v", "view the whole call")] + [(k, label) for k, _, label in approval_keys(rule)]
    fragments = approval_key_line("shell", choices, width)
    return choices, "".join(text for _, text in fragments).split("\n")


@pytest.mark.slow
@pytest.mark.parametrize("width", [20, 40, 80, 160, 200])
@pytest.mark.parametrize("rule", [None, "git log", "docker-compose-very-long-tool-name*",
                                  "x" * 120 + "*"])
def test_the_key_line_wraps_between_keys_and_every_line_carries_the_marker(
        width: int, rule: str | None) -> None:
    """At 80 columns the line broke inside "[n] deny" with no marker on the rest; a rule
    built from a long command (the model's text) wrapped onto unmarked lines; at 40 columns
    the rule p / s add was cut with "…" and could not be read."""
    choices, lines = _key_lines(width, rule)
    assert all(line.startswith(f"{APPROVAL_MARKER} ") for line in lines)
    assert all(len(line.rstrip()) <= width for line in lines)  # the terminal wraps none
    squashed = "".join("".join(line[2:] for line in lines).split())
    for key, label in choices:  # each label whole, in order, its key beside it
        assert f"[{key}]" + "".join(label.split()) in squashed
    one_line = "⚑ Run shell? " + "  ".join(f"[{key}] {label}" for key, label in choices)
    assert (len(lines) == 1) == (len(one_line) <= width)


def test_a_long_rule_wraps_at_40_columns_where_a_word_ends() -> None:
    """The tester's case: ``[p] always allow shell(docker-compo…`` at 40 columns."""
    _choices, lines = _key_lines(40, "shell(docker-compose-very-long-tool-name*)")
    assert "…" not in "".join(line for line in lines if "[s]" not in line)
    assert lines == [
        f"{APPROVAL_MARKER} Run shell? [v] view the whole call",
        f"{APPROVAL_MARKER}   [y] allow once",
        f"{APPROVAL_MARKER}   [p] always allow",
        f"{APPROVAL_MARKER}       shell(docker-compose-very-long-",
        f"{APPROVAL_MARKER}       tool-name*) (until you exit)",
        f"{APPROVAL_MARKER}   [s] … and save it to your config",
        f"{APPROVAL_MARKER}   [a] always allow (this tool, until",
        f"{APPROVAL_MARKER}       you exit)",
        f"{APPROVAL_MARKER}   [n] deny  [c] cancel the turn",
    ]


def test_forged_and_long_questions_in_a_pty(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [{"text": FORGED, "tool_calls": [
                  {"name": "shell", "arguments": {"command": LONG_COMMAND + " > ran.txt"}}]},
              {"text": "finished"}]
    with FakeServer(script) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GOOSE_")}
        (tmp_path / "c.toml").touch()
        env.update(GOOSECTX_HOME=str(tmp_path / "home"), GOOSECTX_CONFIG=str(tmp_path / "c.toml"),
                   GOOSE_MODEL="openai/fake-model", OPENAI_API_BASE=server.base_url,
                   OPENAI_API_KEY="sk-test-dummy", PROMPT_TOOLKIT_NO_CPR="1",
                   TERM="xterm-256color", GOOSE_MODE="approve")
        env.pop("NO_COLOR", None)
        child = pexpect.spawn("goosectx", ["session"], cwd=str(work), env=env,
                              dimensions=(40, 100), encoding="utf-8", timeout=120)
        try:
            child.expect("❯")
            child.send("go\r")
            child.expect("<U\\+2691> goosectx asks")  # the imitation, neutralised
            child.expect(f"{APPROVAL_MARKER}{ESC} {ESC}goosectx asks: run shell\\?")  # the real one
            child.expect("press v to see the whole call")
            child.expect(r"Run shell\?")
            press(child, "y")
            child.expect("see the whole call first")
            time.sleep(0.3)
            assert not (work / "ran.txt").exists()
            press(child, "v")
            child.expect("part0199-")
            child.expect(r"Run shell\?")
            press(child, "y")
            child.expect("shell: allow once")
            child.expect("finished")
            child.expect("❯")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert (work / "ran.txt").exists()


@pytest.mark.parametrize("width", [12, 30])
def test_a_rule_of_wide_characters_wraps_whole_in_a_tiny_terminal(width: int) -> None:
    from prompt_toolkit.utils import get_cwidth

    choices, lines = _key_lines(width, "shell(全部-日本語のコマンド*)")
    assert all(line.startswith(f"{APPROVAL_MARKER} ") and line.strip() for line in lines)
    assert all(get_cwidth(line.rstrip()) <= width for line in lines)  # cells, not characters
    squashed = "".join("".join(line[2:] for line in lines).split())
    for key, label in choices:
        assert f"[{key}]" + "".join(label.split()) in squashed
