"""A read asked about says why, and the why is the one that made it ask (review 21, fix22a).

``run``'s "needs approval" warning named a reason from a second copy of read scoping: after
``--allow text_editor`` it said "outside the project" for a file in goosectx's data dir (the
rule allows reads outside; the data dir is what asks), said nothing for goosectx's own config
file, and named a hard link when an ask rule was the cause. The REPL's question named no
reason at all. Both now say the reason the approval decided on.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World

from goosectx.cli.approval_view import approval_question, plain_question
from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.conversation import ToolRequest
from goosectx.permissions import parse_permissions
from goosectx.providers.scripted import ScriptedReply

HARD = "has other hard links, which may be outside the project (`ln ~/secret notes.txt`)"
ASKED = ", so reading it is asked about: answer it in the REPL, or use --mode auto"
RULE = ", which the allow rule text_editor does not cover"  # --allow text_editor: not for these


def view(path: str | Path) -> dict:
    return {"tool_calls": [{"name": "text_editor",
                            "arguments": {"command": "view", "path": str(path)}}]}


def notice(fake_model: FakeServer, capsys: pytest.CaptureFixture[str], call: dict,
           *args: str) -> str:
    """The one notice of ``run --output-format json ARGS`` when the model makes ``call``."""
    fake_model.add(call, {"text": "ok"})
    code, out, err = run_cli(capsys, "run", "--output-format", "json", *args, "-t", "look")
    assert code == 0, err
    (said,) = json.loads(out)["notices"]
    return str(said)


def test_a_file_in_the_data_dir_is_named_so_after_allow_text_editor(
        fake_model: FakeServer, workdir: Path, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    log = isolated_env["home"] / "notes.txt"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("session data\n")
    said = notice(fake_model, capsys, view(log), "--allow", "text_editor")
    assert f"denied; {log} is in goosectx's data dir{RULE}{ASKED}" in said
    assert "outside the project" not in said


def test_the_config_file_in_the_project_is_named_so_after_allow_text_editor(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = workdir / "goose.toml"
    config.write_text("")
    monkeypatch.setenv("GOOSECTX_CONFIG", str(config))
    said = notice(fake_model, capsys, view("goose.toml"), "--allow", "text_editor")
    assert f"denied; {config} is goosectx's config file{RULE}{ASKED}" in said


def test_an_ask_rule_is_named_not_the_hard_link(
        fake_model: FakeServer, workdir: Path, isolated_env: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "real.txt").write_text("x\n")
    os.link(workdir / "real.txt", workdir / "hard.txt")
    isolated_env["config"].write_text('[permissions]\nask = ["text_editor(hard.txt)"]\n')
    said = notice(fake_model, capsys, view("hard.txt"))
    assert "a permission rule asks: text_editor(hard.txt)" in said
    assert "hard links" not in said


def test_a_sensitive_name_is_named(fake_model: FakeServer, workdir: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / ".env").write_text("KEY=1\n")
    said = notice(fake_model, capsys, view(".env"), "--allow", "text_editor")
    assert f"denied; {workdir / '.env'} is a sensitive file{RULE}{ASKED}" in said


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.mode = "smart_approve"
    yield w
    w.store.close()


def question(world: World, path: str | Path) -> str:
    """The REPL's screen from the question about viewing ``path`` to its answer (``n``)."""
    world.provider.add(ScriptedReply(tool_calls=[("text_editor", {"command": "view",
                                                                  "path": str(path)})]), "ok")
    out = world.run("look" + ENTER + "n" + ENTER + CTRL_D, width=400)  # one line each
    asked = out.index("goosectx asks: run text_editor?")
    return " ".join(out[asked:].split())


def test_the_repl_question_names_the_hard_link(world: World) -> None:
    (world.workdir / "real.txt").write_text("x\n")
    os.link(world.workdir / "real.txt", world.workdir / "hard.txt")
    assert f"{world.workdir / 'hard.txt'} {HARD}" in question(world, "hard.txt")


def test_the_repl_question_names_the_data_dir_after_an_allow_rule(world: World) -> None:
    world.settings.permissions = parse_permissions("test", {"allow": ["text_editor"]})
    kept = world.settings.data_dir / "notes.txt"
    kept.write_text("x\n")
    shown = question(world, kept)
    assert f"{kept} is in goosectx's data dir" in shown
    assert "outside the project" not in shown


class Tty(io.StringIO):
    """Answers typed on a terminal (``run`` asks only when stdin is one)."""

    def isatty(self) -> bool:
        return True


def test_runs_question_on_a_terminal_names_the_hard_link(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # the question's lines uncut
    (workdir / "real.txt").write_text("x\n")
    os.link(workdir / "real.txt", workdir / "hard.txt")
    fake_model.add(view("hard.txt"), {"text": "ok"})
    stderr = io.StringIO()
    code = run_task(load_settings(), text="look", input_file=None, name=None, resume=None,
                    continue_=False, max_turns=None, output_format="text", mode=None,
                    model=None, stdin=Tty("n\n"), stdout=io.StringIO(), stderr=stderr)
    assert code == 0
    shown = " ".join(stderr.getvalue().replace("\u2691", "").split())
    assert f"goosectx asks: run text_editor? asked because {workdir / 'hard.txt'} {HARD}" in shown


def test_a_newline_in_the_path_cannot_split_the_why_line() -> None:
    # the path comes from the model: a line of its own would carry no marker
    request = ToolRequest("c1", "text_editor", {"command": "view", "path": "../x\nfake: y"})
    lines = plain_question(approval_question(request, 200, why="/w/x\nfake: y is outside the "
                                             "project"), whole=False)
    assert all(line.startswith("\u2691 ") for line in lines)
    assert "\u2691   asked because /w/x\u240afake: y is outside the project" in lines
