"""``goosectx run -t '/NAME …'``: custom commands expanded as in the REPL, REPL commands refused.

The rule for what is a command is the REPL's: a first word with a second ``/`` or a leading
``//`` is text (``//`` undone), and so is a first word naming a path that exists.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli
from fakeserver import FakeServer
from test_repl import CTRL_D, ENTER, World
from test_run_cmd import Run, only_session, store

from goosectx.config import load_settings

REVIEW = ("---\ndescription: review\nmodel: openai/other\nallowed-tools: Bash(git status)\n"
          "---\nReview $ARGUMENTS carefully.\n")


def review_command(project: Path) -> None:
    folder = project / ".goosectx" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "review.md").write_text(REVIEW)


def sent(fake_model: FakeServer) -> str:
    return str(fake_model.requests[-1]["messages"][-1]["content"])


def test_a_custom_command_is_expanded_and_its_unused_keys_named(fake_model: FakeServer,
                                                                workdir: Path) -> None:
    review_command(workdir)
    fake_model.add({"text": "reviewed"})
    run = Run(text="/review a.py")
    assert run.code == 0, run.err
    assert sent(fake_model) == "Review a.py carefully."
    assert only_session()[0].text == "Review a.py carefully."
    assert ("goosectx: warning: /review (.goosectx/commands/review.md): front matter model:, "
            "allowed-tools: ignored — goosectx uses only description: and argument-hint:\n"
            ) in run.err


def test_a_resumed_run_reads_the_commands_of_the_session_s_dir(
        fake_model: FakeServer, workdir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    review_command(workdir)
    fake_model.add({"text": "one"}, {"text": "two"})
    Run(text="first", name="kept")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run = Run(text="/review b.py", resume="kept")
    assert run.code == 0, run.err
    assert sent(fake_model) == "Review b.py carefully."


@pytest.mark.parametrize(("task", "says"), [
    ("/compact", "/compact is a REPL command; REPL commands do not run in goosectx run — "
                 "use goosectx compact SESSION, or start the task with // to send a leading /"),
    ("/undo --force", "/undo is a REPL command; REPL commands do not run in goosectx run — "
                      "run it in the REPL (goosectx --resume SESSION), or start the task "
                      "with // to send a leading /"),
    ("/revew a.py", "unknown command /revew: no custom command file revew.md (looked in "
                    "{dirs}), and REPL commands do not run in goosectx run — did you mean "
                    "/review? start the task with // to send a leading /"),
])
def test_a_repl_command_or_unknown_word_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer, workdir: Path,
        task: str, says: str) -> None:
    review_command(workdir)
    code, out, err = run_cli(capsys, "run", "-t", task)
    assert code == 2
    # the dirs looked in: the user's moves with the config file (--config, GOOSECTX_CONFIG)
    dirs = ", ".join(map(str, (workdir / ".goosectx" / "commands",
                               load_settings().config_file.parent / "commands",
                               workdir / ".claude" / "commands")))
    assert err == f"goosectx: error: {says.format(dirs=dirs)}\n"
    assert not fake_model.requests
    with_store = store()
    try:
        assert with_store.list_sessions() == []  # nothing created
    finally:
        with_store.close()


def test_a_command_in_the_user_dir_not_read_says_where_commands_are_read(
        capsys: pytest.CaptureFixture[str], fake_model: FakeServer, workdir: Path) -> None:
    """fresh20a finding 10: GOOSECTX_CONFIG elsewhere, ~/.config/goosectx/commands unread."""
    mine = Path(os.environ["XDG_CONFIG_HOME"]) / "goosectx" / "commands" / "mine.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my personal prompt $ARGUMENTS")
    searched = Path(os.environ["GOOSECTX_CONFIG"]).parent / "commands"
    code, out, err = run_cli(capsys, "run", "-t", "/mine x")
    assert code == 2 and not fake_model.requests
    assert err == (f"goosectx: error: unknown command /mine: {mine} is not read: your commands "
                   f"are read from {searched}, next to the config file — move or link it "
                   "there, or start the task with // to send a leading /\n")


@pytest.mark.parametrize(("task", "model_gets"), [
    ("/etc/hosts is broken", "/etc/hosts is broken"),
    ("/tmp is full", "/tmp is full"),  # a path that exists
    ("//compact is a word", "/compact is a word"),  # the REPL's escape
])
def test_a_task_that_is_not_a_command_is_sent(fake_model: FakeServer, workdir: Path,
                                              task: str, model_gets: str) -> None:
    fake_model.add({"text": "ok"})
    run = Run(text=task)
    assert run.code == 0, run.err
    assert sent(fake_model) == model_gets


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_commands_in_the_repl_names_the_front_matter_keys_ignored(world: World) -> None:
    review_command(world.workdir)
    out = " ".join(world.run("/commands" + ENTER + CTRL_D).split())
    assert ("warning: /review (.goosectx/commands/review.md): front matter model:, "
            "allowed-tools: ignored — goosectx uses only description: and argument-hint:"
            ) in out
