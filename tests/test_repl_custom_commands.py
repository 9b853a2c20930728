"""Custom slash commands from Markdown files: ``/NAME [arguments]`` sends the file's text.

Project ``.goosectx/commands/`` beats the user's ``commands/`` next to the config file beats
the project's ``.claude/commands/``; built-in commands always win.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from test_repl import CTRL_D, ENTER, World

from goosectx.config import Settings, load_settings


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.store.close()


def project_dir(world: World, kind: str = ".goosectx") -> Path:
    path = world.workdir / kind / "commands"
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_dir() -> Path:
    path = Settings().config_file.parent / "commands"  # next to $GOOSECTX_CONFIG (conftest)
    path.mkdir(parents=True, exist_ok=True)
    return path


def sent(world: World) -> str:
    return world.provider.requests[0].messages[-1].text


def flat(out: str) -> str:
    return " ".join(out.split())


def test_a_project_command_sends_its_text_with_the_arguments(world: World) -> None:
    (project_dir(world) / "review.md").write_text(
        "Review $1 for bugs, then $2.\nFocus: $ARGUMENTS\n")
    world.provider.add("Looking at it.")
    out = world.run("/review src/app.py tests" + ENTER + CTRL_D)
    assert sent(world) == "Review src/app.py for bugs, then tests.\nFocus: src/app.py tests"
    assert "╭─ you" in out and "Review src/app.py for bugs, then tests." in out  # as sent
    assert "Looking at it." in out
    assert world.stored().conversation.messages[0].text == sent(world)


def test_arguments_without_a_placeholder_come_after_a_blank_line(world: World) -> None:
    (project_dir(world) / "explain.md").write_text("Explain this code simply.\n")
    world.provider.add("ok", "ok")
    world.run("/explain the parser" + ENTER + "/explain" + ENTER + CTRL_D)
    assert sent(world) == "Explain this code simply.\n\nthe parser"
    assert world.provider.requests[1].messages[-1].text.endswith("Explain this code simply.")


def test_project_beats_user_beats_claude(world: World) -> None:
    for name in ("one", "two", "three"):
        (project_dir(world, ".claude") / f"{name}.md").write_text(f"claude {name}")
    (user_dir() / "one.md").write_text("user one")
    (user_dir() / "two.md").write_text("user two")
    (project_dir(world) / "one.md").write_text("project one")
    world.provider.add("a", "b", "c")
    world.run("/one" + ENTER + "/two" + ENTER + "/three" + ENTER + CTRL_D)
    assert [r.messages[-1].text for r in world.provider.requests] == [
        "project one", "user two", "claude three"]


def test_a_builtin_name_and_a_bad_file_name_are_skipped_with_a_warning(world: World) -> None:
    commands = project_dir(world)
    (commands / "compact.md").write_text("not the real compact")
    (commands / "Bad Name.md").write_text("x")
    (commands / "evil\x1b[2J.md").write_text("x")
    out = world.run("/compact" + ENTER + CTRL_D)
    text = flat(out)
    assert "compact.md" in text and "built-in /compact" in text
    assert "Bad Name.md" in text and "skipped" in text
    assert "\x1b[2J" not in out  # the file name through the sanitiser
    assert not any("not the real compact" in m.text
                   for r in world.provider.requests for m in r.messages)


def test_a_name_with_letters_beyond_ascii_is_skipped_saying_ascii(world: World) -> None:
    """é is a letter: "NAME letters, digits, - and _" contradicted skipping révision.md."""
    (project_dir(world) / "révision.md").write_text("Relis $1")
    text = flat(world.run(CTRL_D))
    assert ("custom command file .goosectx/commands/révision.md skipped: a command is NAME.md, "
            "NAME ASCII letters a-z, digits, - and _ (at most 64), e.g. review.md") in text


def test_front_matter_describes_the_command_in_help_and_is_not_sent(world: World) -> None:
    (project_dir(world) / "fix-issue.md").write_text(
        "---\ndescription: Fix a GitHub issue by number\nargument-hint: NUMBER\n---\n"
        "Fix issue #$1 and add a test.\n")
    world.provider.add("on it")
    out = world.run("/help" + ENTER + "/fix-issue 42" + ENTER + CTRL_D)
    text = flat(out)
    assert "custom commands" in text
    assert "/fix-issue NUMBER" in text and "Fix a GitHub issue by number" in text
    assert "project .goosectx/commands" in text  # where it comes from
    assert sent(world) == "Fix issue #42 and add a test."


def test_a_file_over_64_kb_is_skipped_with_a_warning(world: World) -> None:
    (project_dir(world) / "huge.md").write_text("x" * 70_000)
    out = world.run("/huge" + ENTER + CTRL_D)
    text = flat(out)
    assert "huge.md" in text and "64 KB" in text
    assert text.count("huge.md skipped: larger than 64 KB") == 2  # at the start, on use
    assert not world.provider.requests


def test_a_file_not_utf8_is_skipped_with_a_warning(world: World) -> None:
    (project_dir(world) / "latin.md").write_bytes(b"caf\xe9 $ARGUMENTS")
    out = world.run(CTRL_D)
    assert "latin.md" in flat(out) and "UTF-8" in flat(out)


def test_commands_rereads_the_files_and_lists_them(world: World) -> None:
    world.provider.add("done")
    keys = "/commands" + ENTER + "/later" + ENTER + CTRL_D
    (project_dir(world) / "early.md").write_text("---\ndescription: first one\n---\nhi")
    out = world.run(keys)
    assert "/early" in out and "first one" in out
    assert "unknown command /later" in flat(out)
    (project_dir(world) / "later.md").write_text("added later")
    world.run("/later" + ENTER + CTRL_D)
    assert sent(world) == "added later"


def test_tab_completion_offers_custom_commands(world: World) -> None:
    (project_dir(world) / "review.md").write_text("---\ndescription: review it\n---\nReview.")
    world.run(CTRL_D)
    completer = world.repl.prompt_session.completer  # the prompt's, as Tab asks it
    got = [(c.text, c.display_meta_text)
           for c in completer.get_completions(Document("/rev"), CompleteEvent())]
    assert got == [("/review", "review it")]


def test_info_names_the_command_dirs_found(capsys: pytest.CaptureFixture[str], workdir: Path
                                           ) -> None:
    (workdir / ".goosectx" / "commands").mkdir(parents=True)
    (workdir / ".goosectx" / "commands" / "review.md").write_text("Review.")
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("custom commands"))
    assert str(workdir / ".goosectx" / "commands") in line and "1 command" in line
    # the user's dir is next to the config file (GOOSECTX_CONFIG here): named when absent
    user = load_settings().config_file.parent / "commands"
    assert f" · user dir {user}: no such directory  [project > user > .claude]" in line


def test_a_command_with_only_front_matter_sends_nothing(world: World) -> None:
    (project_dir(world) / "empty.md").write_text("---\ndescription: nothing yet\n---\n\n")
    out = world.run("/empty" + ENTER + CTRL_D)
    assert "has no text to send — nothing sent" in flat(out)
    assert not world.provider.requests


def test_dollar_amounts_escapes_and_quoted_arguments(world: World) -> None:
    (project_dir(world) / "budget.md").write_text(
        "Keep the bill under $25 a day (\\$1 is a field name). File $1, focus $2, [$10].\n")
    world.provider.add("ok")
    world.run("/budget a.py 'security and speed'" + ENTER + CTRL_D)
    assert sent(world) == ("Keep the bill under $25 a day ($1 is a field name). "
                           "File a.py, focus security and speed, [$10].")


def test_an_empty_file_sends_just_the_arguments(world: World) -> None:
    (project_dir(world) / "empty.md").write_text("---\ndescription: d\n---\n\n")
    world.provider.add("ok")
    world.run("/empty hello there" + ENTER + CTRL_D)
    assert sent(world) == "hello there"


def test_claude_code_folders_carry_over(world: World) -> None:
    folder = project_dir(world, ".claude")
    (folder / "Review.md").write_text("Review it.")
    (folder / "notes.txt").write_text("not a command")
    (folder / "frontend").mkdir()
    (folder / "frontend" / "component.md").write_text("Make a component.")
    world.provider.add("ok")
    out = world.run("/review" + ENTER + "/frontend:component" + ENTER + CTRL_D)
    assert sent(world) == "Review it."
    assert "notes.txt" not in out  # not a command file: not read, not warned about
    assert "commands in subdirectories (frontend/component.md) are not read" in flat(out)
    assert len(world.provider.requests) == 1


def default_user_dir() -> Path:
    """``~/.config/goosectx/commands``: not read while $GOOSECTX_CONFIG is elsewhere (conftest)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "goosectx" / "commands"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_info_names_the_user_dir_searched_and_one_left_unread(
        capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    """fresh20a finding 10: with GOOSECTX_CONFIG elsewhere, ~/.config's commands vanished."""
    (default_user_dir() / "mine.md").write_text("my personal prompt $ARGUMENTS")
    searched = Settings().config_file.parent / "commands"
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    row = flat(out[out.index("custom commands"):])
    assert f"(none) · user dir {searched}: no such directory" in row
    assert (f"{default_user_dir()} not read: the config file is elsewhere, "
            f"{searched} is read instead") in row


def test_a_command_in_the_unread_user_dir_says_where_commands_are_read(world: World) -> None:
    (default_user_dir() / "mine.md").write_text("my personal prompt $ARGUMENTS")
    searched = Settings().config_file.parent / "commands"
    out = flat(world.run("/mine x" + ENTER + "/commands" + ENTER + CTRL_D))
    assert (f"unknown command /mine: {default_user_dir() / 'mine.md'} is not read: your "
            f"commands are read from {searched}, next to the config file — move or link it "
            "there") in out
    assert f"put NAME.md files in .goosectx/commands, {searched}, .claude/commands" in out
    assert f"{default_user_dir()} not read: the config file is elsewhere" in out
    assert not world.provider.requests  # nothing sent
